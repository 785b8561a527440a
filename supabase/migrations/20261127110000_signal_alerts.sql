-- Email alerts members choose (docs/alerts.md): each member's preferences, and an outbox of one row per member and
-- ledger item that the signal-alerts function mails.
--
--   alert_preferences  one row per member who saved the Notification Preferences panel (or unsubscribed): email
--                      alerts on or off, which tiers, which events. No row: alerts are off.
--   alert_outbox       one row per member and ledger item (a new signal, a take-profit hit, a stop hit), unique,
--                      written by triggers on the ledger in the ingest's own transaction, claimed by the sender
--                      with FOR UPDATE SKIP LOCKED, retried with backoff until the mail is accepted.
--
-- Nothing here refers to the ledger from the ledger's side: deleting a member removes their preferences and
-- outbox rows (on delete cascade) and never touches signals or events.

create table public.alert_preferences (
  user_id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  email_enabled boolean not null default false,
  -- Which tiers' signals: any of foundation, growth, momentum (kept sorted, each once, by the trigger below).
  tiers text[] not null default array['foundation', 'growth', 'momentum']
    constraint alert_preferences_tiers check (tiers <@ array['foundation', 'growth', 'momentum']),
  -- Which events: new_signal (a signal issued), tp_hit (TP1, TP2 or TP3 hit), sl_hit (the stop hit).
  events text[] not null default array['new_signal', 'tp_hit', 'sl_hit']
    constraint alert_preferences_events check (events <@ array['new_signal', 'tp_hit', 'sl_hit']),
  updated_at timestamptz not null default now()
);

comment on table public.alert_preferences is
  'Email alert preferences per member (docs/alerts.md); no row means email alerts are off';

-- updated_at is the database's time of every write, whatever the client sent; tiers and events are stored sorted,
-- each once.
create function private.alert_preferences_touch()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.updated_at := pg_catalog.now();
  new.tiers := array(select distinct t from unnest(new.tiers) t order by t);
  new.events := array(select distinct e from unnest(new.events) e order by e);
  return new;
end;
$$;

revoke execute on function private.alert_preferences_touch() from public, anon, authenticated;

create trigger alert_preferences_touch
  before insert or update on public.alert_preferences
  for each row execute function private.alert_preferences_touch();

alter table public.alert_preferences enable row level security;

create policy "Members read their alert preferences" on public.alert_preferences
  for select to authenticated using (user_id = (select auth.uid()));
create policy "Members create their alert preferences" on public.alert_preferences
  for insert to authenticated with check (user_id = (select auth.uid()));
create policy "Members change their alert preferences" on public.alert_preferences
  for update to authenticated using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy "Members delete their alert preferences" on public.alert_preferences
  for delete to authenticated using (user_id = (select auth.uid()));
-- As profiles (20261124100000_profiles_require_aal2.sql): a member with a verified factor needs an aal2 session.
create policy "Members with two-factor need aal2 for alert preferences"
  on public.alert_preferences
  as restrictive
  to authenticated
  using ((select auth.jwt() ->> 'aal') = 'aal2' or not (select private.member_has_verified_factor()))
  with check ((select auth.jwt() ->> 'aal') = 'aal2' or not (select private.member_has_verified_factor()));

-- Supabase's default privileges grant more on new tables: take everything back, then give what the panel uses
-- (an upsert on user_id: insert, and update of the columns it sends) and what the functions use.
revoke all on table public.alert_preferences from public, anon, authenticated, service_role;
grant select, delete on table public.alert_preferences to authenticated;
grant insert (user_id, email_enabled, tiers, events) on table public.alert_preferences to authenticated;
grant update (user_id, email_enabled, tiers, events) on table public.alert_preferences to authenticated;
grant select, insert, update, delete on table public.alert_preferences to service_role;

