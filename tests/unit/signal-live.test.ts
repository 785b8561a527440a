import { PostgrestClient } from '@supabase/postgrest-js';
import { describe, expect, it } from 'vitest';
import { createSignalFeed, fillAfter, type LedgerRow, type SignalRow } from '../../src/stores/signal-feed.ts';
import {
  createSignalLive,
  HEARTBEAT_MS,
  initialLive,
  type LiveEffect,
  type LiveInput,
  type LiveState,
  liveStep,
  REJOIN_DELAYS,
  rejoinDelay,
} from '../../src/stores/signal-live.ts';
import type { Database } from '../../supabase/database.types.ts';
import { signalRow as row } from './signal-row.ts';

const signal = (seq: number, id = `s-${seq}`): LiveInput => ({ type: 'signal', message: { seq, signal: row({ id }) } });
const live = (over: Partial<LiveState> = {}): LiveState => ({ ...initialLive, status: 'live', seq: 5, ...over });

describe('the spec timings', () => {
  it('rejoins after 1, 2, 5, then every 10 s; heartbeat every 25 s', () => {
    expect(REJOIN_DELAYS).toEqual([1000, 2000, 5000, 10000]);
    expect([0, 1, 2, 3, 4, 9].map(rejoinDelay)).toEqual([1000, 2000, 5000, 10000, 10000, 10000]);
    expect(HEARTBEAT_MS).toBe(25_000);
  });
});

describe('the live state machine', () => {
  const apply = (rows: LedgerRow[]): LiveEffect => ({ type: 'apply', rows });
  it.each<[string, LiveState, LiveInput, Partial<LiveState>, LiveEffect[]]>([
    [
      'start: joins and reads the feed at once',
      initialLive,
      { type: 'start' },
      { status: 'connecting' },
      [{ type: 'join' }, { type: 'readAll' }],
    ],
    [
      'joined before any read ended: reads the feed (again)',
      initialLive,
      { type: 'joined' },
      { status: 'live' },
      [{ type: 'readAll' }],
    ],
    [
      'a read ends: the seq held moves to what it read, its rows applied',
      live({ seq: 5 }),
      { type: 'read', seq: 9, rows: [{ row: row(), kinds: [], version: 0 }] },
      { seq: 9 },
      [apply([{ row: row(), kinds: [], version: 0 }])],
    ],
    [
      'an older read ends later: the seq held never goes back',
      live({ seq: 9 }),
      { type: 'read', seq: 5, rows: [] },
      { seq: 9 },
      [],
    ],
    ['the first read ends: the seq is known', initialLive, { type: 'read', seq: 5, rows: [] }, { seq: 5 }, []],
    [
      'rejoined: fills after the last seq held, the delays start again',
      live({ status: 'reconnecting', attempt: 3 }),
      { type: 'joined' },
      { status: 'live', attempt: 0 },
      [{ type: 'fill', after: 5 }],
    ],
    [
      'lost while live: Reconnecting, leave, wait 1 s',
      live(),
      { type: 'lost' },
      { status: 'reconnecting', attempt: 1, waiting: true },
      [{ type: 'leave' }, { type: 'wait', ms: 1000 }],
    ],
    [
      'lost again after a failed rejoin: the next delay',
      live({ status: 'reconnecting', attempt: 2 }),
      { type: 'lost' },
      { attempt: 3, waiting: true },
      [{ type: 'leave' }, { type: 'wait', ms: 5000 }],
    ],
    [
      'lost many times: 10 s from the fourth on',
      live({ status: 'reconnecting', attempt: 7 }),
      { type: 'lost' },
      { attempt: 8 },
      [{ type: 'leave' }, { type: 'wait', ms: 10000 }],
    ],
    [
      'lost while already waiting (error, then closed): one wait',
      live({ status: 'reconnecting', attempt: 1, waiting: true }),
      { type: 'lost' },
      { attempt: 1, waiting: true },
      [],
    ],
    [
      'the wait ends: joins again',
      live({ status: 'reconnecting', attempt: 1, waiting: true }),
      { type: 'timer' },
      { status: 'reconnecting', waiting: false },
      [{ type: 'join' }],
    ],
    [
      'the next signal in sequence: applied, seq moves on',
      live(),
      signal(6),
      { seq: 6 },
      [apply([{ row: row({ id: 's-6' }), kinds: [], version: 0 }])],
    ],
    [
      'a signal already held (seq at or below): applied (it dedupes), seq stays',
      live(),
      signal(4),
      { seq: 5 },
      [apply([{ row: row({ id: 's-4' }), kinds: [], version: 0 }])],
    ],
    [
      'a commitment seq skipped: applied, and a fill after the seq held',
      live(),
      signal(8),
      { seq: 5 },
      [apply([{ row: row({ id: 's-8' }), kinds: [], version: 0 }]), { type: 'fill', after: 5 }],
    ],
    [
      'a signal before the first read ended: applied, the seq left to the read',
      initialLive,
      signal(3),
      { seq: null },
      [apply([{ row: row({ id: 's-3' }), kinds: [], version: 0 }])],
    ],
    [
      'an event: its signal row applied at the event seq',
      live(),
      {
        type: 'event',
        message: { seq: 40, event: { id: 'e', signal_id: 's-1', kind: 'tp1_hit' }, signal: row({ status: 'tp1_hit' }) },
      },
      { seq: 5 },
      [apply([{ row: row({ status: 'tp1_hit' }), kinds: ['tp1_hit'], version: 40 }])],
    ],
    [
      'a read fails (reported as lost): Reconnecting, so the rejoin reads again',
      live(),
      { type: 'lost' },
      { status: 'reconnecting', waiting: true, attempt: 1 },
      [{ type: 'leave' }, { type: 'wait', ms: 1000 }],
    ],
    [
      'stop: leaves',
      live({ waiting: true }),
      { type: 'stop' },
      { status: 'stopped', waiting: false },
      [{ type: 'leave' }],
    ],
    [
      'stopped: a late report changes nothing',
      live({ status: 'stopped' }),
      { type: 'lost' },
      { status: 'stopped' },
      [],
    ],
    ['stopped: a late broadcast changes nothing', live({ status: 'stopped' }), signal(6), { seq: 5 }, []],
    [
      'started again after a stop',
      live({ status: 'stopped' }),
      { type: 'start' },
      { status: 'connecting' },
      [{ type: 'join' }, { type: 'fill', after: 5 }],
    ],
  ])('%s', (_, state, input, expected, effects) => {
    const next = liveStep(state, input);
    expect(next.state).toMatchObject(expected);
    expect(next.effects).toEqual(effects);
  });
});

