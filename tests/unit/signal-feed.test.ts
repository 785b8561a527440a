import { PostgrestClient } from '@supabase/postgrest-js';
import { describe, expect, it } from 'vitest';
import { pipSize, pips } from '../../src/lib/signal-format.ts';
import { CSV_COLUMNS, historyCsv } from '../../src/stores/signal-csv.ts';
import {
  applyRows,
  createSignalFeed,
  FILL_LIMIT,
  fillAfter,
  filterHistory,
  HISTORY_LIMIT,
  historyPairs,
  toFeedSignal,
} from '../../src/stores/signal-feed.ts';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { signalRow as row } from './signal-row.ts';

describe('the pip rule', () => {
  it.each([
    ['EUR/USD', 0.0001],
    ['USD/JPY', 0.01],
    ['EUR/JPY', 0.01],
    ['JPY/USD', 0.0001],
    ['XAU/USD', 0.0001],
  ])('a pip of %s is %s', (pair, size) => {
    expect(pipSize(pair)).toBe(size);
  });

  it.each([
    ['EUR/USD', 'BUY', 1.085, 1.09, 50],
    ['EUR/USD', 'BUY', 1.085, 1.08, -50],
    ['EUR/USD', 'SELL', 1.085, 1.08, 50],
    ['EUR/USD', 'SELL', 1.085, 1.0875, -25],
    ['USD/JPY', 'BUY', 150.1, 150.85, 75],
    ['USD/JPY', 'SELL', 150.1, 150.1, 0],
    ['GBP/USD', 'BUY', 1.26543, 1.26548, 0.5],
  ])('%s %s from %s to %s is %s pips', (pair, direction, entry, exit, expected) => {
    expect(pips(pair, direction, entry, exit)).toBe(expected);
  });
});

describe('a signal as the feed shows it', () => {
  it.each([
    // status, events, exit_price, current_stop → hits, exit, pips, result
    ['active', [], null, 1.08, [false, false, false], null, null, null],
    ['tp1_hit', [], null, 1.08, [true, false, false], null, null, null],
    ['active', ['tp1_hit'], null, 1.08, [true, false, false], null, null, null],
    ['tp2_hit', ['tp1_hit', 'tp2_hit'], null, 1.085, [true, true, false], null, null, null],
    ['tp3_hit', [], 1.1001, 1.08, [true, true, true], 1.1, 150, 'win'],
    ['sl_hit', [], 1.0799, 1.08, [false, false, false], 1.08, -50, 'loss'],
    // A moved stop counts: hit at break-even is flat.
    ['sl_hit', [], 1.0849, 1.085, [false, false, false], 1.085, 0, 'flat'],
    ['closed', [], 1.0875, 1.08, [false, false, false], 1.0875, 25, 'win'],
    ['expired', [], null, 1.08, [false, false, false], null, null, null],
    ['cancelled', [], null, 1.08, [false, false, false], null, null, null],
  ] as const)('%s with events %j', (status, kinds, exitPrice, stop, hits, exit, pipCount, result) => {
    const s = toFeedSignal(
      row({ status, exit_price: exitPrice, current_stop: stop }),
      kinds.map((kind) => ({ kind })),
    );
    expect(s.hits).toEqual(hits);
    expect(s.exit).toBe(exit);
    expect(s.pips).toBe(pipCount);
    expect(s.result).toBe(result);
    expect(s.currentStop).toBe(stop);
  });

  it('reads numeric columns sent as strings as numbers', () => {
    const s = toFeedSignal(row({ entry: '1.085' as unknown as number, tp1: '1.09' as unknown as number }));
    expect(s.entry).toBe(1.085);
    expect(s.tp[0]).toBe(1.09);
  });
});

const closed = [
  toFeedSignal(row({ id: 'a', tier: 'foundation', status: 'tp3_hit', closed_at: '2026-11-26T12:00:00Z' })),
  toFeedSignal(
    row({
      id: 'b',
      tier: 'growth',
      pair: 'USD/JPY',
      direction: 'SELL',
      entry: 150.1,
      stop_loss: 150.6,
      current_stop: 150.6,
      tp1: 149.6,
      tp2: 149.1,
      tp3: 148.6,
      status: 'sl_hit',
      closed_at: '2026-11-26T11:00:00Z',
    }),
  ),
  toFeedSignal(
    row({ id: 'c', tier: 'momentum', status: 'closed', exit_price: 1.085, closed_at: '2026-11-26T10:30:00Z' }),
  ),
  toFeedSignal(row({ id: 'd', tier: 'growth', status: 'expired', closed_at: '2026-11-26T10:20:00Z' })),
];

