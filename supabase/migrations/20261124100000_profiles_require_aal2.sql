-- Two-factor sign-in reaches the database: a member who has a verified factor reads or changes their
-- profile only with an aal2 session (password and code); a member without one keeps aal1 access.
-- Supabase's documented pattern is a RESTRICTIVE policy (AND-ed with the permissive ones) comparing the
-- token's `aal` with the member's verified factors in auth.mfa_factors. The `authenticated` role cannot read
-- auth.mfa_factors (hosted grants it only to postgres), so the documented inline subquery fails with
-- 42501; the lookup runs in a SECURITY DEFINER function, owned by the migration role, instead.
create schema if not exists private;
revoke all on schema private from public;

-- True when the calling member has at least one verified MFA factor.
create function private.member_has_verified_factor()
  returns boolean
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select exists (
    select 1 from auth.mfa_factors
     where user_id = (select auth.uid()) and status = 'verified'
  );
$$;

revoke all on function private.member_has_verified_factor() from public;
grant usage on schema private to authenticated;
grant execute on function private.member_has_verified_factor() to authenticated;

create policy "Members with two-factor need aal2"
  on public.profiles
  as restrictive
  to authenticated
  using ((select auth.jwt() ->> 'aal') = 'aal2' or not (select private.member_has_verified_factor()));
