-- Contact messages are retried on a schedule until they are delivered, whoever else writes.
--
-- A row is 'pending' (to send, from next_attempt_at on), 'sending' (claimed by one sender since
-- claimed_at), 'sent', or 'failed' (attempts used up: left for a person to look at). Senders claim rows
-- with public.claim_contact_message(), which moves one due row to 'sending' under FOR UPDATE SKIP LOCKED,
-- so two senders (isolates, a schedule and a visitor's request) never send the same row. A row left in
-- 'sending' longer than the lease (its sender died mid-send) is due again.
alter table public.contact_messages drop constraint contact_messages_delivery_status;
alter table public.contact_messages add constraint contact_messages_delivery_status
  check (delivery_status in ('pending', 'sending', 'sent', 'failed'));
alter table public.contact_messages add column next_attempt_at timestamptz not null default now();
alter table public.contact_messages add column claimed_at timestamptz;

-- Rows written before this migration as 'failed' were never given up on: they become due again.
update public.contact_messages set delivery_status = 'pending' where delivery_status = 'failed';

drop index if exists public.contact_messages_undelivered_idx;
create index contact_messages_due_idx on public.contact_messages (next_attempt_at)
  where delivery_status in ('pending', 'sending');

-- Claims the oldest due message for one send: 'sending', claimed now, one more attempt. Returns it, or no
-- row when nothing is due. `lease_seconds`: how long a claim holds before the row is due again.
create function public.claim_contact_message(lease_seconds integer default 300)
  returns setof public.contact_messages
  language sql
  volatile
  security definer
  set search_path = ''
as $$
  update public.contact_messages m
     set delivery_status = 'sending', claimed_at = pg_catalog.now(), attempts = m.attempts + 1
   where m.id = (
     select d.id
       from public.contact_messages d
      where (d.delivery_status = 'pending' and d.next_attempt_at <= pg_catalog.now())
         or (d.delivery_status = 'sending'
             and d.claimed_at < pg_catalog.now() - pg_catalog.make_interval(secs => greatest(lease_seconds, 1)))
      order by d.next_attempt_at, d.created_at
      limit 1
      for update skip locked
   )
  returning m.*;
$$;

-- Supabase grants EXECUTE on new functions in public to the API roles by default: take it back.
revoke execute on function public.claim_contact_message(integer) from public, anon, authenticated;
grant execute on function public.claim_contact_message(integer) to service_role;

-- On hosted Supabase, pg_cron calls the function's retry entry every minute through pg_net, with the
-- project URL and the service-role key read from Vault at run time (secrets `project_url` and
-- `service_role_key`, created once per project: see README "Contact mail retry"). Where the extensions
-- are missing (the local stack's PGlite, a plain PostgreSQL) nothing is scheduled: the local stack runs
-- the same retry on a timer instead.
do $outer$
begin
  if exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_cron')
     and exists (select 1 from pg_catalog.pg_available_extensions where name = 'pg_net') then
    begin
      create extension if not exists pg_cron;
      create extension if not exists pg_net with schema extensions;
      perform cron.schedule(
        'contact-mail-retry',
        '* * * * *',
        $job$
          select net.http_post(
            url := s.url || '/functions/v1/send-contact-email/retry',
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
        $job$
      );
    exception when others then
      -- pg_cron listed but not loaded (shared_preload_libraries), or no right to create it.
      raise notice 'contact mail retry not scheduled: %', sqlerrm;
    end;
  end if;
end
$outer$;
