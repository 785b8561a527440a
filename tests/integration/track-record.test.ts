// public.track_record() on the real stack: signals and events stored through the ingest RPCs the signals-ingest
// function calls, the record read as a visitor through supabase-js. Hand-computed ledgers, then generated ones
// checked against the rule's TypeScript model (src/lib/track-record.ts). The ledger is append-only, so the file
// keeps a copy of everything it stored and compares the whole record with the model of that copy; hand-computed
// ledgers close in months of their own so their month's figures are theirs alone.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { startTestStack, type TestStack } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type LedgerSignal, type TrackRecord, trackRecordOf } from '../../src/lib/track-record.ts';
import type { Database, Json } from '../../supabase/database.types.ts';

let t: TestStack;
/** Everything this file stored, in the engine's shape. */
const ledger: LedgerSignal[] = [];

beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

async function rpc(name: 'ingest_signal' | 'ingest_signal_event', body: Record<string, unknown>) {
  const args = name === 'ingest_signal' ? { signal: body as Json } : { event: body as Json };
  const { data, error } = await t.admin<Database>().rpc(name, args as never);
  expect(error).toBeNull();
  expect(data).toEqual({ outcome: 'stored' });
}

/** Stores a signal and its events, and keeps them in `ledger`. */
async function store(s: LedgerSignal & { issued_at: string }) {
  const { events, ...terms } = s;
  await rpc('ingest_signal', { ...terms, timeframe: 'H1' });
  for (const e of events) await rpc('ingest_signal_event', { id: uid('ev'), signal_id: s.id, ...e });
  ledger.push({ ...s });
}

async function record(): Promise<TrackRecord> {
  const { data, error } = await t.anon<Database>().rpc('track_record');
  expect(error).toBeNull();
  return data as unknown as TrackRecord;
}

/** Deep equality with numbers equal to 9 significant digits (SQL numerics against the model's doubles). */
function expectSame(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const scale = Math.max(1, Math.abs(expected));
    if (Math.abs(actual - expected) > 1e-9 * scale) expect(actual, path).toBe(expected);
    return;
  }
  if (expected && typeof expected === 'object' && actual && typeof actual === 'object') {
    expect(Object.keys(actual).sort(), path).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(expected))
      expectSame(
        (actual as Record<string, unknown>)[key],
        (expected as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
    return;
  }
  expect(actual, path).toEqual(expected);
}

