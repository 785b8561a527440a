-- What Supabase itself provides before any project migration runs: roles, schemas and grants.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'supabase_auth_admin') then
    create role supabase_auth_admin nologin noinherit createrole;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;

-- REST's login on PostgreSQL, as PostgREST's: it can become only the three API roles (noinherit: nothing of
-- theirs until it does), never the superuser. The statement time limits hosted Supabase sets: anon 3 s,
-- authenticated 8 s, and authenticator's 8 s for what sets none (service_role). REST applies the
-- impersonated role's value per request, as PostgREST does. Changed only when different: several stacks
-- may share one PostgreSQL, and role rows are the cluster's.
do $$
declare
  wanted constant text[][] := array[['anon', '3s'], ['authenticated', '8s'], ['authenticator', '8s']];
  i int;
begin
  if not (select rolcanlogin from pg_roles where rolname = 'authenticator') then
    alter role authenticator login;
  end if;
  for i in 1 .. array_length(wanted, 1) loop
    if not exists (
      select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
       where r.rolname = wanted[i][1] and s.setdatabase = 0
         and ('statement_timeout=' || wanted[i][2]) = any (s.setconfig)
    ) then
      execute format('alter role %I set statement_timeout = %L', wanted[i][1], wanted[i][2]);
    end if;
  end loop;
end
$$;

create schema if not exists auth;
create schema if not exists extensions;
create schema if not exists supabase_migrations;

grant usage on schema public to anon, authenticated, service_role;
grant usage on schema auth to anon, authenticated, service_role;
grant usage on schema extensions to anon, authenticated, service_role;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

-- The JWT helpers, as GoTrue's migrations define them.
create or replace function auth.uid() returns uuid
  language sql stable
  as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.sub', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
  $$;

create or replace function auth.role() returns text
  language sql stable
  as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.role', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
  $$;

create or replace function auth.email() returns text
  language sql stable
  as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.email', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
    )::text
  $$;

create or replace function auth.jwt() returns jsonb
  language sql stable
  as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim', true), ''),
      nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
  $$;

grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt() to anon, authenticated, service_role;
