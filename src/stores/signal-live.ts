// The feed's live source: the private Realtime topic the ledger's triggers broadcast to (migration
// 20261127100000_signals_broadcast.sql), applied to the feed as signals and events arrive, and after any
// disconnect a rejoin with the delays of 1, 2, 5, 10 s and a gap fill from REST, so nothing is missed.
//
// liveStep() is the whole behaviour as a pure state machine: an input (joined, lost, a broadcast, a read's
// answer, a timer) gives the next state and the effects to run. createSignalLive() runs those effects through the
// deps it is given: the socket (src/stores/signal-live-browser.ts wires @supabase/realtime-js), the feed's reads
// (src/stores/signal-feed.ts) and a timer; tests/unit/signal-live.test.ts drives both with fakes.
import { atom } from 'nanostores';
import type { LedgerRow, SignalFeed, SignalRow } from './signal-feed.ts';

/** The private topic every new signal and event is broadcast to; only members may join it. */
export const SIGNALS_TOPIC = 'signals:members';
/** Rejoin delays after a disconnect, in ms: 1, 2, 5, then every 10 s. */
export const REJOIN_DELAYS = [1000, 2000, 5000, 10000] as const;
/** How often the socket's heartbeat goes out. */
export const HEARTBEAT_MS = 25_000;

export const rejoinDelay = (attempt: number) => REJOIN_DELAYS[Math.min(attempt, REJOIN_DELAYS.length - 1)];

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface LiveState {
  status: LiveStatus;
  /** Rejoins tried since the channel was last joined: picks the next delay. */
  attempt: number;
  /** The highest commitment seq the feed holds every signal up to; null until a full read says. */
  seq: number | null;
  /** A rejoin is waiting for its timer. */
  waiting: boolean;
}

/** What the `signal` broadcast carries: the new signal and its commitment's seq. */
export interface SignalMessage {
  seq: number;
  signal: SignalRow;
}

/** What the `signal_event` broadcast carries: the event (with its seq) and its signal's row after it. */
export interface EventMessage {
  seq: number;
  event: { id: string; signal_id: string; kind: string };
  signal: SignalRow;
}

export type LiveInput =
  | { type: 'start' }
  | { type: 'stop' }
  | { type: 'joined' }
  | { type: 'lost' }
  | { type: 'timer' }
  | { type: 'signal'; message: SignalMessage }
  | { type: 'event'; message: EventMessage }
  /** A read ended: `seq` the commitment seq the feed now holds everything up to, `rows` what a fill found. */
  | { type: 'read'; seq: number; rows: LedgerRow[] };

export type LiveEffect =
  | { type: 'join' }
  | { type: 'leave' }
  | { type: 'wait'; ms: number }
  | { type: 'apply'; rows: LedgerRow[] }
  /** Read the whole feed again (no seq known yet, or a gap too long). */
  | { type: 'readAll' }
  /** Read what was committed after `after`, and the open signals' current rows. */
  | { type: 'fill'; after: number };

export const initialLive: LiveState = { status: 'connecting', attempt: 0, seq: null, waiting: false };

/**
 * The read a (re)join or a skipped seq asks for: after the seq held, or everything while none is known. Reads may
 * overlap: applying is idempotent, and the seq held only grows.
 */
const read = (state: LiveState): LiveEffect =>
  state.seq === null ? { type: 'readAll' } : { type: 'fill', after: state.seq };

const step = (state: LiveState, effects: LiveEffect[] = []) => ({ state, effects });

