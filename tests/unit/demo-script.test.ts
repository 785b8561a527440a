import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apportion,
  DEMO_OPENING_WINS,
  DEMO_PAIRS,
  DEMO_TARGET_PENCE,
  DEMO_TRADE_COUNT,
  demoScript,
  demoTimeline,
  demoWinBounds,
  formatPounds,
  orderProfits,
  seededRandom,
  summarise,
} from '../../src/lib/demo-script.ts';

const seed = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const runningTotals = (profits: readonly number[]) => {
  let running = 0;
  return profits.map((p) => {
    running += p;
    return running;
  });
};

describe('demoScript, for any seed', () => {
  it('totals exactly £254.00 (25,400 pence, all whole pence)', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const trades = demoScript(s);
        expect(trades.every((t) => Number.isInteger(t.profit))).toBe(true);
        expect(trades.reduce((sum, t) => sum + t.profit, 0)).toBe(DEMO_TARGET_PENCE);
        expect(formatPounds(summarise(trades).total)).toBe('+£254.00');
      }),
    );
  });

  it('opens with three winners, then the running total never drops below zero', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const trades = demoScript(s);
        expect(trades.slice(0, DEMO_OPENING_WINS).every((t) => t.profit > 0)).toBe(true);
        expect(runningTotals(trades.map((t) => t.profit)).every((total) => total >= 0)).toBe(true);
      }),
    );
  });

  it('has 68 trades with ids 1..68, known pairs, BUY or SELL and a quoted entry price', () => {
    const pairs = new Set(DEMO_PAIRS.map(([pair]) => pair));
    fc.assert(
      fc.property(seed, (s) => {
        const trades = demoScript(s);
        expect(trades).toHaveLength(DEMO_TRADE_COUNT);
        expect(trades.map((t) => t.id)).toEqual(Array.from({ length: DEMO_TRADE_COUNT }, (_, i) => i + 1));
        for (const t of trades) {
          expect(pairs.has(t.pair)).toBe(true);
          expect(['BUY', 'SELL']).toContain(t.type);
          expect(t.entry).toMatch(t.pair.endsWith('JPY') ? /^\d+\.\d{3}$/ : /^\d\.\d{5}$/);
        }
      }),
    );
  });

  it('marks a trade won exactly when its profit is positive, and losing otherwise', () => {
    fc.assert(
      fc.property(seed, (s) => {
        for (const t of demoScript(s)) {
          expect(t.profit).not.toBe(0);
          expect(t.tradeType).toBe(t.profit > 0 ? 'win' : 'loss');
          expect(t.status).toBe(t.profit > 0 ? 'winning' : 'losing');
        }
      }),
    );
  });

  it('keeps the total exact for other counts and targets too', () => {
    fc.assert(
      fc.property(
        seed,
        fc.integer({ min: 3, max: 120 }),
        fc.integer({ min: 120, max: 100_000 }),
        (s, count, target) => {
          const trades = demoScript(s, count, target);
          const { min, max } = demoWinBounds(count);
          expect(trades).toHaveLength(count);
          expect(summarise(trades).won).toBeGreaterThanOrEqual(min);
          expect(summarise(trades).won).toBeLessThanOrEqual(max);
          expect(summarise(trades).total).toBe(target);
          expect(runningTotals(trades.map((t) => t.profit)).every((total) => total >= 0)).toBe(true);
        },
      ),
    );
  });

  it('mixes winners and losers, both directions and several pairs (not a degenerate script)', () => {
    fc.assert(
      fc.property(seed, (s) => {
        const trades = demoScript(s);
        const won = summarise(trades).won;
        expect(won).toBeGreaterThanOrEqual(41);
        expect(won).toBeLessThanOrEqual(61);
        expect(new Set(trades.map((t) => t.type)).size).toBe(2);
        expect(new Set(trades.map((t) => t.pair)).size).toBeGreaterThan(10);
      }),
    );
  });

  // The bounds hold by construction (demoWinBounds); this samples seeds, with room for a loaded machine.
  it('wins at least 41 and at most 61 of its 68 trades (60% up, 10% losers) over 10,000 seeds', {
    timeout: 120_000,
  }, () => {
    expect(demoWinBounds(DEMO_TRADE_COUNT)).toEqual({ min: 41, max: 61 });
    fc.assert(
      fc.property(seed, (s) => {
        const won = summarise(demoScript(s)).won;
        expect(won).toBeGreaterThanOrEqual(41);
        expect(won).toBeLessThanOrEqual(61);
      }),
      { numRuns: 10_000 },
    );
  });

  it('seed 1978707259, whose draws give 34 winners, still wins 41 of 68 and totals +£254.00', () => {
    const trades = demoScript(1978707259);
    const summary = summarise(trades);
    expect(summary.won).toBe(41);
    expect(formatPounds(summary.total)).toBe('+£254.00');
    expect(trades.slice(0, DEMO_OPENING_WINS).every((t) => t.profit > 0)).toBe(true);
    expect(runningTotals(trades.map((t) => t.profit)).every((total) => total >= 0)).toBe(true);
  });

  it('is the same script for the same seed and a different one for another seed', () => {
    expect(demoScript(42)).toEqual(demoScript(42));
    expect(demoScript(42)).not.toEqual(demoScript(43));
  });

  it('refuses fewer trades than the opening winners, or a target under 1p a trade', () => {
    expect(() => demoScript(1, 2)).toThrow(RangeError);
    expect(() => demoScript(1, 68, 67)).toThrow(RangeError);
  });
});