create table public.alert_outbox (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null constraint alert_outbox_kind check (kind in ('new_signal', 'tp_hit', 'sl_hit')),
  -- The ledger item: the signal's id for new_signal, the event's id for tp_hit and sl_hit.
  ledger_id text not null,
  signal_id text not null references public.signals (id),
  event_id text references public.signal_events (id),
  -- The event's place in the ledger (signal_events.seq); null for new_signal.
  event_seq bigint,
  created_at timestamptz not null default now(),
  -- Mails tried so far (the sender writes it with each outcome); due again from next_attempt_at after a failure.
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- Set while one sender holds the row; a claim older than the lease is abandoned and the row is due again.
  claimed_at timestamptz,
  -- When the relay accepted the mail (sent_at - created_at is the alert's latency from the ledger).
  sent_at timestamptz,
  -- When the row was given up without a mail because the member no longer wants it (alerts turned off since).
  dropped_at timestamptz,
  last_error text,
  constraint alert_outbox_once unique (user_id, kind, ledger_id),
  constraint alert_outbox_event check ((kind = 'new_signal') = (event_id is null)),
  constraint alert_outbox_ledger_id check (ledger_id = coalesce(event_id, signal_id))
);

create index alert_outbox_due on public.alert_outbox (next_attempt_at, id) where sent_at is null and dropped_at is null;
create index alert_outbox_user on public.alert_outbox (user_id);

comment on table public.alert_outbox is
  'One alert mail per member and ledger item, sent by the signal-alerts function (docs/alerts.md)';

-- Only the functions (service_role) read and write it; members read nothing here (their export does).
alter table public.alert_outbox enable row level security;
revoke all on table public.alert_outbox from public, anon, authenticated, service_role;
grant select, delete on table public.alert_outbox to service_role;
grant update (attempts, claimed_at, next_attempt_at, sent_at, dropped_at, last_error) on table public.alert_outbox
  to service_role;

-- The members whose preferences take an alert of `alert_kind` for a signal of `signal_tier`: alerts on, the tier
-- and the event chosen, a confirmed address.
create function private.alert_recipients(signal_tier text, alert_kind text)
  returns setof uuid
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select p.user_id
    from public.alert_preferences p
    join auth.users u on u.id = p.user_id
   where p.email_enabled
     and signal_tier = any (p.tiers)
     and alert_kind = any (p.events)
     and u.email is not null
     and u.email_confirmed_at is not null
     and u.deleted_at is null;
$$;

-- After a signal is stored: one new_signal row per member who wants it. Never fails the ingest: an error here is
-- a warning in the database log and the signal is stored all the same.
create function private.alert_outbox_signal()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  begin
    insert into public.alert_outbox (user_id, kind, ledger_id, signal_id)
    select r, 'new_signal', new.id, new.id from private.alert_recipients(new.tier, 'new_signal') r
    on conflict on constraint alert_outbox_once do nothing;
  exception when others then
    raise warning 'signal alerts not queued for signal %: % (%)', new.id, sqlerrm, sqlstate;
  end;
  return null;
end;
$$;

-- After an event is stored: tp1_hit, tp2_hit and tp3_hit are tp_hit alerts, sl_hit an sl_hit alert; other events
-- send nothing. Never fails the ingest, as above.
create function private.alert_outbox_event()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  alert_kind text := case
    when new.kind in ('tp1_hit', 'tp2_hit', 'tp3_hit') then 'tp_hit'
    when new.kind = 'sl_hit' then 'sl_hit'
  end;
  signal_tier text;
begin
  if alert_kind is null then
    return null;
  end if;
  begin
    select s.tier into signal_tier from public.signals s where s.id = new.signal_id;
    insert into public.alert_outbox (user_id, kind, ledger_id, signal_id, event_id, event_seq)
    select r, alert_kind, new.id, new.signal_id, new.id, new.seq from private.alert_recipients(signal_tier, alert_kind) r
    on conflict on constraint alert_outbox_once do nothing;
  exception when others then
    raise warning 'signal alerts not queued for event %: % (%)', new.id, sqlerrm, sqlstate;
  end;
  return null;
end;
$$;

revoke execute on function private.alert_recipients(text, text) from public, anon, authenticated;
revoke execute on function private.alert_outbox_signal() from public, anon, authenticated;
revoke execute on function private.alert_outbox_event() from public, anon, authenticated;

-- Named to fire after the ledger's own after-insert triggers (signals_commit, signal_events_apply).
create trigger signals_queue_alerts
  after insert on public.signals
  for each row execute function private.alert_outbox_signal();

create trigger signal_events_queue_alerts
  after insert on public.signal_events
  for each row execute function private.alert_outbox_event();

-- Claims up to `batch_size` due rows for one sender (claimed now; `attempts` is the count of mails tried before) and
-- returns what their mails need: the member's current address, whether the member still wants the alert
-- (`wanted`: alerts on, tier and event still chosen), the signal's terms and the event. Due: not sent, not dropped, next_attempt_at passed,
-- and not held by another sender (FOR UPDATE SKIP LOCKED; a claim older than `lease_seconds` is abandoned).
create function public.claim_signal_alerts(batch_size integer default 50, lease_seconds integer default 300)
  returns table (
    id bigint,
    user_id uuid,
    email text,
    kind text,
    attempts integer,
    created_at timestamptz,
    wanted boolean,
    signal_id text,
    tier text,
    pair text,
    direction text,
    entry numeric,
    stop_loss numeric,
    current_stop numeric,
    tp1 numeric,
    tp2 numeric,
    tp3 numeric,
    timeframe text,
    issued_at timestamptz,
    event_kind text,
    event_price numeric,
    event_at timestamptz
  )
  language sql
  volatile
  security definer
  set search_path = ''
as $$
  with due as (
    select o.id
      from public.alert_outbox o
     where o.sent_at is null
       and o.dropped_at is null
       and o.next_attempt_at <= pg_catalog.now()
       and (o.claimed_at is null
            or o.claimed_at < pg_catalog.now() - pg_catalog.make_interval(secs => greatest(lease_seconds, 1)))
     order by o.next_attempt_at, o.id
     limit greatest(least(batch_size, 500), 1)
     for update skip locked
  ),
  claimed as (
    update public.alert_outbox o
       set claimed_at = pg_catalog.now()
      from due
     where o.id = due.id
    returning o.id, o.user_id, o.kind, o.attempts, o.created_at, o.next_attempt_at, o.signal_id, o.event_id
  )
  select c.id, c.user_id, u.email::text, c.kind, c.attempts, c.created_at,
         coalesce(p.email_enabled and s.tier = any (p.tiers) and c.kind = any (p.events)
                  and u.email_confirmed_at is not null and u.deleted_at is null, false),
         s.id, s.tier, s.pair, s.direction, s.entry, s.stop_loss, s.current_stop, s.tp1, s.tp2, s.tp3, s.timeframe,
         s.issued_at, e.kind, e.price, e.at
    from claimed c
    join public.signals s on s.id = c.signal_id
    left join auth.users u on u.id = c.user_id
    left join public.alert_preferences p on p.user_id = c.user_id
    left join public.signal_events e on e.id = c.event_id
   order by c.next_attempt_at, c.id;
$$;

revoke execute on function public.claim_signal_alerts(integer, integer) from public, anon, authenticated;
grant execute on function public.claim_signal_alerts(integer, integer) to service_role;

-- Retention: an alert that was sent, or dropped because the member no longer wanted it, is deleted 30 days after it
-- was queued (the member's export shows the last 30 days of alerts). A row not yet sent is never deleted: it is
-- still owed. Returns how many went. Executable by service_role only; pg_cron runs it daily (below), and the
-- local stack's scheduler runs the same SQL.
create function public.delete_expired_alerts()
  returns integer
  language plpgsql
  volatile
  security definer
  set search_path = ''
as $$
declare
  removed integer;
begin
  delete from public.alert_outbox
   where (sent_at is not null or dropped_at is not null)
     and created_at < pg_catalog.now() - interval '30 days';
  get diagnostics removed = row_count;
  return removed;
end;
$$;

revoke execute on function public.delete_expired_alerts() from public, anon, authenticated;
grant execute on function public.delete_expired_alerts() to service_role;

do $outer$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_cron') then
    begin
      create extension if not exists pg_cron;
      perform cron.schedule('delete-expired-alerts', '47 3 * * *', 'select public.delete_expired_alerts()');
    exception when others then
      raise notice 'alert retention not scheduled: %', sqlerrm;
    end;
  end if;
end
$outer$;

-- On hosted Supabase pg_cron looks every 10 seconds and, only when a row is due, calls the function's send entry
-- through pg_net with the project URL and the service-role key read from Vault (the secrets `project_url` and
-- `service_role_key` the contact mail retry uses), so an idle project costs one small query per tick and no
-- function call. Where the extensions are missing (PGlite, a plain PostgreSQL) nothing is scheduled here: the
-- local stack reads this cron.schedule call and POSTs the same entry on the same schedule.
do $outer$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_cron')
     and exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_net') then
    begin
      create extension if not exists pg_cron;
      create extension if not exists pg_net with schema extensions;
      perform cron.schedule(
        'signal-alerts',
        '10 seconds',
        $job$
          select net.http_post(
            url := s.url || '/functions/v1/signal-alerts/send',
            headers := pg_catalog.jsonb_build_object(
              'Content-Type', 'application/json',
              'Authorization', 'Bearer ' || s.key
            ),
            body := '{}'::jsonb,
            timeout_milliseconds := 60000
          )
          from (
            select (select decrypted_secret from vault.decrypted_secrets where name = 'project_url') as url,
                   (select decrypted_secret from vault.decrypted_secrets where name = 'service_role_key') as key
          ) s
          where s.url is not null and s.key is not null
            and exists (
              select 1 from public.alert_outbox o
               where o.sent_at is null and o.dropped_at is null and o.next_attempt_at <= pg_catalog.now()
            )
        $job$
      );
    exception when others then
      -- pg_cron listed but not loaded (shared_preload_libraries), or no right to create it.
      raise notice 'signal alerts not scheduled: %', sqlerrm;
    end;
  end if;
end
$outer$;