describe('history filters', () => {
  it.each([
    [{ tier: '', pair: '', result: '' }, ['a', 'b', 'c', 'd']],
    [{ tier: 'growth', pair: '', result: '' }, ['b', 'd']],
    [{ tier: '', pair: 'USD/JPY', result: '' }, ['b']],
    [{ tier: '', pair: '', result: 'win' }, ['a']],
    [{ tier: '', pair: '', result: 'loss' }, ['b']],
    [{ tier: '', pair: '', result: 'flat' }, ['c']],
    [{ tier: 'growth', pair: 'EUR/USD', result: '' }, ['d']],
    [{ tier: 'momentum', pair: '', result: 'win' }, []],
  ] as const)('%j shows %j', (filters, ids) => {
    expect(filterHistory(closed, filters).map((s) => s.id)).toEqual(ids);
  });

  it('offers each pair once, sorted', () => {
    expect(historyPairs(closed)).toEqual(['EUR/USD', 'USD/JPY']);
  });
});

describe('CSV export', () => {
  it('has a header of named columns and one line per row shown', () => {
    const csv = historyCsv(filterHistory(closed, { tier: 'growth', pair: '', result: '' }));
    expect(csv.split('\r\n')).toEqual([
      CSV_COLUMNS.join(','),
      'b,growth,USD/JPY,SELL,H1,150.1,150.6,150.6,149.6,149.1,148.6,2026-11-26T10:00:00+00:00,2026-11-26T11:00:00Z,sl_hit,150.6,-50,loss',
      'd,growth,EUR/USD,BUY,H1,1.085,1.08,1.08,1.09,1.095,1.1,2026-11-26T10:00:00+00:00,2026-11-26T10:20:00Z,expired,,,',
      '',
    ]);
  });

  it('is only the header when nothing is shown', () => {
    expect(historyCsv([])).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });
});

