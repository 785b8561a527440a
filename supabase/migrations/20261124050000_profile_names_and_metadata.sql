-- Names and user metadata within bounds, whatever the client (the forms and user-signup check them too, but
-- anyone holding the public key can call the auth service and REST directly).
--
-- Profile names: 1 to 100 characters, no control characters, as the sign-up form allows them, or none
-- (NULL; an empty name is stored as NULL). A member's REST update that breaks this is refused (PostgREST:
-- 400, code 23514) and changes nothing.

-- A name as the forms clean it: runs of whitespace (newlines included) made one space, other control
-- characters removed, trimmed, at most 100 characters; nothing left is NULL.
create function private.profile_name(raw text)
  returns text
  language sql
  immutable
  set search_path = ''
as $$
  select nullif(btrim(left(btrim(regexp_replace(regexp_replace(raw, '\s+', ' ', 'g'), '[[:cntrl:]]', '', 'g')), 100)), '')
$$;

revoke execute on function private.profile_name(text) from public, anon, authenticated;

-- Rows from before this migration are brought within the rule first.
update public.profiles
   set first_name = private.profile_name(first_name),
       last_name = private.profile_name(last_name)
 where first_name is distinct from private.profile_name(first_name)
    or last_name is distinct from private.profile_name(last_name);

-- A blank name is no name: Settings saves a cleared field as '' (names are trimmed, nothing else), which is
-- stored as NULL, so that the rule below needs no exception for it.
create function private.profile_blank_names_to_null()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.first_name := nullif(new.first_name, '');
  new.last_name := nullif(new.last_name, '');
  return new;
end;
$$;

revoke execute on function private.profile_blank_names_to_null() from public, anon, authenticated;

create trigger profile_blank_names_to_null
  before insert or update of first_name, last_name on public.profiles
  for each row execute function private.profile_blank_names_to_null();

alter table public.profiles
  add constraint profiles_first_name_check
    check (char_length(first_name) between 1 and 100 and first_name !~ '[[:cntrl:]]'),
  add constraint profiles_last_name_check
    check (char_length(last_name) between 1 and 100 and last_name !~ '[[:cntrl:]]');

-- The profile copies the names from the sign-up's metadata, cleaned: a direct sign-up with odd names still
-- gets an account, and its profile holds names within the rule.
create or replace function public.handle_new_user()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  insert into public.profiles (user_id, first_name, last_name, email, email_verified)
  values (
    new.id,
    private.profile_name(new.raw_user_meta_data ->> 'first_name'),
    private.profile_name(new.raw_user_meta_data ->> 'last_name'),
    new.email,
    new.email_confirmed_at is not null
  );
  return new;
end;
$$;

-- User metadata: at most 4096 bytes as JSON text. It is copied into every access token, so a large one
-- makes each request of that member heavy (and can break it at header limits). The site stores two names
-- (at most a few hundred bytes). The auth service writes auth.users, so the limit holds for every path:
-- sign-up, the member's own update, the admin API. Hosted GoTrue answers a refused write with 500
-- ("Database error saving new user" / "... updating user") and keeps nothing; the local stack checks the
-- same limit before writing and answers 400.
create function private.check_user_metadata_size()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if octet_length(coalesce(new.raw_user_meta_data, '{}'::jsonb)::text) > 4096 then
    raise exception 'User metadata is too large: at most 4096 bytes'
      using errcode = 'PT400', hint = 'Keep user_metadata to a few small fields.';
  end if;
  return new;
end;
$$;

revoke execute on function private.check_user_metadata_size() from public, anon, authenticated;

create trigger limit_user_metadata_size
  before insert or update of raw_user_meta_data on auth.users
  for each row execute function private.check_user_metadata_size();