/**
 * The live source over a socket that records joins and leaves and lets the test report as the channel would, a
 * ledger that a real postgrest-js client reads, and timers the test fires.
 */
function harness() {
  const ledger: { signals: SignalRow[]; commitments: { seq: number; signal_id: string }[] } = {
    signals: [],
    commitments: [],
  };
  const commit = (r: SignalRow) => {
    ledger.signals.push(r);
    const seq = ledger.commitments.length + 1;
    ledger.commitments.push({ seq, signal_id: r.id });
    return seq;
  };
  const reads: string[] = [];
  // A real postgrest-js client; its HTTP answers from `ledger`, filtered as the URL asks.
  const client = new PostgrestClient<Database>('http://rest.test/rest/v1', {
    fetch: async (input) => {
      const url = new URL(String(input));
      const table = url.pathname.split('/').pop() as string;
      reads.push(decodeURIComponent(url.pathname + url.search));
      let rows = (
        table === 'signals' ? ledger.signals : table === 'signal_commitments' ? ledger.commitments : []
      ) as Record<string, unknown>[];
      for (const [column, filter] of url.searchParams) {
        if (['select', 'order', 'limit'].includes(column)) continue;
        const list = /in\.\((.*)\)/.exec(filter)?.[1].split(',') ?? [];
        if (filter.startsWith('gt.')) rows = rows.filter((r) => Number(r[column]) > Number(filter.slice(3)));
        else if (filter.startsWith('not.')) rows = rows.filter((r) => !list.includes(String(r[column])));
        else rows = rows.filter((r) => list.includes(String(r[column])));
      }
      if (url.searchParams.get('order') === 'seq.desc') rows = [...rows].reverse();
      const limit = url.searchParams.get('limit');
      if (limit) rows = rows.slice(0, Number(limit));
      return new Response(JSON.stringify(rows), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  const reader = { from: client.from.bind(client) };
  const feed = createSignalFeed(reader);
  let report: ((input: LiveInput) => void) | null = null;
  const socket = { joins: 0, leaves: 0 };
  const timers: { ms: number; fire: () => void }[] = [];
  const fills: number[] = [];
  const liveSource = createSignalLive({
    socket: {
      join: (on) => {
        socket.joins++;
        report = on;
      },
      leave: () => {
        socket.leaves++;
        report = null;
      },
    },
    feed,
    fill: (after, openIds) => {
      fills.push(after);
      return fillAfter(reader, after, openIds);
    },
    timer: (ms, fire) => {
      timers.push({ ms, fire });
      return () => {};
    },
  });
  const tell = (input: LiveInput) => {
    if (!report) throw new Error('no channel joined');
    report(input);
  };
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));
  const openIds = () => feed.$feed.get().open.map((s) => s.id);
  return { ledger, commit, feed, liveSource, socket, timers, fills, tell, settled, openIds, reads };
}

describe('the live source', () => {
  it('shows broadcast signals at once, each once, and is Live', async () => {
    const h = harness();
    h.commit(row({ id: 'before', issued_at: '2026-11-26T09:00:00Z' }));
    h.liveSource.start();
    expect(h.liveSource.$live.get().status).toBe('connecting');
    await h.settled();
    expect(h.openIds()).toEqual(['before']);
    h.tell({ type: 'joined' });
    await h.settled();
    expect(h.liveSource.$live.get()).toMatchObject({ status: 'live', seq: 1 });

    const seq = h.commit(row({ id: 'new' }));
    h.tell({ type: 'signal', message: { seq, signal: row({ id: 'new' }) } });
    h.tell({ type: 'signal', message: { seq, signal: row({ id: 'new' }) } });
    expect(h.openIds()).toEqual(['new', 'before']);
    expect(h.feed.$changes.get()).toMatchObject({ n: 1, changes: [{ kind: 'new', signal: { id: 'new' } }] });
    // One fill, the join's (what came between the first read and the join); none for the broadcasts.
    expect(h.fills).toEqual([1]);
    expect(h.liveSource.$live.get().seq).toBe(2);
  });

  it('applies an event to the signal it moves', async () => {
    const h = harness();
    h.commit(row({ id: 'a' }));
    h.liveSource.start();
    await h.settled();
    h.tell({ type: 'joined' });
    h.tell({
      type: 'event',
      message: {
        seq: 3,
        event: { id: 'e', signal_id: 'a', kind: 'tp1_hit' },
        signal: row({ id: 'a', status: 'tp1_hit' }),
      },
    });
    expect(h.feed.$feed.get().open[0]).toMatchObject({ id: 'a', status: 'tp1_hit', hits: [true, false, false] });
  });

  it('after a disconnect: Reconnecting, rejoins after 1 s, then fills in what was committed meanwhile', async () => {
    const h = harness();
    h.commit(row({ id: 'a', issued_at: '2026-11-26T09:00:00Z' }));
    h.liveSource.start();
    await h.settled();
    h.tell({ type: 'joined' });
    await h.settled();

    h.tell({ type: 'lost' });
    expect(h.liveSource.$live.get().status).toBe('reconnecting');
    expect(h.socket.leaves).toBe(1);
    expect(h.timers.map((t) => t.ms)).toEqual([1000]);

    // Committed while away: no broadcast reaches this member.
    h.commit(row({ id: 'missed-1', issued_at: '2026-11-26T10:00:00Z' }));
    h.commit(row({ id: 'missed-2', issued_at: '2026-11-26T11:00:00Z' }));
    h.timers[0].fire();
    expect(h.socket.joins).toBe(2);
    // The rejoin is refused once: the next wait is 2 s.
    h.tell({ type: 'lost' });
    expect(h.timers.map((t) => t.ms)).toEqual([1000, 2000]);
    h.timers[1].fire();
    h.tell({ type: 'joined' });
    await h.settled();
    expect(h.fills.at(-1)).toBe(1);
    expect(h.openIds()).toEqual(['missed-2', 'missed-1', 'a']);
    expect(h.liveSource.$live.get()).toMatchObject({ status: 'live', seq: 3, attempt: 0 });
    expect(h.feed.$changes.get().changes.map((c) => c.signal.id)).toEqual(['missed-1', 'missed-2']);
  });

  it('fills in when a broadcast skips a commitment seq, without a disconnect', async () => {
    const h = harness();
    h.liveSource.start();
    await h.settled();
    h.tell({ type: 'joined' });
    await h.settled();
    h.commit(row({ id: 'lost-on-the-way' }));
    const seq = h.commit(row({ id: 'arrived', issued_at: '2026-11-26T11:00:00Z' }));
    h.tell({ type: 'signal', message: { seq, signal: row({ id: 'arrived', issued_at: '2026-11-26T11:00:00Z' }) } });
    await h.settled();
    expect(h.fills).toContain(0);
    expect(h.openIds()).toEqual(['arrived', 'lost-on-the-way']);
  });

  it('stop leaves the channel, and later reports change nothing', async () => {
    const h = harness();
    h.liveSource.start();
    await h.settled();
    h.tell({ type: 'joined' });
    h.liveSource.stop();
    expect(h.socket.leaves).toBe(1);
    expect(h.liveSource.$live.get().status).toBe('stopped');
  });
});