export function liveStep(state: LiveState, input: LiveInput): { state: LiveState; effects: LiveEffect[] } {
  if (state.status === 'stopped' && input.type !== 'start') return step(state);
  switch (input.type) {
    case 'start':
      // The feed is read at once, whether or not the socket joins; the join then fills what came between.
      return step({ ...state, status: 'connecting' }, [{ type: 'join' }, read(state)]);
    case 'stop':
      return step({ ...state, status: 'stopped', waiting: false }, [{ type: 'leave' }]);
    case 'joined':
      // Joined (or joined again): whatever was broadcast before this moment is read from REST.
      return step({ ...state, status: 'live', attempt: 0, waiting: false }, [read(state)]);
    case 'lost':
      // A disconnect, or a failed read (the gap is still open, so the rejoin reads again): leave what is left of
      // the channel, wait the next delay, then join again (one wait however many reports come).
      if (state.waiting) return step(state);
      return step({ ...state, status: 'reconnecting', waiting: true, attempt: state.attempt + 1 }, [
        { type: 'leave' },
        { type: 'wait', ms: rejoinDelay(state.attempt) },
      ]);
    case 'timer':
      return state.waiting ? step({ ...state, waiting: false }, [{ type: 'join' }]) : step(state);
    case 'signal': {
      const { seq, signal } = input.message;
      const apply: LiveEffect = { type: 'apply', rows: [{ row: signal, kinds: [], version: 0 }] };
      if (state.seq === null) return step(state, [apply]);
      // The next seq (or one held already) moves the seq on; a skipped one (a broadcast lost) reads the gap.
      if (seq <= state.seq + 1) return step({ ...state, seq: Math.max(state.seq, seq) }, [apply]);
      return step(state, [apply, read(state)]);
    }
    case 'event': {
      const { seq, event, signal } = input.message;
      return step(state, [{ type: 'apply', rows: [{ row: signal, kinds: [event.kind], version: seq }] }]);
    }
    case 'read':
      return step(
        { ...state, seq: Math.max(state.seq ?? 0, input.seq) },
        input.rows.length ? [{ type: 'apply', rows: input.rows }] : [],
      );
  }
}

/** The socket at the edge: join the topic, leave it, and report through `on`. */
export interface LiveSocket {
  /** Joins SIGNALS_TOPIC; reports joined, lost (error, timeout, closed) and broadcasts through `on`. */
  join(on: (input: LiveInput) => void): void;
  /** Leaves the channel and closes the socket; later reports of the old channel are dropped. */
  leave(): void;
}

export interface SignalLiveDeps {
  socket: LiveSocket;
  feed: Pick<SignalFeed, 'refresh' | 'apply' | 'openIds'>;
  /** Reads what was committed after `after`; null when the gap is too long (see fillAfter). */
  fill(after: number, openIds: string[]): Promise<{ seq: number; rows: LedgerRow[] } | null>;
  /** Calls back once after `ms`; returns a cancel. */
  timer(ms: number, callback: () => void): () => void;
}

/** Runs liveStep's effects; `$live` holds the state (the view shows its status). */
export function createSignalLive(deps: SignalLiveDeps) {
  const $live = atom<LiveState>(initialLive);
  let cancelTimer: (() => void) | null = null;

  function send(input: LiveInput): void {
    const { state, effects } = liveStep($live.get(), input);
    $live.set(state);
    for (const effect of effects) run(effect);
  }

  async function readAll(): Promise<void> {
    const seq = await deps.feed.refresh();
    send(seq === null ? { type: 'lost' } : { type: 'read', seq, rows: [] });
  }

  function run(effect: LiveEffect): void {
    switch (effect.type) {
      case 'join':
        deps.socket.join(send);
        return;
      case 'leave':
        cancelTimer?.();
        cancelTimer = null;
        deps.socket.leave();
        return;
      case 'wait':
        cancelTimer = deps.timer(effect.ms, () => {
          cancelTimer = null;
          send({ type: 'timer' });
        });
        return;
      case 'apply':
        deps.feed.apply(effect.rows);
        return;
      case 'readAll':
        void readAll();
        return;
      case 'fill':
        // A refused read counts as a disconnect: the rejoin reads again.
        deps.fill(effect.after, deps.feed.openIds()).then(
          (found) => (found ? send({ type: 'read', ...found }) : void readAll()),
          () => send({ type: 'lost' }),
        );
        return;
    }
  }

  return {
    $live,
    /** Reads the feed and joins the topic. */
    start: () => send({ type: 'start' }),
    stop: () => send({ type: 'stop' }),
  };
}

export type SignalLive = ReturnType<typeof createSignalLive>;
