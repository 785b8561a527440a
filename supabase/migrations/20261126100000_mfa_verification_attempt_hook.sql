-- Guessing two-factor codes: hosted Supabase Auth limits verifications per client address only (15 a minute)
-- and lets one challenge take any number of wrong codes. This is the MFA verification attempt hook
-- (config.toml [auth.hook.mfa_verification_attempt]), a Postgres function Supabase Auth calls on every code
-- a member sends, right or wrong: after 10 wrong codes in a row for one factor, within 5 minutes of each
-- other, every code for that factor (the right one included) is refused for 5 minutes after the last wrong
-- one, whatever address sends it. A right code before that starts the count again.
--
-- The refusal is the hook's error answer, 429 with the message below: the member's sessions stay (the
-- hook's other answer, "reject", would sign the member out everywhere, a lever for anyone with the password).
-- Supabase Auth runs the function as supabase_auth_admin in a transaction of its own, with a 2-second
-- statement timeout. The counters live in schema `private`, which the API does not expose.
create schema if not exists private;
revoke all on schema private from public;

create table private.mfa_failed_verification_attempts (
  factor_id uuid primary key,
  user_id uuid not null,
  failed_attempts integer not null default 0,
  last_failed_at timestamptz
);

revoke all on table private.mfa_failed_verification_attempts from public, anon, authenticated, service_role;

create function public.hook_mfa_verification_attempt(event jsonb)
  returns jsonb
  language plpgsql
  volatile
  set search_path = ''
as $$
declare
  max_failures constant integer := 10;
  lock_span constant interval := interval '5 minutes';
  now_ts timestamptz := pg_catalog.clock_timestamp();
  factor uuid := (event ->> 'factor_id')::uuid;
  counted private.mfa_failed_verification_attempts;
begin
  if factor is null or (event ->> 'user_id') is null then
    return pg_catalog.jsonb_build_object(
      'error', pg_catalog.jsonb_build_object('http_code', 500, 'message', 'MFA hook: factor_id and user_id missing'));
  end if;

  -- One row per factor, locked for the rest of the call: parallel codes for one factor take turns, so no
  -- wrong code escapes the count.
  insert into private.mfa_failed_verification_attempts (factor_id, user_id)
  values (factor, (event ->> 'user_id')::uuid)
  on conflict (factor_id) do nothing;
  select * into counted from private.mfa_failed_verification_attempts a where a.factor_id = factor for update;

  if counted.failed_attempts >= max_failures and counted.last_failed_at > now_ts - lock_span then
    return pg_catalog.jsonb_build_object(
      'error', pg_catalog.jsonb_build_object(
        'http_code', 429,
        'message', 'Too many wrong codes for this factor, try again in a few minutes'));
  end if;

  if coalesce((event ->> 'valid')::boolean, false) then
    delete from private.mfa_failed_verification_attempts a where a.factor_id = factor;
  else
    update private.mfa_failed_verification_attempts a
       set failed_attempts = case when a.last_failed_at > now_ts - lock_span then a.failed_attempts + 1 else 1 end,
           last_failed_at = now_ts
     where a.factor_id = factor;
  end if;

  -- Counts nobody added to for a day have run out: they go (skipping rows another call holds), so the table
  -- holds only live ones.
  delete from private.mfa_failed_verification_attempts a
   where a.factor_id in (
     select o.factor_id from private.mfa_failed_verification_attempts o
      where o.last_failed_at < now_ts - interval '1 day' and o.factor_id <> factor
      limit 100 for update skip locked);

  return pg_catalog.jsonb_build_object('decision', 'continue');
end;
$$;

-- Supabase's hook grants: only supabase_auth_admin may call the function and touch its table; Supabase grants
-- EXECUTE on new functions in public to the API roles by default, so take it back.
revoke execute on function public.hook_mfa_verification_attempt(jsonb) from public, anon, authenticated, service_role;
grant usage on schema public to supabase_auth_admin;
grant usage on schema private to supabase_auth_admin;
grant execute on function public.hook_mfa_verification_attempt(jsonb) to supabase_auth_admin;
grant select, insert, update, delete on table private.mfa_failed_verification_attempts to supabase_auth_admin;