/** A real postgrest-js client whose HTTP answers with `tables`' rows, filtered as the URL asks (the filters used). */
function reader(
  tables: {
    signals: Tables<'signals'>[];
    signal_events: Partial<Tables<'signal_events'>>[];
    signal_commitments?: Partial<Tables<'signal_commitments'>>[];
  },
  fail = false,
) {
  const urls: string[] = [];
  const client = new PostgrestClient<Database>('http://rest.test/rest/v1', {
    fetch: async (input) => {
      const url = new URL(String(input));
      urls.push(decodeURIComponent(url.pathname + url.search));
      if (fail) return new Response(JSON.stringify({ message: 'permission denied' }), { status: 401 });
      const table = url.pathname.split('/').pop() as keyof typeof tables;
      let rows = [...(tables[table] ?? [])] as Record<string, unknown>[];
      for (const [column, filter] of url.searchParams) {
        if (['select', 'order', 'limit'].includes(column)) continue;
        const list = /in\.\((.*)\)/.exec(filter)?.[1].split(',') ?? [];
        if (filter.startsWith('gt.')) rows = rows.filter((r) => Number(r[column]) > Number(filter.slice(3)));
        else if (filter.startsWith('not.')) rows = rows.filter((r) => !list.includes(String(r[column])));
        else rows = rows.filter((r) => list.includes(String(r[column])));
      }
      const order = url.searchParams.get('order');
      if (order?.startsWith('seq.')) {
        rows.sort((a, b) => (Number(a.seq) - Number(b.seq)) * (order.endsWith('desc') ? -1 : 1));
      }
      const limit = url.searchParams.get('limit');
      if (limit) rows = rows.slice(0, Number(limit));
      return new Response(JSON.stringify(rows), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  return { from: client.from.bind(client), urls };
}

describe('the store', () => {
  const signals = [
    row({ id: 'open-new', issued_at: '2026-11-26T11:00:00Z' }),
    row({ id: 'open-old', status: 'tp1_hit', issued_at: '2026-11-26T09:00:00Z' }),
    row({ id: 'done', status: 'tp3_hit', closed_at: '2026-11-26T12:00:00Z' }),
  ];
  const events = [
    { signal_id: 'open-new', kind: 'stop_moved', seq: 4 },
    { signal_id: 'open-old', kind: 'tp1_hit', seq: 7 },
  ];
  const signal_commitments = [
    { seq: 1, signal_id: 'open-old' },
    { seq: 2, signal_id: 'done' },
    { seq: 3, signal_id: 'open-new' },
  ];

  it('reads open signals newest first with their events, and closed ones into the history', async () => {
    const { from, urls } = reader({ signals, signal_events: events, signal_commitments });
    const feed = createSignalFeed({ from });
    expect(feed.$feed.get().status).toBe('idle');
    expect(await feed.refresh()).toBe(3);
    const state = feed.$feed.get();
    expect(state.status).toBe('loaded');
    expect(state.open.map((s) => [s.id, s.hits[0], s.version])).toEqual([
      ['open-new', false, 4],
      ['open-old', true, 7],
    ]);
    expect(feed.$history.get().map((s) => s.id)).toEqual(['done']);
    // The commitment seq is read before the signals, so nothing committed after it is missing from the read.
    expect(urls[0]).toBe('/rest/v1/signal_commitments?select=seq&order=seq.desc&limit=1');
    expect(urls).toContain('/rest/v1/signals?select=*&status=in.(active,tp1_hit,tp2_hit)&order=issued_at.desc');
    expect(urls).toContain(
      '/rest/v1/signal_events?select=signal_id,kind,seq&signal_id=in.(open-new,open-old)&order=seq.asc',
    );
  });

  it('filters the history and keeps what it showed when a refresh fails', async () => {
    const { from } = reader({ signals, signal_events: events });
    const feed = createSignalFeed({ from });
    expect(await feed.refresh()).toBe(0);
    feed.setFilter('result', 'loss');
    expect(feed.$history.get()).toEqual([]);
    feed.setFilter('result', 'win');
    expect(feed.$history.get().map((s) => s.id)).toEqual(['done']);

    const down = createSignalFeed(reader({ signals, signal_events: events }, true));
    expect(await down.refresh()).toBeNull();
    expect(down.$feed.get()).toEqual({ status: 'error', open: [], closed: [] });
  });

  it('apply() shows a new signal and its events at once, and says what changed', async () => {
    const feed = createSignalFeed(reader({ signals: [], signal_events: [] }));
    await feed.refresh();
    feed.apply([{ row: row({ id: 'live' }), kinds: [], version: 0 }]);
    expect(feed.$feed.get().open.map((s) => s.id)).toEqual(['live']);
    expect(feed.$changes.get()).toMatchObject({ n: 1, changes: [{ kind: 'new', signal: { id: 'live' } }] });
    // The same row again (a broadcast and a gap fill both bring it): nothing changes, nothing is said.
    expect(feed.apply([{ row: row({ id: 'live' }), kinds: [], version: 0 }])).toEqual([]);
    expect(feed.$changes.get().n).toBe(1);
    feed.apply([{ row: row({ id: 'live', status: 'tp1_hit' }), kinds: ['tp1_hit'], version: 9 }]);
    expect(feed.$feed.get().open[0]).toMatchObject({ status: 'tp1_hit', hits: [true, false, false], version: 9 });
    expect(feed.$changes.get()).toMatchObject({ n: 2, changes: [{ kind: 'status' }] });
  });

  it('a refresh that a newer one replaced answers what the newer one answers, not a failure', async () => {
    const feed = createSignalFeed(reader({ signals, signal_events: events, signal_commitments }));
    const replaced = feed.refresh();
    const newer = feed.refresh();
    expect(await replaced).toBe(3);
    expect(await newer).toBe(3);
    expect(feed.$feed.get().status).toBe('loaded');
  });

  it('a refresh keeps what the live source applied while the read was on its way', async () => {
    const feed = createSignalFeed(reader({ signals, signal_events: events, signal_commitments }));
    const reading = feed.refresh();
    feed.apply([{ row: row({ id: 'open-old', status: 'tp2_hit' }), kinds: ['tp2_hit'], version: 12 }]);
    feed.apply([{ row: row({ id: 'newest', issued_at: '2026-11-26T13:00:00Z' }), kinds: [], version: 0 }]);
    await reading;
    expect(feed.$feed.get().open.map((s) => [s.id, s.status])).toEqual([
      ['newest', 'active'],
      ['open-new', 'active'],
      ['open-old', 'tp2_hit'],
    ]);
  });
});

describe('applying rows', () => {
  const shown = () => ({
    open: [toFeedSignal(row({ id: 'a', status: 'tp1_hit' }), [], 5)],
    closed: [toFeedSignal(row({ id: 'z', status: 'expired', closed_at: '2026-11-26T09:00:00Z' }))],
  });

  it.each([
    // what arrives → open ids, closed ids, the change
    ['a new open signal', row({ id: 'b', issued_at: '2026-11-26T11:00:00Z' }), [], 0, ['b', 'a'], ['z'], 'new'],
    ['TP2 on a', row({ id: 'a', status: 'tp2_hit' }), ['tp2_hit'], 6, ['a'], ['z'], 'status'],
    [
      'a moved stop on a',
      row({ id: 'a', status: 'tp1_hit', current_stop: 1.085 }),
      ['stop_moved'],
      6,
      ['a'],
      ['z'],
      'stop',
    ],
    [
      'a stop hit on a: into the history, newest closed first',
      row({ id: 'a', status: 'sl_hit', exit_price: 1.08, closed_at: '2026-11-26T12:00:00Z' }),
      ['sl_hit'],
      6,
      [],
      ['a', 'z'],
      'status',
    ],
    [
      'a signal opened and closed while away',
      row({ id: 'c', status: 'tp3_hit', closed_at: '2026-11-26T08:00:00Z' }),
      ['tp1_hit', 'tp2_hit', 'tp3_hit'],
      8,
      ['a'],
      ['z', 'c'],
      'status',
    ],
    ['an older state of a (lower version)', row({ id: 'a', status: 'active' }), [], 4, ['a'], ['z'], null],
    ['the state of a shown again', row({ id: 'a', status: 'tp1_hit' }), ['tp1_hit'], 5, ['a'], ['z'], null],
  ] as const)('%s', (_, r, kinds, version, open, closed, change) => {
    const next = applyRows(shown(), [{ row: r, kinds: [...kinds], version }]);
    expect(next.open.map((s) => s.id)).toEqual(open);
    expect(next.closed.map((s) => s.id)).toEqual(closed);
    expect(next.changes.map((c) => c.kind)).toEqual(change ? [change] : []);
  });

  it('a stop moved after TP1 keeps TP1 marked hit', () => {
    const next = applyRows(shown(), [
      { row: row({ id: 'a', status: 'tp1_hit', current_stop: 1.085 }), kinds: ['stop_moved'], version: 6 },
    ]);
    expect(next.open[0].hits).toEqual([true, false, false]);
  });

  it('keeps the history to its limit', () => {
    const many = Array.from({ length: HISTORY_LIMIT }, (_, i) =>
      toFeedSignal(row({ id: `h${i}`, status: 'expired', closed_at: '2026-11-26T09:00:00Z' })),
    );
    const next = applyRows({ open: [], closed: many }, [
      { row: row({ id: 'new', status: 'expired', closed_at: '2026-11-26T10:00:00Z' }), kinds: [], version: 1 },
    ]);
    expect(next.closed).toHaveLength(HISTORY_LIMIT);
    expect(next.closed[0].id).toBe('new');
  });
});

describe('the gap fill', () => {
  const signals = [
    row({ id: 'open', status: 'tp1_hit' }),
    row({ id: 'later', issued_at: '2026-11-26T11:00:00Z' }),
    row({ id: 'old', status: 'expired', closed_at: '2026-11-26T09:00:00Z' }),
  ];
  const signal_commitments = [
    { seq: 1, signal_id: 'old' },
    { seq: 2, signal_id: 'open' },
    { seq: 3, signal_id: 'later' },
  ];
  const signal_events = [
    { signal_id: 'open', kind: 'tp1_hit', seq: 5 },
    { signal_id: 'old', kind: 'expired', seq: 2 },
  ];

  it('reads the signals committed after the seq held and the open ones, each with its events', async () => {
    const { from, urls } = reader({ signals, signal_events, signal_commitments });
    const found = await fillAfter({ from }, 2, ['open']);
    expect(found?.seq).toBe(3);
    expect(found?.rows.map((r) => [r.row.id, r.kinds, r.version])).toEqual([
      ['open', ['tp1_hit'], 5],
      ['later', [], 0],
    ]);
    expect(urls).toEqual([
      '/rest/v1/signal_commitments?select=seq,signal_id&seq=gt.2&order=seq.asc&limit=500',
      '/rest/v1/signal_events?select=signal_id,kind,seq&signal_id=in.(later,open)&order=seq.asc',
      '/rest/v1/signals?select=*&id=in.(later,open)',
    ]);
  });

  it('reads nothing more when nothing is open and nothing was committed', async () => {
    const { from, urls } = reader({ signals, signal_events, signal_commitments });
    expect(await fillAfter({ from }, 3, [])).toEqual({ seq: 3, rows: [] });
    expect(urls).toHaveLength(1);
  });

  it('answers null for a gap longer than it reads, so the feed is read whole', async () => {
    const long = Array.from({ length: FILL_LIMIT + 1 }, (_, i) => ({ seq: i + 1, signal_id: `s${i}` }));
    const { from } = reader({ signals, signal_events, signal_commitments: long });
    expect(await fillAfter({ from }, 0, [])).toBeNull();
  });

  it('throws when a read is refused', async () => {
    const { from } = reader({ signals, signal_events, signal_commitments }, true);
    await expect(fillAfter({ from }, 0, [])).rejects.toBeTruthy();
  });
});
