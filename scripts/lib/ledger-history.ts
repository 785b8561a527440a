// A closed ledger history to measure pages against: `count` signals over the months before `endMs`, across the
// three tiers and six pairs, each closed by its events (TP1, TP2 then TP3; a stop hit, some after a moved stop; a
// manual close in profit or at a loss; an expiry; a cancellation). The outcome of signal i is fixed by i, so every
// run posts the same ledger shape: what a page costs with a few months of history behind it, not a claim about
// results. scripts/lighthouse.ts posts it through signals-ingest before measuring /track-record.
import type { DemoStep } from '../signals-demo.ts';

const PAIRS = [
  { pair: 'EUR/USD', entry: 1.085 },
  { pair: 'GBP/USD', entry: 1.265 },
  { pair: 'USD/JPY', entry: 150.1 },
  { pair: 'AUD/USD', entry: 0.655 },
  { pair: 'EUR/JPY', entry: 162.4 },
  { pair: 'USD/CAD', entry: 1.398 },
] as const;
const TIERS = ['foundation', 'growth', 'momentum'] as const;
const TIMEFRAMES = ['M15', 'H1', 'H4', 'D1'] as const;

type Outcome = 'tp3' | 'sl' | 'moved-sl' | 'close-win' | 'close-loss' | 'expired' | 'cancelled';
/** One cycle of outcomes; signal i takes OUTCOMES[i % 10]. */
const OUTCOMES: Outcome[] = [
  'tp3',
  'sl',
  'tp3',
  'close-win',
  'moved-sl',
  'sl',
  'expired',
  'tp3',
  'close-loss',
  'cancelled',
];

const HOUR = 3_600_000;

/** The signed posts, in order: each signal.opened followed by its events (all dated in the past). */
export function ledgerHistory(runId: string, count: number, endMs: number): DemoStep['payload'][] {
  const posts: DemoStep['payload'][] = [];
  const stepMs = 8 * HOUR;
  const start = endMs - (endMs % 1000) - (count + 1) * stepMs;
  for (let i = 0; i < count; i++) {
    const { pair, entry } = PAIRS[i % PAIRS.length];
    const direction = i % 3 === 1 ? 'SELL' : 'BUY';
    const pip = pair.endsWith('/JPY') ? 0.01 : 0.0001;
    const decimals = pair.endsWith('/JPY') ? 3 : 5;
    /** entry moved by `n` pips in the trade's favour (negative: against). */
    const level = (n: number) => Number((entry + (direction === 'BUY' ? n : -n) * pip).toFixed(decimals));
    const id = `history-${runId}-${i + 1}`;
    const issued = start + i * stepMs;
    const at = (hours: number) => new Date(issued + hours * HOUR).toISOString();
    posts.push({
      type: 'signal.opened',
      id,
      tier: TIERS[i % TIERS.length],
      pair,
      direction,
      entry,
      stop_loss: level(-20),
      take_profit: [level(20), level(40), level(60)],
      timeframe: TIMEFRAMES[i % TIMEFRAMES.length],
      issued_at: new Date(issued).toISOString(),
    });
    let n = 0;
    const event = (kind: string, hours: number, extra: Record<string, number> = {}) =>
      posts.push({ type: 'signal.event', id: `${id}-e${++n}`, signal_id: id, kind, at: at(hours), ...extra });
    switch (OUTCOMES[i % OUTCOMES.length]) {
      case 'tp3':
        event('tp1_hit', 1, { price: level(20) });
        event('tp2_hit', 2, { price: level(40) });
        event('tp3_hit', 3, { price: level(60) });
        break;
      case 'sl':
        event('sl_hit', 2, { price: level(-20) });
        break;
      case 'moved-sl':
        event('tp1_hit', 1, { price: level(20) });
        event('stop_moved', 1.5, { stop_loss: entry });
        event('sl_hit', 3, { price: entry });
        break;
      case 'close-win':
        event('closed', 4, { price: level(12) });
        break;
      case 'close-loss':
        event('closed', 4, { price: level(-8) });
        break;
      case 'expired':
        event('expired', 6);
        break;
      case 'cancelled':
        event('cancelled', 0.5);
        break;
    }
  }
  return posts;
}
