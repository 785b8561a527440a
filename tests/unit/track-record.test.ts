// @vitest-environment happy-dom
// The track record's rule in TypeScript (src/lib/track-record.ts): figures of a pip series, the replay of a ledger,
// and the formatting the page shows. The SQL function is checked against the same model in
// tests/integration/track-record.test.ts.
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { FIRST_ROWS, loadTrackRecord, render } from '../../src/islands/TrackRecord.ts';
import { TRACK_RECORD_LABEL_KEYS, type TrackRecordLabels } from '../../src/islands/track-record/labels.ts';
import {
  figuresOf,
  formatFactor,
  formatPips,
  formatRate,
  type LedgerSignal,
  pipSize,
  pipsOf,
  trackRecordOf,
} from '../../src/lib/track-record.ts';

describe('the rule', () => {
  test('pip size 0.01 for pairs quoted in JPY, 0.0001 otherwise; SELL pips reversed', () => {
    expect(pipSize('USD/JPY')).toBe(0.01);
    expect(pipSize('JPY/USD')).toBe(0.0001);
    expect(pipsOf('EUR/USD', 'BUY', 1.085, 1.1)).toBeCloseTo(150, 9);
    expect(pipsOf('GBP/USD', 'SELL', 1.27, 1.275)).toBeCloseTo(-50, 9);
    expect(pipsOf('USD/JPY', 'SELL', 150, 149.7)).toBeCloseTo(30, 9);
  });

  test('figures of 150, −50, 20, −31: half won, 89 pips, factor 170/81, drawdown −61', () => {
    expect(figuresOf([150, -50, 20, -31])).toEqual({
      trades: 4,
      wins: 2,
      losses: 2,
      win_rate: 0.5,
      pips: 89,
      profit_factor: 170 / 81,
      max_drawdown_pips: -61,
    });
    expect(figuresOf([])).toMatchObject({ trades: 0, win_rate: null, profit_factor: null, max_drawdown_pips: 0 });
    expect(figuresOf([0, 10])).toMatchObject({ wins: 1, losses: 1, profit_factor: null, max_drawdown_pips: 0 });
  });

  test('a moved stop is the exit of sl_hit; expired is listed, not counted', () => {
    const base = { tier: 'growth', pair: 'USD/JPY', direction: 'BUY', entry: 150, stop_loss: 149.5 } as const;
    const ledger: LedgerSignal[] = [
      {
        ...base,
        id: 'a',
        take_profit: [150.5, 151, 151.5],
        events: [
          { kind: 'stop_moved', stop_loss: 150.2, at: '2026-01-01T01:00:00.000Z' },
          { kind: 'sl_hit', price: 150.18, at: '2026-01-01T02:00:00.000Z' },
        ],
      },
      {
        ...base,
        id: 'b',
        take_profit: [150.5, 151, 151.5],
        events: [{ kind: 'expired', at: '2026-01-02T00:00:00.000Z' }],
      },
      { ...base, id: 'c', take_profit: [150.5, 151, 151.5], events: [] },
    ];
    const r = trackRecordOf(ledger);
    expect(r.signals.map((s) => [s.id, s.exit, s.pips === null ? null : Math.round(s.pips)])).toEqual([
      ['b', null, null],
      ['a', 150.2, 20],
    ]);
    expect(r.overall.trades).toBe(1);
    expect(r.period).toEqual({ first_close: '2026-01-01T02:00:00.000Z', last_close: '2026-01-01T02:00:00.000Z' });
  });

  test('any pip series: win rate in [0, 1], the curve’s end is the total, drawdown between −Σ|losses| and 0', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 }), (pips) => {
        const f = figuresOf(pips);
        if (f.win_rate !== null) expect(f.win_rate >= 0 && f.win_rate <= 1).toBe(true);
        expect(f.pips).toBe(pips.reduce((a, b) => a + b, 0));
        expect(f.max_drawdown_pips).toBeLessThanOrEqual(0);
        expect(f.max_drawdown_pips).toBeGreaterThanOrEqual(pips.filter((p) => p < 0).reduce((a, b) => a + b, 0));
        expect(f.wins + f.losses).toBe(f.trades);
      }),
      { numRuns: 200 },
    );
  });
});

describe('formatting', () => {
  test('pips with a sign and one decimal, rates as percentages, factors to two decimals', () => {
    expect([formatPips(150), formatPips(-31), formatPips(0), formatPips(-0.04)]).toEqual([
      '+150.0',
      '\u221231.0',
      '0.0',
      '0.0',
    ]);
    expect([formatRate(0.5), formatRate(2 / 3), formatRate(null)]).toEqual(['50%', '67%', '\u2014']);
    expect([formatFactor(170 / 81), formatFactor(null)]).toEqual(['2.10', '\u2014']);
  });
});

