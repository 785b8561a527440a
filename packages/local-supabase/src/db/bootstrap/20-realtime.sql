-- Supabase Realtime's broadcast objects, as its tenant migrations leave them (supabase/realtime
-- lib/realtime/tenants/repo/migrations): realtime.messages with RLS (its policies authorize private
-- channels, evaluated with realtime.topic() set to the channel's topic), realtime.topic(), realtime.send(),
-- realtime.send_binary() and realtime.broadcast_changes(). Differences, all invisible to SQL that uses them:
-- the table is not partitioned by day (hosted drops partitions older than three days; the stack deletes
-- such rows at start), its owner is the stack's user rather than supabase_realtime_admin, a trigger of the
-- stack's own tells the stack about each committed row (hosted reads them through logical replication), and
-- another keeps private broadcasts' inserted_at distinct on PGlite's millisecond clock (see the end).
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  constraint messages_pkey primary key (id, inserted_at),
  constraint messages_payload_exclusive check (payload is null or binary_payload is null)
);
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

delete from realtime.messages where inserted_at < now() - interval '3 days';

create or replace function realtime.topic() returns text
  language sql stable
  as $$
    select nullif(current_setting('realtime.topic', true), '')::text;
  $$;

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
  returns void
  language plpgsql
  as $$
  declare
    generated_id uuid;
    final_payload jsonb;
  begin
    begin
      generated_id := gen_random_uuid();

      -- Check if payload has an 'id' key, if not, add the generated UUID
      if payload ? 'id' then
        final_payload := payload;
      else
        final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
      end if;

      -- Set the topic configuration
      execute format('SET LOCAL realtime.topic TO %L', topic);

      insert into realtime.messages (id, payload, event, topic, private, extension)
      values (generated_id, final_payload, event, topic, private, 'broadcast');
    exception
      when others then
        raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
    end;
  end;
  $$;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
  returns void
  language plpgsql
  as $$
  declare
    generated_id uuid;
  begin
    begin
      generated_id := gen_random_uuid();

      execute format('SET LOCAL realtime.topic TO %L', topic);

      insert into realtime.messages (id, binary_payload, event, topic, private, extension)
      values (generated_id, payload, event, topic, private, 'broadcast');
    exception
      when others then
        raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
    end;
  end;
  $$;

create or replace function realtime.broadcast_changes(
  topic_name text,
  event_name text,
  operation text,
  table_name text,
  table_schema text,
  new record,
  old record,
  level text default 'ROW'
) returns void
  language plpgsql
  as $$
  declare
    -- Declare a variable to hold the JSONB representation of the row
    row_data jsonb := '{}'::jsonb;
  begin
    if level = 'STATEMENT' then
      raise exception 'function can only be triggered for each row, not for each statement';
    end if;
    -- Check the operation type and handle accordingly
    if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
      row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation, 'table', table_name, 'schema', table_schema);
      perform realtime.send(row_data, event_name, topic_name);
    else
      raise exception 'Unexpected operation type: %', operation;
    end if;
  exception
    when others then
      raise exception 'Failed to process the row: %', sqlerrm;
  end;
  $$;

-- The stack's own: each broadcast row, once committed, reaches the stack as a notification on
-- `realtime_local_messages` (delivered only at commit, never after a rollback). The row itself when it fits
-- NOTIFY's 8000 bytes, else its id and inserted_at, for the stack to read it.
create or replace function realtime.local_stack_notify() returns trigger
  language plpgsql
  as $$
  declare
    body text;
  begin
    if new.extension <> 'broadcast' then
      return null;
    end if;
    if new.binary_payload is null then
      body := json_build_object(
        'id', new.id, 'topic', new.topic, 'event', new.event, 'private', coalesce(new.private, false),
        'payload', new.payload
      )::text;
    end if;
    if body is null or octet_length(body) > 7900 then
      body := json_build_object('id', new.id, 'inserted_at', new.inserted_at)::text;
    end if;
    perform pg_notify('realtime_local_messages', body);
    return null;
  end;
  $$;

create or replace trigger local_stack_notify
  after insert on realtime.messages
  for each row execute function realtime.local_stack_notify();

-- The stack's own: PGlite's clock ticks in milliseconds where hosted PostgreSQL's ticks in microseconds, so
-- two sends within one millisecond could share an inserted_at, and replay (newest first by inserted_at) would
-- return them in either order. A private broadcast row stamped within the millisecond up to the newest one
-- stored is stamped a microsecond after it instead: sends are replayed in the order sent, as on hosted.
create or replace function realtime.local_stack_distinct_time() returns trigger
  language plpgsql
  as $$
  declare
    newest timestamp;
  begin
    if new.extension = 'broadcast' and new.private is true then
      select max(inserted_at) into newest from realtime.messages
        where extension = 'broadcast' and private is true;
      if newest is not null and new.inserted_at <= newest and newest < new.inserted_at + interval '1 millisecond' then
        new.inserted_at := newest + interval '1 microsecond';
      end if;
    end if;
    return new;
  end;
  $$;

create or replace trigger local_stack_distinct_time
  before insert on realtime.messages
  for each row execute function realtime.local_stack_distinct_time();