describe('track_record(): hand-computed ledgers', () => {
  test('a BUY to TP3, a SELL stopped, a JPY pair with a moved stop, a manual close; expired and cancelled listed only', async () => {
    const tag = uid('h');
    const buy = {
      id: `${tag}-buy`,
      tier: 'growth' as const,
      pair: 'EUR/USD',
      direction: 'BUY' as const,
      entry: 1.085,
      stop_loss: 1.08,
      take_profit: [1.09, 1.095, 1.1] as [number, number, number],
      issued_at: '2019-03-01T08:00:00.000Z',
      events: [
        { kind: 'tp1_hit', price: 1.09, at: '2019-03-01T09:00:00.000Z' },
        // TP3 is the exit, whatever price the event reported.
        { kind: 'tp3_hit', price: 1.1003, at: '2019-03-01T10:00:00.000Z' },
      ],
    };
    const sell = {
      id: `${tag}-sell`,
      tier: 'foundation' as const,
      pair: 'GBP/USD',
      direction: 'SELL' as const,
      entry: 1.27,
      stop_loss: 1.275,
      take_profit: [1.265, 1.26, 1.255] as [number, number, number],
      issued_at: '2019-03-02T08:00:00.000Z',
      // Slipped past the stop: the exit is still the stop, 1.275.
      events: [{ kind: 'sl_hit', price: 1.2752, at: '2019-03-02T10:00:00.000Z' }],
    };
    const jpy = {
      id: `${tag}-jpy`,
      tier: 'momentum' as const,
      pair: 'USD/JPY',
      direction: 'BUY' as const,
      entry: 150,
      stop_loss: 149.5,
      take_profit: [150.5, 151, 151.5] as [number, number, number],
      issued_at: '2019-03-03T08:00:00.000Z',
      events: [
        { kind: 'tp1_hit', price: 150.5, at: '2019-03-03T09:00:00.000Z' },
        { kind: 'stop_moved', stop_loss: 150.2, at: '2019-03-03T09:30:00.000Z' },
        { kind: 'sl_hit', price: 150.18, at: '2019-03-03T10:00:00.000Z' },
      ],
    };
    const closed = {
      id: `${tag}-close`,
      tier: 'growth' as const,
      pair: 'EUR/USD',
      direction: 'SELL' as const,
      entry: 1.1,
      stop_loss: 1.105,
      take_profit: [1.095, 1.09, 1.085] as [number, number, number],
      issued_at: '2019-03-04T08:00:00.000Z',
      events: [{ kind: 'closed', price: 1.1031, at: '2019-03-04T10:00:00.000Z' }],
    };
    const expired = {
      ...buy,
      id: `${tag}-exp`,
      issued_at: '2019-03-05T08:00:00.000Z',
      events: [{ kind: 'expired', at: '2019-03-05T10:00:00.000Z' }],
    };
    const cancelled = {
      ...sell,
      id: `${tag}-can`,
      issued_at: '2019-03-06T08:00:00.000Z',
      events: [{ kind: 'cancelled', at: '2019-03-06T10:00:00.000Z' }],
    };
    const open = { ...buy, id: `${tag}-open`, issued_at: '2019-03-07T08:00:00.000Z', events: [] };
    for (const s of [buy, sell, jpy, closed, expired, cancelled, open]) await store(s);

    const r = await record();
    // +150 (TP3 1.1 − 1.085), −50 (SELL stopped at 1.275), +20 (USD/JPY stop moved to 150.2), −31 (SELL closed 1.1031).
    const pips = Object.fromEntries(r.signals.filter((s) => s.id.startsWith(tag)).map((s) => [s.id, s.pips]));
    expect(pips).toEqual({
      [buy.id]: 150,
      [sell.id]: -50,
      [jpy.id]: 20,
      [closed.id]: -31,
      [expired.id]: null,
      [cancelled.id]: null,
    });
    expect(r.signals.find((s) => s.id === jpy.id)).toMatchObject({ exit: 150.2, status: 'sl_hit' });
    expect(r.signals.find((s) => s.id === buy.id)).toMatchObject({ exit: 1.1, closed_at: '2019-03-01T10:00:00.000Z' });
    const month = r.months.find((m) => m.month === '2019-03');
    // Cumulative 150, 100, 120, 89: the deepest fall is 150 → 89.
    expectSame(month, {
      month: '2019-03',
      trades: 4,
      wins: 2,
      losses: 2,
      win_rate: 0.5,
      pips: 89,
      profit_factor: 170 / 81,
      max_drawdown_pips: -61,
    });
    expect(r.curve.map((p) => p.id).filter((id) => id.startsWith(tag))).toEqual([buy.id, sell.id, jpy.id, closed.id]);
    expectSame(r, trackRecordOf(ledger));
  });

  test('a first loss is a drawdown from zero; a month with no losses has no profit factor', async () => {
    const tag = uid('d');
    const base = {
      tier: 'foundation' as const,
      pair: 'EUR/JPY',
      direction: 'SELL' as const,
      entry: 160,
      stop_loss: 160.4,
      take_profit: [159.8, 159.6, 159.4] as [number, number, number],
    };
    await store({
      ...base,
      id: `${tag}-1`,
      issued_at: '2019-05-01T08:00:00.000Z',
      events: [{ kind: 'sl_hit', price: 160.4, at: '2019-05-01T09:00:00.000Z' }],
    });
    await store({
      ...base,
      id: `${tag}-2`,
      issued_at: '2019-05-02T08:00:00.000Z',
      events: [{ kind: 'tp3_hit', price: 159.4, at: '2019-05-02T09:00:00.000Z' }],
    });
    await store({
      ...base,
      id: `${tag}-3`,
      issued_at: '2019-06-02T08:00:00.000Z',
      events: [{ kind: 'tp3_hit', price: 159.4, at: '2019-06-02T09:00:00.000Z' }],
    });
    const r = await record();
    expectSame(
      r.months.find((m) => m.month === '2019-05'),
      {
        month: '2019-05',
        trades: 2,
        wins: 1,
        losses: 1,
        win_rate: 0.5,
        pips: 20,
        profit_factor: 1.5,
        max_drawdown_pips: -40,
      },
    );
    expect(r.months.find((m) => m.month === '2019-06')).toMatchObject({
      pips: 60,
      profit_factor: null,
      max_drawdown_pips: 0,
    });
    expectSame(r, trackRecordOf(ledger));
  });
});

