-- Newsletter consent as an append-only record: every confirmation link mailed ('requested'), every confirmation
-- ('confirmed') and every withdrawal ('withdrawn') is a row of its own, with the address, the IP address and
-- browser of the request that did it, the version of the card's wording and the database's time. Rows are never
-- changed: a trigger refuses UPDATE, DELETE and TRUNCATE to every API role, service_role included, so neither a
-- stranger's sign-up nor a bug in a function can rewrite or erase the proof of a consent or of its withdrawal.
-- Only delete_expired_data() (security definer, run by pg_cron) removes rows, once past the retention the privacy
-- notice states (content/pages/privacy.md).
create table public.newsletter_consent_events (
  id bigint generated always as identity primary key,
  -- The newsletter_subscribers row it concerns; no foreign key: the record outlives the row (account deletion).
  subscriber_id uuid not null,
  kind text not null constraint newsletter_consent_events_kind check (kind in ('requested', 'confirmed', 'withdrawn')),
  -- How it came: the sign-up form (requested), the emailed link (confirmed, or withdrawn by a click), a mail
  -- client's RFC 8058 one-click POST (withdrawn), the subscriber row deleted while subscribed (withdrawn, e.g.
  -- with the account), or an earlier row's columns (backfill, below).
  via text not null
    constraint newsletter_consent_events_via check (via in ('form', 'link', 'one-click', 'deletion', 'backfill')),
  email text not null constraint newsletter_consent_events_email_length check (char_length(email) between 3 and 254),
  ip text constraint newsletter_consent_events_ip_length check (char_length(ip) <= 64),
  user_agent text constraint newsletter_consent_events_user_agent_length check (char_length(user_agent) <= 1000),
  consent_text_version text
    constraint newsletter_consent_events_consent_text_version_shape check (consent_text_version ~ '^[0-9a-f]{16}$'),
  created_at timestamptz not null default now()
);

create index newsletter_consent_events_subscriber on public.newsletter_consent_events (subscriber_id, id);

comment on table public.newsletter_consent_events is
  'Append-only record of newsletter consent: links mailed, confirmations, withdrawals. Never updated or deleted by the API';
comment on column public.newsletter_consent_events.consent_text_version is
  'Version of the card''s wording (supabase/functions/_shared/newsletter-consent.ts lists every published one)';

alter table public.newsletter_consent_events enable row level security;

-- No policy: anon and authenticated see and write nothing. service_role (the newsletter function) reads and
-- appends; Supabase's default privileges grant more on new tables, so take everything back first.
revoke all on table public.newsletter_consent_events from public, anon, authenticated, service_role;
grant select, insert on table public.newsletter_consent_events to service_role;

