-- The signals ledger (docs/ledger.md): the signals the engine issues, the events that move them, and a chain of
-- commitments that lets anyone check that no signal was changed, added late or removed after the fact.
--
--   signals             one row per signal: its terms (written once) and its status (moved by events only)
--   signal_events       append-only: take-profits hit, stop hit, stop moved, closed, expired, cancelled
--   signal_commitments  one row per signal, written by the insert itself: seq 1, 2, 3..., the SHA-256 of the
--                       signal's canonical JSON and of the previous commitment (a hash chain)
--
-- Nothing rewrites history: triggers refuse UPDATE, DELETE and TRUNCATE of terms, events and commitments to every
-- role, the table owner and service_role included; only the event trigger moves a signal's status columns. No
-- foreign key reaches auth.users, so deleting a member's account never touches the ledger. The ingest function
-- (supabase/functions/signals-ingest) writes through ingest_signal() and ingest_signal_event(), as service_role.

create table public.signals (
  -- The engine's id: letters, digits and . _ : - (at most 64), so it is safe in a URL, a CSV and a log line.
  id text primary key constraint signals_id_shape check (id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$'),
  tier text not null constraint signals_tier check (tier in ('foundation', 'growth', 'momentum')),
  -- As the site writes pairs: base and quote currency, upper case, a slash between ('EUR/USD', 'XAU/USD').
  pair text not null
    constraint signals_pair_shape check (pair ~ '^[A-Z]{3}/[A-Z]{3}$' and left(pair, 3) <> right(pair, 3)),
  direction text not null constraint signals_direction check (direction in ('BUY', 'SELL')),
  entry numeric not null,
  stop_loss numeric not null,
  tp1 numeric not null,
  tp2 numeric not null,
  tp3 numeric not null,
  timeframe text not null constraint signals_timeframe check (timeframe in ('M5', 'M15', 'M30', 'H1', 'H4', 'D1')),
  -- Reward to risk at TP1: |tp1 - entry| / |entry - stop_loss|, rounded to 2 decimals.
  risk_reward numeric generated always as (round(abs(tp1 - entry) / nullif(abs(entry - stop_loss), 0), 2)) stored,
  -- The engine's time of issue, to the millisecond (the canonical JSON's precision).
  issued_at timestamptz not null
    constraint signals_issued_at_milliseconds check (issued_at = date_trunc('milliseconds', issued_at)),
  received_at timestamptz not null default now(),
  -- Moved by signal_events only (signal_event_apply below).
  status text not null default 'active' constraint signals_status check (
    status in ('active', 'tp1_hit', 'tp2_hit', 'tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled')
  ),
  -- The stop in force: stop_loss until a stop_moved event moves it.
  current_stop numeric not null,
  closed_at timestamptz,
  exit_price numeric,
  -- Prices: positive, below a million, at most 6 decimals (so a JSON number carries them exactly).
  constraint signals_prices check (
    entry > 0 and stop_loss > 0 and tp1 > 0 and tp2 > 0 and tp3 > 0
    and greatest(entry, stop_loss, tp1, tp2, tp3) < 1000000
    and scale(trim_scale(entry)) <= 6 and scale(trim_scale(stop_loss)) <= 6 and scale(trim_scale(tp1)) <= 6
    and scale(trim_scale(tp2)) <= 6 and scale(trim_scale(tp3)) <= 6
  ),
  -- A BUY's stop is below entry and its targets above, in order; a SELL's the other way round.
  constraint signals_levels check (
    (direction = 'BUY' and stop_loss < entry and entry < tp1 and tp1 < tp2 and tp2 < tp3)
    or (direction = 'SELL' and stop_loss > entry and entry > tp1 and tp1 > tp2 and tp2 > tp3)
  ),
  constraint signals_closed check (
    (closed_at is not null) = (status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled'))
  )
);

create index signals_status_issued on public.signals (status, issued_at desc);

comment on table public.signals is
  'Signals as issued by the engine. Terms are never changed; status moves by signal_events only (docs/ledger.md)';

create table public.signal_events (
  -- The engine's id of the event, same shape as a signal's.
  id text primary key constraint signal_events_id_shape check (id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$'),
  signal_id text not null references public.signals (id),
  kind text not null constraint signal_events_kind check (
    kind in ('tp1_hit', 'tp2_hit', 'tp3_hit', 'sl_hit', 'stop_moved', 'closed', 'expired', 'cancelled')
  ),
  -- The market price at the event: required when it fixes a result (take-profit, stop, manual close).
  price numeric constraint signal_events_price check (price > 0 and price < 1000000 and scale(trim_scale(price)) <= 6),
  -- The new stop of a stop_moved event (and only of one).
  stop_loss numeric
    constraint signal_events_stop_loss check (stop_loss > 0 and stop_loss < 1000000 and scale(trim_scale(stop_loss)) <= 6),
  at timestamptz not null constraint signal_events_at_milliseconds check (at = date_trunc('milliseconds', at)),
  received_at timestamptz not null default now(),
  -- The order the ledger accepted events in (gaps possible: a refused insert uses a number).
  seq bigint generated always as identity unique,
  constraint signal_events_price_required check (price is not null or kind in ('stop_moved', 'expired', 'cancelled')),
  constraint signal_events_stop_loss_only_moves check ((stop_loss is not null) = (kind = 'stop_moved'))
);

create index signal_events_signal on public.signal_events (signal_id, seq);

comment on table public.signal_events is 'Append-only events of signals: never updated or deleted (docs/ledger.md)';

create table public.signal_commitments (
  -- 1, 2, 3... without gaps: taken under a transaction-level advisory lock by the signal's insert.
  seq bigint primary key constraint signal_commitments_seq check (seq > 0),
  signal_id text not null unique references public.signals (id),
  committed_at timestamptz not null default now(),
  -- Hex SHA-256 of the UTF-8 bytes of signal_canonical_json(signal).
  content_hash text not null constraint signal_commitments_content_hash check (content_hash ~ '^[0-9a-f]{64}$'),
  -- The previous commitment's hash; 64 zeros for seq 1.
  prev_hash text not null constraint signal_commitments_prev_hash check (prev_hash ~ '^[0-9a-f]{64}$'),
  -- Hex SHA-256 of the UTF-8 bytes of '<seq>:<prev_hash>:<content_hash>' (seq in decimal).
  hash text not null unique constraint signal_commitments_hash check (hash ~ '^[0-9a-f]{64}$')
);

comment on table public.signal_commitments is
  'Hash chain over the signals, one entry per signal at its issue; public to all (docs/ledger.md)';

-- The canonical JSON of a signal, the exact text its commitment hashes (docs/ledger.md): keys in this order, no
-- whitespace, strings as JSON strings, prices as JSON numbers written as trim_scale(x)::text (no trailing zeros),
-- issued_at as UTC ISO-8601 with milliseconds and 'Z':
-- {"id":"s-1","tier":"growth","pair":"EUR/USD","direction":"BUY","entry":1.085,"stop_loss":1.08,
--  "take_profit":[1.09,1.095,1.1],"timeframe":"H1","issued_at":"2026-11-26T10:00:00.000Z"}
create function public.signal_canonical_json(s public.signals)
  returns text
  language sql
  immutable
  set search_path = ''
as $$
  select '{"id":' || to_json(s.id)::text
    || ',"tier":' || to_json(s.tier)::text
    || ',"pair":' || to_json(s.pair)::text
    || ',"direction":' || to_json(s.direction)::text
    || ',"entry":' || trim_scale(s.entry)::text
    || ',"stop_loss":' || trim_scale(s.stop_loss)::text
    || ',"take_profit":[' || trim_scale(s.tp1)::text || ',' || trim_scale(s.tp2)::text || ','
    || trim_scale(s.tp3)::text || ']'
    || ',"timeframe":' || to_json(s.timeframe)::text
    || ',"issued_at":"' || to_char(s.issued_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}';
$$;

revoke execute on function public.signal_canonical_json(public.signals) from public, anon, authenticated;
grant execute on function public.signal_canonical_json(public.signals) to service_role;

-- A signal's insert writes its commitment in the same transaction: a signal never exists without one, and the
-- advisory lock makes concurrent inserts take seq one after another (a rolled-back insert takes none).
create function private.signal_commit()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  last_seq bigint;
  last_hash text;
  content text;
begin
  perform pg_catalog.pg_advisory_xact_lock(hashtext('public.signal_commitments'));
  select c.seq, c.hash into last_seq, last_hash
    from public.signal_commitments c order by c.seq desc limit 1;
  last_seq := coalesce(last_seq, 0);
  last_hash := coalesce(last_hash, repeat('0', 64));
  content := encode(sha256(convert_to(public.signal_canonical_json(new), 'UTF8')), 'hex');
  perform pg_catalog.set_config('ledger.committing', 'on', true);
  insert into public.signal_commitments (seq, signal_id, committed_at, content_hash, prev_hash, hash)
  values (
    last_seq + 1, new.id, now(), content, last_hash,
    encode(sha256(convert_to((last_seq + 1)::text || ':' || last_hash || ':' || content, 'UTF8')), 'hex')
  );
  perform pg_catalog.set_config('ledger.committing', '', true);
  return null;
end;
$$;

-- Before insert: the server's clocks and the starting state, whatever the caller sent.
create function private.signal_insert_defaults()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.received_at := now();
  new.status := 'active';
  new.current_stop := new.stop_loss;
  new.closed_at := null;
  new.exit_price := null;
  return new;
end;
$$;

-- Applies an event to its signal, after checking that it may happen: the status only moves forward
-- (active -> tp1_hit -> tp2_hit -> tp3_hit; sl_hit, closed, expired, cancelled from any open state), stop_moved
-- keeps the status and sets current_stop, and nothing follows a final state. Refusals are check_violation with
-- the payload field in COLUMN, which ingest_signal_event() answers with.
create function private.signal_event_apply()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
declare
  s public.signals;
  rank_of constant jsonb := '{"active":0,"tp1_hit":1,"tp2_hit":2,"tp3_hit":3}';
begin
  select * into s from public.signals where id = new.signal_id for update;
  if not found then
    raise exception 'No signal has the id %.', new.signal_id using errcode = '23514', column = 'signal_id';
  end if;
  if s.status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled') then
    raise exception 'Signal % is already %: no event may follow.', s.id, s.status
      using errcode = '23514', column = 'signal_id';
  end if;
  if new.at < s.issued_at then
    raise exception 'The event is dated before its signal was issued.' using errcode = '23514', column = 'at';
  end if;
  if new.kind in ('tp1_hit', 'tp2_hit', 'tp3_hit') and (rank_of ->> new.kind)::int <= (rank_of ->> s.status)::int then
    raise exception 'Signal % is %: % would move it backwards.', s.id, s.status, new.kind
      using errcode = '23514', column = 'kind';
  end if;
  perform pg_catalog.set_config('ledger.applying_event', 'on', true);
  if new.kind = 'stop_moved' then
    update public.signals set current_stop = new.stop_loss where id = s.id;
  else
    update public.signals
       set status = new.kind,
           closed_at = case when new.kind in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled') then new.at end,
           exit_price = case when new.kind in ('tp3_hit', 'sl_hit', 'closed') then new.price end
     where id = s.id;
  end if;
  perform pg_catalog.set_config('ledger.applying_event', '', true);
  return null;
end;
$$;

-- Refuses every change of history. A signal's status columns change only inside signal_event_apply (a nested
-- trigger that set ledger.applying_event), and never its terms; events and commitments never change, and a
-- commitment is written only by its signal's insert. The owner and service_role are refused as well as anyone
-- else (only a superuser disabling the triggers gets past).
create function private.ledger_refuse_rewrite()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  raise exception 'The signals ledger is append-only: % on % is not allowed', tg_op, tg_table_name
    using errcode = '42501', hint = 'Signals change by their events only; events and commitments never change.';
end;
$$;

create function private.signal_update_guard()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if pg_catalog.pg_trigger_depth() > 1
     and coalesce(pg_catalog.current_setting('ledger.applying_event', true), '') = 'on'
     and (new.id, new.tier, new.pair, new.direction, new.entry, new.stop_loss, new.tp1, new.tp2, new.tp3,
          new.timeframe, new.issued_at, new.received_at)
         is not distinct from
         (old.id, old.tier, old.pair, old.direction, old.entry, old.stop_loss, old.tp1, old.tp2, old.tp3,
          old.timeframe, old.issued_at, old.received_at) then
    return new;
  end if;
  raise exception 'The signals ledger is append-only: % on signals is not allowed', tg_op
    using errcode = '42501', hint = 'Signals change by their events only; events and commitments never change.';
end;
$$;

create function private.signal_commitment_insert_guard()
  returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  if pg_catalog.pg_trigger_depth() > 1
     and coalesce(pg_catalog.current_setting('ledger.committing', true), '') = 'on' then
    return new;
  end if;
  raise exception 'signal_commitments are written by the insert of their signal only' using errcode = '42501';
end;
$$;

revoke execute on function private.signal_commit() from public, anon, authenticated;
revoke execute on function private.signal_insert_defaults() from public, anon, authenticated;
revoke execute on function private.signal_event_apply() from public, anon, authenticated;
revoke execute on function private.ledger_refuse_rewrite() from public, anon, authenticated;
revoke execute on function private.signal_update_guard() from public, anon, authenticated;
revoke execute on function private.signal_commitment_insert_guard() from public, anon, authenticated;

create trigger signals_insert_defaults
  before insert on public.signals
  for each row execute function private.signal_insert_defaults();

create trigger signals_commit
  after insert on public.signals
  for each row execute function private.signal_commit();

create trigger signals_update_guard
  before update on public.signals
  for each row execute function private.signal_update_guard();

create trigger signal_events_apply
  after insert on public.signal_events
  for each row execute function private.signal_event_apply();

create trigger signal_commitments_insert_guard
  before insert on public.signal_commitments
  for each row execute function private.signal_commitment_insert_guard();

-- Statement triggers on events and commitments refuse even a statement that matches no row; TRUNCATE everywhere.
create trigger signal_events_refuse_rewrite
  before update or delete or truncate on public.signal_events
  for each statement execute function private.ledger_refuse_rewrite();

create trigger signal_commitments_refuse_rewrite
  before update or delete or truncate on public.signal_commitments
  for each statement execute function private.ledger_refuse_rewrite();

create trigger signals_refuse_delete
  before delete or truncate on public.signals
  for each statement execute function private.ledger_refuse_rewrite();

-- Who reads what. Members (at the assurance level their factors require, as profiles) read every signal and
-- event; visitors read signals in a final state and their events; everyone reads the commitments.
alter table public.signals enable row level security;
alter table public.signal_events enable row level security;
alter table public.signal_commitments enable row level security;

create policy "Members read signals" on public.signals for select to authenticated using (true);
create policy "Visitors read final signals" on public.signals for select to anon
  using (status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled'));
-- A member with two-factor on and an aal1 session sees what a visitor sees.
create policy "Members with two-factor need aal2 for open signals"
  on public.signals
  as restrictive
  for select
  to authenticated
  using (
    status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled')
    or (select auth.jwt() ->> 'aal') = 'aal2'
    or not (select private.member_has_verified_factor())
  );

create policy "Members read signal events" on public.signal_events for select to authenticated using (true);
create policy "Visitors read events of final signals" on public.signal_events for select to anon
  using (exists (select 1 from public.signals s where s.id = signal_id));
create policy "Members with two-factor need aal2 for events of open signals"
  on public.signal_events
  as restrictive
  for select
  to authenticated
  using (exists (select 1 from public.signals s where s.id = signal_id));

create policy "Everyone reads commitments" on public.signal_commitments for select to anon, authenticated
  using (true);

-- Supabase's default privileges grant more on new tables: take everything back, then give reads, and
-- service_role the inserts the ingest function makes (the triggers write the rest as the owner).
revoke all on table public.signals, public.signal_events, public.signal_commitments
  from public, anon, authenticated, service_role;
grant select on table public.signals, public.signal_events, public.signal_commitments
  to anon, authenticated, service_role;
grant insert on table public.signals, public.signal_events to service_role;

-- The ingest function's writes, one transaction each. Returns {"outcome": "stored" | "duplicate" | "conflict"
-- | "invalid", "field"?, "message"?}: duplicate when the id exists with the same content (nothing written),
-- conflict when it exists with other content, invalid when the ledger refuses it (field names the payload key).
-- Safe under concurrent duplicates: insert ... on conflict do nothing, then compare with the stored row.
create function public.ingest_signal(signal jsonb)
  returns jsonb
  language plpgsql
  set search_path = ''
as $$
declare
  stored public.signals;
  inserted text;
  field text;
  message text;
begin
  begin
    insert into public.signals (id, tier, pair, direction, entry, stop_loss, tp1, tp2, tp3, timeframe, issued_at)
    values (
      signal ->> 'id', signal ->> 'tier', signal ->> 'pair', signal ->> 'direction',
      (signal ->> 'entry')::numeric, (signal ->> 'stop_loss')::numeric,
      (signal -> 'take_profit' ->> 0)::numeric, (signal -> 'take_profit' ->> 1)::numeric,
      (signal -> 'take_profit' ->> 2)::numeric, signal ->> 'timeframe', (signal ->> 'issued_at')::timestamptz
    )
    on conflict (id) do nothing
    returning id into inserted;
  exception when check_violation or not_null_violation or invalid_text_representation then
    get stacked diagnostics field = constraint_name, message = message_text;
    return jsonb_build_object('outcome', 'invalid', 'field', field, 'message', message);
  end;
  if inserted is not null then
    return jsonb_build_object('outcome', 'stored');
  end if;
  select * into stored from public.signals where id = signal ->> 'id';
  if (stored.tier, stored.pair, stored.direction, stored.entry, stored.stop_loss, stored.tp1, stored.tp2,
      stored.tp3, stored.timeframe, stored.issued_at)
     = (signal ->> 'tier', signal ->> 'pair', signal ->> 'direction', (signal ->> 'entry')::numeric,
        (signal ->> 'stop_loss')::numeric, (signal -> 'take_profit' ->> 0)::numeric,
        (signal -> 'take_profit' ->> 1)::numeric, (signal -> 'take_profit' ->> 2)::numeric,
        signal ->> 'timeframe', (signal ->> 'issued_at')::timestamptz) then
    return jsonb_build_object('outcome', 'duplicate');
  end if;
  return jsonb_build_object('outcome', 'conflict');
end;
$$;

create function public.ingest_signal_event(event jsonb)
  returns jsonb
  language plpgsql
  set search_path = ''
as $$
declare
  stored public.signal_events;
  inserted text;
  field text;
  message text;
begin
  begin
    insert into public.signal_events (id, signal_id, kind, price, stop_loss, at)
    values (
      event ->> 'id', event ->> 'signal_id', event ->> 'kind', (event ->> 'price')::numeric,
      (event ->> 'stop_loss')::numeric, (event ->> 'at')::timestamptz
    )
    on conflict (id) do nothing
    returning id into inserted;
  exception
    when foreign_key_violation then
      return jsonb_build_object('outcome', 'invalid', 'field', 'signal_id',
        'message', format('No signal has the id %s.', event ->> 'signal_id'));
    when check_violation or not_null_violation or invalid_text_representation then
      get stacked diagnostics field = column_name, message = message_text;
      if field = '' then
        get stacked diagnostics field = constraint_name;
      end if;
      return jsonb_build_object('outcome', 'invalid', 'field', field, 'message', message);
  end;
  if inserted is not null then
    return jsonb_build_object('outcome', 'stored');
  end if;
  select * into stored from public.signal_events where id = event ->> 'id';
  if (stored.signal_id, stored.kind, stored.at) = (event ->> 'signal_id', event ->> 'kind', (event ->> 'at')::timestamptz)
     and stored.price is not distinct from (event ->> 'price')::numeric
     and stored.stop_loss is not distinct from (event ->> 'stop_loss')::numeric then
    return jsonb_build_object('outcome', 'duplicate');
  end if;
  return jsonb_build_object('outcome', 'conflict');
end;
$$;

revoke execute on function public.ingest_signal(jsonb) from public, anon, authenticated;
revoke execute on function public.ingest_signal_event(jsonb) from public, anon, authenticated;
grant execute on function public.ingest_signal(jsonb) to service_role;
grant execute on function public.ingest_signal_event(jsonb) to service_role;
