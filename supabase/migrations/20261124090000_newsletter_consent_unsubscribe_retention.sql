-- Newsletter: unsubscribing and the record of consent; retention of what the privacy notice says is kept
-- for a limited time.
--
-- A subscriber is 'pending' (a confirmation link is out), 'verified' (confirmed: mail may be sent) or
-- 'unsubscribed' (withdrew consent through the link in a mail: nothing more is sent). The row keeps how
-- consent was given: the version of the sign-up form's wording the person saw (consent_text_version, the
-- first 16 hex digits of the SHA-256 of that wording, sent by the form), when that form was sent
-- (consent_requested_at) and when the emailed link confirmed it (verified_at).
alter table public.newsletter_subscribers drop constraint if exists newsletter_subscribers_status_check;
alter table public.newsletter_subscribers
  add constraint newsletter_subscribers_status check (status in ('pending', 'verified', 'unsubscribed')),
  add column consent_text_version text
    constraint newsletter_subscribers_consent_text_version_shape check (consent_text_version ~ '^[0-9a-f]{16}$'),
  add column consent_requested_at timestamptz,
  add column unsubscribed_at timestamptz;

comment on column public.newsletter_subscribers.consent_text_version is
  'Version of the sign-up form''s wording the subscriber saw: first 16 hex digits of its SHA-256 (null: not sent by the form)';
comment on column public.newsletter_subscribers.consent_requested_at is
  'When the sign-up whose emailed link was confirmed was sent';
comment on column public.newsletter_subscribers.verified_at is
  'When the subscriber confirmed consent by opening the emailed link (double opt-in)';
comment on column public.newsletter_subscribers.unsubscribed_at is
  'When the subscriber withdrew consent through an unsubscribe link (status unsubscribed)';

-- Deletes what is past its retention (the privacy notice states these periods; content/pages/privacy.md):
--   contact messages                12 months after they were received
--   rate-limit counters             1 day after their window opened (no window is longer than an hour)
--   never-confirmed sign-ups        30 days after their confirmation link expired
--   unsubscribed addresses          2 years after unsubscribing (kept until then as the record of consent
--                                   and of its withdrawal)
-- Returns how many rows of each went. Executable by service_role only (the local stack's timer calls it
-- through the API); on hosted Supabase pg_cron runs it daily (below).
create function public.delete_expired_data()
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
begin
  delete from public.contact_messages where created_at < now_ts - interval '12 months';
  get diagnostics contact = row_count;
  delete from private.rate_limit_hits where window_start < now_ts - interval '1 day';
  get diagnostics counters = row_count;
  delete from public.newsletter_subscribers
   where status = 'pending' and coalesce(verify_expires_at, created_at) < now_ts - interval '30 days';
  get diagnostics pending = row_count;
  delete from public.newsletter_subscribers
   where status = 'unsubscribed' and coalesce(unsubscribed_at, created_at) < now_ts - interval '2 years';
  get diagnostics unsubscribed = row_count;
  return pg_catalog.jsonb_build_object(
    'contact_messages', contact,
    'rate_limit_hits', counters,
    'newsletter_pending', pending,
    'newsletter_unsubscribed', unsubscribed
  );
end;
$$;

-- Supabase grants EXECUTE on new functions in public to the API roles by default: take it back.
revoke execute on function public.delete_expired_data() from public, anon, authenticated;
grant execute on function public.delete_expired_data() to service_role;

-- On hosted Supabase pg_cron runs the deletion every day at 03:17 UTC, inside the database (no pg_net or
-- Vault needed). Where pg_cron is missing (the local stack's PGlite, a plain PostgreSQL) nothing is scheduled:
-- the local stack calls the function on a timer instead.
do $outer$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_cron') then
    begin
      create extension if not exists pg_cron;
      perform cron.schedule('delete-expired-data', '17 3 * * *', 'select public.delete_expired_data()');
    exception when others then
      -- pg_cron listed but not loaded (shared_preload_libraries), or no right to create it.
      raise notice 'data retention not scheduled: %', sqlerrm;
    end;
  end if;
end
$outer$;