describe("the page's island", () => {
  // Each label set to its own key, so what shows reads as the key.
  const t = Object.fromEntries(TRACK_RECORD_LABEL_KEYS.map((k) => [k, k])) as TrackRecordLabels;
  const shell = () => {
    document.body.innerHTML = `<div data-track-record data-state="loading"><span data-part="period"></span>
      <p data-part="status">loading</p><section data-part="figures"><table><tbody data-part="figures-body"></tbody></table></section>
      <section data-part="curve"><div data-part="curve-svg"></div></section>
      <section data-part="signals"><table><tbody data-part="signals-body"></tbody></table>
      <button type="button" data-part="show-all" hidden></button></section></div>`;
    return document.querySelector('[data-track-record]') as HTMLElement;
  };

  test('nothing closed yet: says so and hides the figures, the curve and the table', () => {
    const root = shell();
    render(root, trackRecordOf([]), t);
    expect(root.dataset.state).toBe('empty');
    expect(root.querySelector('[data-part="status"]')?.textContent).toBe('empty');
    for (const part of ['figures', 'curve', 'signals'])
      expect(root.querySelector(`[data-part="${part}"]`)?.hasAttribute('hidden')).toBe(true);
  });

  test('a record: the overall and tier rows, the curve and one row per final signal', () => {
    const root = shell();
    const tp3: LedgerSignal = {
      id: 'a',
      tier: 'growth',
      pair: 'EUR/USD',
      direction: 'BUY',
      entry: 1.085,
      stop_loss: 1.08,
      take_profit: [1.09, 1.095, 1.1],
      events: [{ kind: 'tp3_hit', price: 1.1, at: '2026-01-01T10:00:00.000Z' }],
    };
    const expired = { ...tp3, id: 'b', events: [{ kind: 'expired', at: '2026-01-02T10:00:00.000Z' }] };
    render(root, trackRecordOf([tp3, expired]), t);
    expect(root.dataset.state).toBe('ready');
    expect(root.querySelector('[data-part="status"]')?.textContent).toBe('period');
    expect(root.querySelector<HTMLButtonElement>('[data-part="show-all"]')?.hidden).toBe(true);
    const cells = (selector: string) =>
      [...root.querySelectorAll(`${selector} tr`)].map((r) => [...r.children].map((c) => c.textContent));
    const rows = cells('[data-part="figures-body"]');
    expect(rows).toEqual([
      ['overall', '1', '1', '0', '100%', '+150.0', '\u2014', '0.0'],
      ['foundation', '0', '0', '0', '\u2014', '0.0', '\u2014', '0.0'],
      ['growth', '1', '1', '0', '100%', '+150.0', '\u2014', '0.0'],
      ['momentum', '0', '0', '0', '\u2014', '0.0', '\u2014', '0.0'],
    ]);
    expect(root.querySelector('svg polyline')?.getAttribute('points')?.split(' ')).toHaveLength(2);
    const signals = cells('[data-part="signals-body"]');
    expect(signals).toEqual([
      ['2026-01-02 10:00', 'growth', 'EUR/USD', 'BUY', '1.085', '\u2014', 'expired', 'notCounted'],
      ['2026-01-01 10:00', 'growth', 'EUR/USD', 'BUY', '1.085', '1.1', 'tp3Hit', '+150.0'],
    ]);
  });

  test('a long history: the newest rows first, every row after Show all', () => {
    const root = shell();
    const count = FIRST_ROWS + 7;
    const history: LedgerSignal[] = Array.from({ length: count }, (_, i) => ({
      id: `s${i}`,
      tier: 'foundation',
      pair: 'EUR/USD',
      direction: 'BUY',
      entry: 1.085,
      stop_loss: 1.08,
      take_profit: [1.09, 1.095, 1.1],
      events: [{ kind: 'sl_hit', price: 1.08, at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }],
    }));
    render(root, trackRecordOf(history), t);
    const body = root.querySelector('[data-part="signals-body"]') as HTMLElement;
    const more = root.querySelector('[data-part="show-all"]') as HTMLButtonElement;
    expect(body.querySelectorAll('tr')).toHaveLength(FIRST_ROWS);
    expect(body.querySelector('th')?.textContent).toBe(`2026-01-01 00:${String(count - 1).padStart(2, '0')}`);
    expect(more.hidden).toBe(false);
    expect(more.textContent).toBe('showAll');
    more.click();
    expect(body.querySelectorAll('tr')).toHaveLength(count);
    expect(body.querySelector('tr:last-child th')?.textContent).toBe('2026-01-01 00:00');
    expect(more.hidden).toBe(true);
  });

  describe('when the API does not answer the record', () => {
    afterEach(() => vi.unstubAllGlobals());
    for (const [what, answer] of [
      ['a 503', async () => new Response('{"message":"name resolution failed"}', { status: 503 })],
      ['no connection', async () => Promise.reject(new TypeError('fetch failed'))],
    ] as const) {
      test(`${what}: says it could not load, as an alert, and shows no figures`, async () => {
        const root = shell();
        root.dataset.labels = JSON.stringify(t);
        vi.stubGlobal('fetch', answer);
        await loadTrackRecord(root);
        const status = root.querySelector('[data-part="status"]');
        expect(root.dataset.state).toBe('error');
        expect(status?.textContent).toBe('loadFailed');
        expect(status?.getAttribute('role')).toBe('alert');
        expect(root.querySelectorAll('[data-part="signals-body"] tr')).toHaveLength(0);
      });
    }
  });
});
