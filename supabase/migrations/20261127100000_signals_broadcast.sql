-- Live delivery of the signals ledger (docs/ledger.md#live-delivery): every new signal and every event is
-- broadcast through Supabase Realtime to one private topic, 'signals:members', with what the dashboard's feed needs
-- to show it without a read. Only members may join the topic (RLS on realtime.messages, the same rule as their
-- reads of open signals); nobody may send to it from a client (no insert policy).
--
-- A broadcast is a hint, the ledger row is the truth: realtime.send() runs in the ingest's transaction (hosted
-- Realtime delivers it once that commits, never after a rollback), and any failure of it is caught here and
-- reported as a warning, so a broadcast can never make an ingest fail or lose a signal. A member who missed one
-- reads the gap from REST after the last commitment seq they hold (src/stores/signal-live.ts).
--
-- The payloads (realtime.send adds an "id", the message's uuid):
--   event 'signal'        {"seq": <the signal's commitment seq>, "signal": <its signals row>}
--   event 'signal_event'  {"seq": <the event's seq>, "event": <its signal_events row>,
--                          "signal": <its signal's row after the event>}

-- A new signal, once its commitment is written: the commitment carries the seq (gapless, in commit order) that a
-- client fills a gap after. It fires inside the signal's own insert (signals_commit writes the commitment), when
-- the signal row is already there.
create function private.signal_broadcast_opened()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  begin
    perform realtime.send(
      jsonb_build_object(
        'seq', new.seq,
        'signal', (select to_jsonb(s) from public.signals s where s.id = new.signal_id)
      ),
      'signal',
      'signals:members',
      true
    );
  exception when others then
    raise warning 'Broadcast of signal % failed: %', new.signal_id, sqlerrm;
  end;
  return null;
end;
$$;

-- An event, with its signal as the event left it. Row triggers of one event fire in the order of their names, so
-- signal_events_broadcast runs after signal_events_apply has moved the signal.
create function private.signal_broadcast_event()
  returns trigger
  language plpgsql
  security definer
  set search_path = ''
as $$
begin
  begin
    perform realtime.send(
      jsonb_build_object(
        'seq', new.seq,
        'event', to_jsonb(new),
        'signal', (select to_jsonb(s) from public.signals s where s.id = new.signal_id)
      ),
      'signal_event',
      'signals:members',
      true
    );
  exception when others then
    raise warning 'Broadcast of signal event % failed: %', new.id, sqlerrm;
  end;
  return null;
end;
$$;

revoke execute on function private.signal_broadcast_opened() from public, anon, authenticated;
revoke execute on function private.signal_broadcast_event() from public, anon, authenticated;

create trigger signal_commitments_broadcast
  after insert on public.signal_commitments
  for each row execute function private.signal_broadcast_opened();

create trigger signal_events_broadcast
  after insert on public.signal_events
  for each row execute function private.signal_broadcast_event();

-- Who may join 'signals:members': signed-in members, at the assurance level their factors require (aal2 once they
-- have a verified factor), as for open signals in public.signals. Realtime checks this select policy when a
-- private channel joins (and again as the token changes); without an insert policy for the topic, no client may
-- send to it.
create policy "Members receive the signals topic"
  on realtime.messages
  for select
  to authenticated
  using (
    (select realtime.topic()) = 'signals:members'
    and realtime.messages.extension = 'broadcast'
    and (
      (select auth.jwt() ->> 'aal') = 'aal2'
      or not (select private.member_has_verified_factor())
    )
  );
