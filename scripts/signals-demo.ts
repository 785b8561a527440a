// `npm run signals:demo [--fast]`: posts a scripted series of signals and their events through signals-ingest,
// signed as the engine signs them, so the members' feed on /dashboard moves on a local stack (`npm start`). A few
// signals per tier first, then their events over about two minutes (--fast: all at once). Ids are new on each run,
// so it runs any number of times. The API is SUPABASE_URL, PUBLIC_SUPABASE_URL or the local stack; the secret
// SIGNALS_INGEST_SECRET or the development value `npm start` prints.
import { fileURLToPath } from 'node:url';
import { sign, signingKey } from '../supabase/functions/signals-ingest/signature.ts';

/** `npm start`'s development secret (scripts/start.ts), used when SIGNALS_INGEST_SECRET is not set. */
export const DEV_SECRET = 'local-demo-signals-ingest-secret-not-for-production';

export interface DemoStep {
  /** Milliseconds after the start at which to post. */
  afterMs: number;
  payload: Record<string, unknown>;
}

type Kind = 'tp1_hit' | 'tp2_hit' | 'tp3_hit' | 'sl_hit' | 'stop_moved' | 'closed' | 'expired';

interface Plan {
  tier: 'foundation' | 'growth' | 'momentum';
  pair: string;
  direction: 'BUY' | 'SELL';
  entry: number;
  timeframe: string;
  /** What happens to it, in order: an event kind, or a manual close `closed` at entry + 10 pips. */
  events: Kind[];
}

// Stops 20 pips away, targets at 20, 40 and 60 pips.
const PLANS: Plan[] = [
  {
    tier: 'foundation',
    pair: 'EUR/USD',
    direction: 'BUY',
    entry: 1.085,
    timeframe: 'H1',
    events: ['tp1_hit', 'stop_moved', 'tp2_hit', 'tp3_hit'],
  },
  { tier: 'foundation', pair: 'USD/JPY', direction: 'SELL', entry: 150.1, timeframe: 'H4', events: ['tp1_hit'] },
  { tier: 'growth', pair: 'GBP/USD', direction: 'SELL', entry: 1.265, timeframe: 'M15', events: ['sl_hit'] },
  {
    tier: 'growth',
    pair: 'EUR/JPY',
    direction: 'BUY',
    entry: 162.4,
    timeframe: 'H1',
    events: ['tp1_hit', 'stop_moved', 'sl_hit'],
  },
  { tier: 'growth', pair: 'USD/CHF', direction: 'BUY', entry: 0.882, timeframe: 'D1', events: [] },
  { tier: 'momentum', pair: 'AUD/USD', direction: 'BUY', entry: 0.655, timeframe: 'M30', events: ['closed'] },
  { tier: 'momentum', pair: 'USD/CAD', direction: 'SELL', entry: 1.398, timeframe: 'H4', events: [] },
  { tier: 'momentum', pair: 'NZD/USD', direction: 'SELL', entry: 0.592, timeframe: 'M5', events: ['expired'] },
];

const pip = (pair: string) => (pair.endsWith('/JPY') ? 0.01 : 0.0001);
/** entry moved by `n` pips in the trade's favour (negative: against), to the pair's decimals. */
const level = (p: Plan, n: number) =>
  Number((p.entry + (p.direction === 'BUY' ? 1 : -1) * n * pip(p.pair)).toFixed(p.pair.endsWith('/JPY') ? 3 : 5));

/**
 * The series for one run: every signal.opened at the start, then the events spread over `spanMs` (0: all at once),
 * each dated at its own time. `runId` makes the ids unique per run.
 */
export function buildDemoScript(runId: string, startMs: number, spanMs = 120_000): DemoStep[] {
  const issuedAt = new Date(startMs - (startMs % 1000)).toISOString();
  const steps: DemoStep[] = PLANS.map((p, i) => ({
    afterMs: 0,
    payload: {
      type: 'signal.opened',
      id: `demo-${runId}-${i + 1}`,
      tier: p.tier,
      pair: p.pair,
      direction: p.direction,
      entry: p.entry,
      stop_loss: level(p, -20),
      take_profit: [level(p, 20), level(p, 40), level(p, 60)],
      timeframe: p.timeframe,
      issued_at: issuedAt,
    },
  }));
  // Events take turns across the signals (first events of all, then second events...), evenly over the span.
  const queue: { plan: Plan; index: number; kind: Kind; k: number }[] = [];
  const longest = Math.max(...PLANS.map((p) => p.events.length));
  for (let k = 0; k < longest; k++) {
    PLANS.forEach((plan, index) => {
      const kind = plan.events[k];
      if (kind) queue.push({ plan, index, kind, k });
    });
  }
  queue.forEach(({ plan, index, kind, k }, n) => {
    const afterMs = Math.round(((n + 1) * spanMs) / queue.length);
    // Dated when posted; with --fast a millisecond apart from the second of issue, never in the future, in order.
    const at = new Date(startMs - (startMs % 1000) + Math.max(afterMs, n + 1)).toISOString();
    const price: Record<Kind, number | undefined> = {
      tp1_hit: level(plan, 20),
      tp2_hit: level(plan, 40),
      tp3_hit: level(plan, 60),
      // After a stop_moved the stop is at entry.
      sl_hit: plan.events.includes('stop_moved') ? plan.entry : level(plan, -20),
      stop_moved: undefined,
      closed: level(plan, 10),
      expired: undefined,
    };
    steps.push({
      afterMs,
      payload: {
        type: 'signal.event',
        id: `demo-${runId}-${index + 1}-e${k + 1}`,
        signal_id: `demo-${runId}-${index + 1}`,
        kind,
        ...(price[kind] === undefined ? {} : { price: price[kind] }),
        ...(kind === 'stop_moved' ? { stop_loss: plan.entry } : {}),
        at,
      },
    });
  });
  return steps;
}

/** Posts one payload signed with `key`; the function's status and answer. */
export async function postSigned(apiUrl: string, key: CryptoKey, payload: unknown) {
  const raw = JSON.stringify(payload);
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${apiUrl.replace(/\/+$/, '')}/functions/v1/signals-ingest`, {
    method: 'POST',
    body: raw,
    headers: {
      'Content-Type': 'application/json',
      'X-Signal-Timestamp': ts,
      'X-Signal-Signature': await sign(key, ts, raw),
    },
  });
  return { status: res.status, body: await res.text() };
}

async function main(): Promise<void> {
  const fast = process.argv.includes('--fast');
  const apiUrl = process.env.SUPABASE_URL || process.env.PUBLIC_SUPABASE_URL || 'http://127.0.0.1:54321';
  const key = await signingKey(process.env.SIGNALS_INGEST_SECRET || DEV_SECRET);
  const start = Date.now();
  const runId = start.toString(36);
  const steps = buildDemoScript(runId, start, fast ? 0 : 120_000);
  console.log(`Posting ${steps.length} signals and events to ${apiUrl}/functions/v1/signals-ingest (run ${runId})`);
  for (const step of steps) {
    const wait = start + step.afterMs - Date.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    const { status, body } = await postSigned(apiUrl, key, step.payload);
    const p = step.payload;
    const what = p.type === 'signal.opened' ? `${p.id} ${p.tier} ${p.pair} ${p.direction}` : `${p.signal_id} ${p.kind}`;
    console.log(`  ${status} ${what}`);
    if (status !== 201 && status !== 200) {
      throw new Error(`signals-ingest answered ${status}: ${body}`);
    }
  }
  console.log('Done: the feed on /dashboard shows them after Refresh.');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