-- The API roles may only append, and at the database's time: an insert's created_at is now(), whatever the
-- caller sent. Another role (the table's owner: migrations, delete_expired_data, the SQL editor) is not refused.
create function private.newsletter_consent_events_append_only()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if current_user not in ('anon', 'authenticated', 'service_role', 'authenticator') then
    return case when tg_op = 'INSERT' then new else null end;
  end if;
  if tg_op = 'INSERT' then
    new.created_at := pg_catalog.now();
    return new;
  end if;
  raise exception 'newsletter_consent_events is append-only: % is not allowed', tg_op
    using errcode = '42501', hint = 'Consent events are kept as recorded until delete_expired_data() removes them.';
end;
$$;

revoke execute on function private.newsletter_consent_events_append_only() from public, anon, authenticated;

create trigger newsletter_consent_events_insert
  before insert on public.newsletter_consent_events
  for each row execute function private.newsletter_consent_events_append_only();

-- Statement triggers: they refuse even a statement that matches no row.
create trigger newsletter_consent_events_append_only
  before update or delete or truncate on public.newsletter_consent_events
  for each statement execute function private.newsletter_consent_events_append_only();

-- A subscriber row deleted while subscribed (account deletion deletes it) ends that consent: the record says so,
-- and keeps it as after an unsubscribe. Pending rows (never confirmed) and unsubscribed ones end nothing.
create function private.newsletter_subscriber_deleted()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  insert into public.newsletter_consent_events (subscriber_id, kind, via, email, consent_text_version)
  values (old.id, 'withdrawn', 'deletion', old.email, old.consent_text_version);
  return null;
end;
$$;

revoke execute on function private.newsletter_subscriber_deleted() from public, anon, authenticated;

create trigger newsletter_subscriber_deleted
  after delete on public.newsletter_subscribers
  for each row when (old.status = 'verified')
  execute function private.newsletter_subscriber_deleted();

-- Rows stored before this table: their columns become events, in the order they happened.
insert into public.newsletter_consent_events
  (subscriber_id, kind, via, email, ip, user_agent, consent_text_version, created_at)
select subscriber_id, kind, 'backfill', email, ip, user_agent, consent_text_version, at
  from (
    select id as subscriber_id, 'requested' as kind, email, ip, user_agent, consent_text_version,
           coalesce(consent_requested_at, created_at) as at, 1 as step
      from public.newsletter_subscribers
    union all
    select id, 'confirmed', email, null, null, consent_text_version, verified_at, 2
      from public.newsletter_subscribers where verified_at is not null
    union all
    select id, 'withdrawn', email, null, null, consent_text_version, unsubscribed_at, 3
      from public.newsletter_subscribers where status = 'unsubscribed' and unsubscribed_at is not null
  ) earlier
 order by at, step;

-- Deletes what is past its retention (content/pages/privacy.md states these periods):
--   contact messages                12 months after they were received
--   rate-limit counters             1 day after their window opened (no window is longer than an hour)
--   never-confirmed sign-ups        30 days after their confirmation link expired
--   unsubscribed addresses          2 years after unsubscribing (kept until then as the record of consent
--                                   and of its withdrawal); not while a new confirmation link of theirs works
--   consent events                  a mailed link that was neither confirmed nor withdrawn: 30 days after it
--                                   expired (31 days after it was mailed; links work 24 hours); every other
--                                   event 2 years after the withdrawal that ended its consent (the first
--                                   'withdrawn' at or after it); events of a current subscription stay
-- Returns how many rows of each went. Executable by service_role only (the local stack's timer calls it
-- through the API); on hosted Supabase pg_cron runs it daily (migration 20261124090000).
create or replace function public.delete_expired_data()
  returns jsonb
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  now_ts timestamptz := pg_catalog.now();
  contact integer;
  counters integer;
  pending integer;
  unsubscribed integer;
  events integer;
begin
  delete from public.contact_messages where created_at < now_ts - interval '12 months';
  get diagnostics contact = row_count;
  delete from private.rate_limit_hits where window_start < now_ts - interval '1 day';
  get diagnostics counters = row_count;
  delete from public.newsletter_subscribers
   where status = 'pending' and coalesce(verify_expires_at, created_at) < now_ts - interval '30 days';
  get diagnostics pending = row_count;
  delete from public.newsletter_subscribers
   where status = 'unsubscribed' and coalesce(unsubscribed_at, created_at) < now_ts - interval '2 years'
     and (verify_expires_at is null or verify_expires_at < now_ts);
  get diagnostics unsubscribed = row_count;
  with ordered as (
    select e.id, e.kind, e.created_at,
           pg_catalog.lead(e.kind) over (partition by e.subscriber_id order by e.id) as next_kind,
           (select w.created_at
              from public.newsletter_consent_events w
             where w.subscriber_id = e.subscriber_id and w.kind = 'withdrawn' and w.id >= e.id
             order by w.id
             limit 1) as ended_at
      from public.newsletter_consent_events e
  )
  delete from public.newsletter_consent_events d
   using ordered o
   where d.id = o.id
     and case
           when o.kind = 'requested' and o.next_kind is distinct from 'confirmed'
                and o.next_kind is distinct from 'withdrawn'
             then o.created_at < now_ts - interval '31 days'
           else o.ended_at < now_ts - interval '2 years'
         end;
  get diagnostics events = row_count;
  return pg_catalog.jsonb_build_object(
    'contact_messages', contact,
    'rate_limit_hits', counters,
    'newsletter_pending', pending,
    'newsletter_unsubscribed', unsubscribed,
    'newsletter_consent_events', events
  );
end;
$$;

revoke execute on function public.delete_expired_data() from public, anon, authenticated;
grant execute on function public.delete_expired_data() to service_role;
