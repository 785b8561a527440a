-- Newsletter sign-ups. Only the server side (service_role) reads or writes them.
create table public.newsletter_subscribers (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  status text not null default 'pending' check (status in ('pending', 'verified')),
  verify_token_hash text,
  verify_expires_at timestamptz,
  ip text,
  user_agent text,
  created_at timestamptz default now(),
  verified_at timestamptz
);

create unique index newsletter_subscribers_email_key on public.newsletter_subscribers (lower(email));

alter table public.newsletter_subscribers enable row level security;

revoke all on table public.newsletter_subscribers from anon, authenticated;
grant all on table public.newsletter_subscribers to service_role;