const PAIRS = ['EUR/USD', 'GBP/USD', 'USD/JPY', 'EUR/JPY', 'AUD/CAD'];
let runs = 0;

/** A generated signal: levels whole tenths of a pip apart, events in time order, closing in 2025 or early 2026. */
const signalArb = fc
  .record({
    tier: fc.constantFrom('foundation', 'growth', 'momentum'),
    pair: fc.constantFrom(...PAIRS),
    direction: fc.constantFrom('BUY', 'SELL'),
    risk: fc.integer({ min: 50, max: 800 }),
    steps: fc.tuple(
      fc.integer({ min: 10, max: 900 }),
      fc.integer({ min: 10, max: 900 }),
      fc.integer({ min: 10, max: 900 }),
    ),
    reached: fc.integer({ min: 0, max: 2 }),
    moved: fc.option(fc.integer({ min: -700, max: 700 })),
    end: fc.constantFrom('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled', 'open'),
    closeAt: fc.integer({ min: -600, max: 600 }),
    startHour: fc.integer({ min: 0, max: 24 * 420 }),
  })
  .map((g) => {
    const pip = g.pair.endsWith('JPY') ? 0.01 : 0.0001;
    const entry = g.pair.endsWith('JPY') ? 150 : 1.2;
    const sign = g.direction === 'BUY' ? 1 : -1;
    const at = (tenths: number) => Number((entry + (sign * tenths * pip) / 10).toFixed(6));
    const [a, b, c] = g.steps;
    const start = Date.UTC(2025, 0, 1) + g.startHour * 3_600_000;
    const time = (n: number) => new Date(start + n * 3_600_000).toISOString();
    const events: LedgerSignal['events'] = [];
    for (const [i, kind] of ['tp1_hit', 'tp2_hit'].entries())
      if (i < g.reached) events.push({ kind, price: at([a, a + b][i] as number), at: time(events.length + 1) });
    if (g.moved !== null) events.push({ kind: 'stop_moved', stop_loss: at(g.moved), at: time(events.length + 1) });
    const when = time(events.length + 1 + (g.startHour % 700));
    if (g.end === 'tp3_hit') events.push({ kind: 'tp3_hit', price: at(a + b + c), at: when });
    if (g.end === 'sl_hit') events.push({ kind: 'sl_hit', price: at(g.moved ?? -g.risk), at: when });
    if (g.end === 'closed') events.push({ kind: 'closed', price: at(g.closeAt), at: when });
    if (g.end === 'expired' || g.end === 'cancelled') events.push({ kind: g.end, at: when });
    return {
      id: `g-${++runs}-${randomUUID().slice(0, 6)}`,
      tier: g.tier as LedgerSignal['tier'],
      pair: g.pair,
      direction: g.direction as LedgerSignal['direction'],
      entry,
      stop_loss: at(-g.risk),
      take_profit: [at(a), at(a + b), at(a + b + c)] as [number, number, number],
      issued_at: time(0),
      events,
    };
  });

describe('track_record(): properties over generated ledgers', () => {
  test('equals the rule’s model; win rates in [0, 1]; the curve ends at the total; drawdown ≤ 0; nothing expired counted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(signalArb, { minLength: 1, maxLength: 5 }), async (batch) => {
        for (const s of batch) await store(s);
        const r = await record();
        expectSame(r, trackRecordOf(ledger));
        for (const f of [r.overall, ...r.tiers, ...r.months]) {
          if (f.win_rate !== null) {
            expect(f.win_rate).toBeGreaterThanOrEqual(0);
            expect(f.win_rate).toBeLessThanOrEqual(1);
          }
          expect(f.max_drawdown_pips).toBeLessThanOrEqual(0);
          expect(f.wins + f.losses).toBe(f.trades);
        }
        expect(r.curve.at(-1)?.pips ?? 0).toBeCloseTo(r.overall.pips, 6);
        const uncounted = new Set(
          r.signals.filter((s) => s.status === 'expired' || s.status === 'cancelled').map((s) => s.id),
        );
        expect(r.curve.some((p) => uncounted.has(p.id))).toBe(false);
        expect(r.overall.trades).toBe(r.signals.length - uncounted.size);
      }),
      { numRuns: 12 },
    );
  });
});
