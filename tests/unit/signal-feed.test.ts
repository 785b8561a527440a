import { PostgrestClient } from '@supabase/postgrest-js';
import { describe, expect, it } from 'vitest';
import { pipSize, pips } from '../../src/lib/signal-format.ts';
import {
  CSV_COLUMNS,
  createSignalFeed,
  filterHistory,
  historyCsv,
  historyPairs,
  toFeedSignal,
} from '../../src/stores/signal-feed.ts';
import type { Database, Tables } from '../../supabase/database.types.ts';

/** A `signals` row as PostgREST returns it; the terms of a EUR/USD BUY unless given. */
function row(over: Partial<Tables<'signals'>> = {}): Tables<'signals'> {
  return {
    id: 's-1',
    tier: 'growth',
    pair: 'EUR/USD',
    direction: 'BUY',
    entry: 1.085,
    stop_loss: 1.08,
    current_stop: 1.08,
    tp1: 1.09,
    tp2: 1.095,
    tp3: 1.1,
    timeframe: 'H1',
    risk_reward: 1,
    issued_at: '2026-11-26T10:00:00+00:00',
    received_at: '2026-11-26T10:00:01+00:00',
    status: 'active',
    closed_at: null,
    exit_price: null,
    signal_canonical_json: null,
    ...over,
  };
}

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

/** A real postgrest-js client whose HTTP answers with `tables`' rows, filtered by status as the URL asks. */
function reader(
  tables: { signals: Tables<'signals'>[]; signal_events: Partial<Tables<'signal_events'>>[] },
  fail = false,
) {
  const urls: string[] = [];
  const client = new PostgrestClient<Database>('http://rest.test/rest/v1', {
    fetch: async (input) => {
      const url = new URL(String(input));
      urls.push(decodeURIComponent(url.pathname + url.search));
      if (fail) return new Response(JSON.stringify({ message: 'permission denied' }), { status: 401 });
      const table = url.pathname.split('/').pop() as keyof typeof tables;
      let rows: unknown[] = tables[table];
      const status = url.searchParams.get('status');
      if (status) {
        const list = /in\.\((.*)\)/.exec(status)?.[1].split(',') ?? [];
        const keep = !status.startsWith('not.');
        rows = (rows as Tables<'signals'>[]).filter((r) => list.includes(r.status) === keep);
      }
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
    { signal_id: 'open-new', kind: 'stop_moved' },
    { signal_id: 'open-old', kind: 'tp1_hit' },
  ];

  it('reads open signals newest first with their events, and closed ones into the history', async () => {
    const { from, urls } = reader({ signals, signal_events: events });
    const feed = createSignalFeed({ from });
    expect(feed.$feed.get().status).toBe('idle');
    await feed.refresh();
    const state = feed.$feed.get();
    expect(state.status).toBe('loaded');
    expect(state.open.map((s) => [s.id, s.hits[0]])).toEqual([
      ['open-new', false],
      ['open-old', true],
    ]);
    expect(feed.$history.get().map((s) => s.id)).toEqual(['done']);
    expect(urls).toContain('/rest/v1/signals?select=*&status=in.(active,tp1_hit,tp2_hit)&order=issued_at.desc');
    expect(urls).toContain(
      '/rest/v1/signal_events?select=signal_id,kind&signal_id=in.(open-new,open-old)&order=seq.asc',
    );
  });

  it('filters the history and keeps what it showed when a refresh fails', async () => {
    const { from } = reader({ signals, signal_events: events });
    const feed = createSignalFeed({ from });
    await feed.refresh();
    feed.setFilter('result', 'loss');
    expect(feed.$history.get()).toEqual([]);
    feed.setFilter('result', 'win');
    expect(feed.$history.get().map((s) => s.id)).toEqual(['done']);

    const down = createSignalFeed(reader({ signals, signal_events: events }, true));
    await down.refresh();
    expect(down.$feed.get()).toEqual({ status: 'error', open: [], closed: [] });
  });
});
