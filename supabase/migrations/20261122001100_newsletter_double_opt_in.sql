-- Double opt-in for newsletter sign-ups: a lookup key for case-insensitive addresses, when the last
-- verification mail went out (at most one per address per hour), lookups by token hash, and length checks.
alter table public.newsletter_subscribers
  add column email_key text generated always as (lower(email)) stored,
  add column verify_sent_at timestamptz,
  alter column created_at set not null,
  add constraint newsletter_subscribers_email_length check (char_length(email) between 3 and 254),
  add constraint newsletter_subscribers_ip_length check (char_length(ip) <= 64),
  add constraint newsletter_subscribers_user_agent_length check (char_length(user_agent) <= 1000),
  add constraint newsletter_subscribers_token_hash_shape check (verify_token_hash ~ '^[0-9a-f]{64}$');

-- A verification link finds its row by the SHA-256 of its token; the token itself is never stored.
create unique index newsletter_subscribers_token_key on public.newsletter_subscribers (verify_token_hash)
  where verify_token_hash is not null;
