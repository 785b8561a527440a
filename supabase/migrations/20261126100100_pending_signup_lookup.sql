-- user-signup removes an unconfirmed account before it signs the same address up afresh (the auth service would
-- keep the first registrant's password). The auth service's admin list cannot find that account reliably: its
-- filter also matches user_metadata.full_name, which any sign-up sets, and answers a page at a time, so enough
-- decoy sign-ups named after an address push the pending account off the page. This looks the address up
-- exactly, as GoTrue's own FindUserByEmailAndAudience does (lower(email), not SSO, the `authenticated`
-- audience), and answers the id of the account only while it is unconfirmed; the function then deletes it
-- through the admin API. Only service_role may call it: it tells whether an address has an account.
create function public.pending_signup_user_id(address text)
  returns uuid
  language sql
  stable
  security definer
  set search_path = ''
as $$
  select u.id
    from auth.users u
   where lower(u.email) = lower(pending_signup_user_id.address)
     and u.is_sso_user = false
     and u.aud = 'authenticated'
     and u.email_confirmed_at is null
   order by u.created_at
   limit 1;
$$;

-- Supabase grants EXECUTE on new functions in public to the API roles by default: take it back.
revoke execute on function public.pending_signup_user_id(text) from public, anon, authenticated;
grant execute on function public.pending_signup_user_id(text) to service_role;