describe.each([
  [3, 3, 3],
  [4, 3, 3],
  [10, 6, 9],
  [68, 41, 61],
  [100, 60, 90],
  [120, 72, 108],
])('demoWinBounds(%i)', (count, min, max) => {
  it(`is ${min}..${max} winners: 60% rounded up, at least 10% losers rounded up, never under the opening winners`, () => {
    expect(demoWinBounds(count)).toEqual({ min, max });
  });
});

describe('apportion', () => {
  it('gives every weight at least 1p and sums to the total exactly', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 100 }),
        fc.nat(1e6),
        (w, extra) => {
          const total = w.length + extra;
          const shares = apportion(total, w);
          expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
          expect(shares.every((share) => Number.isInteger(share) && share >= 1)).toBe(true);
        },
      ),
    );
  });

  it('splits in proportion', () => {
    expect(apportion(103, [1, 1, 1])).toEqual([35, 34, 34]);
    expect(apportion(12, [1, 3])).toEqual([4, 8]);
  });
});

describe('orderProfits', () => {
  it.each([
    [
      [-500, 100, 200, 300, 400],
      [100, 200, 300, -500, 400],
    ],
    [
      [-700, 100, 200, 300, 400],
      [100, 200, 300, 400, -700],
    ],
    [
      [100, -50, 200, -400, 300, 100],
      [100, 200, 300, -50, -400, 100],
    ],
    [
      [-100, -100, 50, 60, 70, 200],
      [50, 60, 70, -100, 200, -100],
    ],
  ])('%j -> %j', (input, expected) => {
    expect(orderProfits(input, 3)).toEqual(expected);
  });
});

describe('summarise', () => {
  it('counts trades, winners, the total and the rounded average', () => {
    const trades = demoScript(7).slice(0, 3);
    const total = trades[0].profit + trades[1].profit + trades[2].profit;
    expect(summarise(trades)).toEqual({ total, active: 3, average: Math.round(total / 3), won: 3 });
    expect(summarise([])).toEqual({ total: 0, active: 0, average: 0, won: 0 });
  });

  it('averages the full script to £3.74 (25,400p over 68 trades)', () => {
    expect(summarise(demoScript(1)).average).toBe(374);
  });
});

describe.each([
  [25_400, true, '+£254.00'],
  [-310, true, '−£3.10'],
  [5, true, '+£0.05'],
  [0, true, '£0.00'],
  [1234, false, '£12.34'],
  [-1234, false, '−£12.34'],
])('formatPounds(%i, %s)', (pence, signed, text) => {
  it(`is ${text}`, () => expect(formatPounds(pence, signed)).toBe(text));
});

describe('demoTimeline', () => {
  it('puts a trade every 600 ms, stage 1 a second after the last and stage 2 two seconds later', () => {
    const t = demoTimeline(68);
    expect([t.tradeAt(0), t.tradeAt(1), t.tradeAt(67)]).toEqual([600, 1200, 40_800]);
    expect(t.lastTrade).toBe(40_800);
    expect(t.stage1).toBe(41_800);
    expect(t.stage2).toBe(43_800);
  });
});

describe('seededRandom', () => {
  it('stays in [0, 1) and repeats for a seed', () => {
    const a = seededRandom(9);
    const b = seededRandom(9);
    for (let i = 0; i < 1000; i += 1) {
      const x = a();
      expect(x).toBe(b());
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});
