-- Contact-form messages. Stored before the mail is attempted, so a message is never lost when mail fails;
-- the delivery columns record how sending went. Only the server side (service_role) reads or writes them.
create table public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  name text not null constraint contact_messages_name_length check (char_length(name) between 1 and 100),
  email text not null constraint contact_messages_email_length check (char_length(email) between 3 and 254),
  subject text not null constraint contact_messages_subject_length check (char_length(subject) between 1 and 200),
  message text not null constraint contact_messages_message_length check (char_length(message) between 1 and 5000),
  ip text constraint contact_messages_ip_length check (char_length(ip) <= 64),
  user_agent text constraint contact_messages_user_agent_length check (char_length(user_agent) <= 1000),
  created_at timestamptz not null default now(),
  delivery_status text not null default 'pending'
    constraint contact_messages_delivery_status check (delivery_status in ('pending', 'sent', 'failed')),
  delivery_error text,
  delivered_at timestamptz,
  attempts int not null default 0 constraint contact_messages_attempts check (attempts >= 0)
);

-- Finds the messages still to deliver, oldest first.
create index contact_messages_undelivered_idx on public.contact_messages (created_at)
  where delivery_status <> 'sent';

alter table public.contact_messages enable row level security;

revoke all on table public.contact_messages from anon, authenticated;
grant all on table public.contact_messages to service_role;
