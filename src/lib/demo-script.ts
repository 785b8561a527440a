// The Live Trading Demo's script: a scripted session of forex trades whose profits add up to exactly
// £254.00. Money is whole pence throughout so the total is exact; pounds are only for display.

export type TradeType = 'BUY' | 'SELL';

export interface DemoTrade {
  id: number;
  pair: string;
  type: TradeType;
  /** Entry price as quoted: 3 decimals for JPY pairs, 5 for the others. */
  entry: string;
  /** Profit in pence: above 0 for a winner, below 0 for a loser. */
  profit: number;
  status: 'winning' | 'losing';
  tradeType: 'win' | 'loss';
}

/** One trade appears every 600 ms. */
export const DEMO_INTERVAL_MS = 600;
/** Stage 1 comes about 1 s after the last trade; stage 2 (trades won, banner) about 2 s after that. */
export const DEMO_STAGE1_DELAY_MS = 1000;
export const DEMO_STAGE2_DELAY_MS = 2000;
export const DEMO_TRADE_COUNT = 68;
export const DEMO_TARGET_PENCE = 25_400;
/** The first trades are winners; after them the running total never drops below zero. */
export const DEMO_OPENING_WINS = 3;
/**
 * The banner says 'High percentage of trades profitable': whatever the draws, at least 60% of the trades win
 * (41 of 68) and at least 10% lose (7 of 68), so the session is never a coin toss nor all winners.
 */
export const DEMO_MIN_WIN_PERCENT = 60;
export const DEMO_MIN_LOSS_PERCENT = 10;

/** Pairs the script draws from, with a typical price to quote entries around. */
export const DEMO_PAIRS: readonly (readonly [pair: string, price: number])[] = [
  ['EUR/USD', 1.085],
  ['GBP/USD', 1.268],
  ['USD/JPY', 151.4],
  ['USD/CHF', 0.884],
  ['AUD/USD', 0.657],
  ['USD/CAD', 1.357],
  ['NZD/USD', 0.611],
  ['EUR/GBP', 0.855],
  ['EUR/JPY', 164.2],
  ['GBP/JPY', 191.9],
  ['EUR/CHF', 0.959],
  ['AUD/JPY', 99.4],
  ['EUR/AUD', 1.651],
  ['GBP/AUD', 1.93],
  ['EUR/CAD', 1.472],
  ['GBP/CAD', 1.721],
  ['AUD/CAD', 0.892],
  ['AUD/NZD', 1.075],
  ['NZD/JPY', 92.5],
  ['CAD/JPY', 111.6],
  ['CHF/JPY', 171.3],
  ['GBP/CHF', 1.121],
  ['EUR/NZD', 1.776],
  ['GBP/NZD', 2.076],
];

/** A small seedable PRNG (mulberry32): the same seed gives the same script. Returns numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (random: () => number, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/**
 * Shares `total` pence among `weights` in proportion, each share at least 1 pence, summing to exactly `total`
 * (largest remainder). Needs total >= weights.length.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const spare = total - weights.length;
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (spare * w) / sum);
  const shares = exact.map((x) => Math.floor(x));
  let left = spare - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of byRemainder) {
    if (left <= 0) break;
    shares[i] += 1;
    left -= 1;
  }
  return shares.map((share) => share + 1);
}

/**
 * Orders profits so the first `openingWins` are winners and every running total from there on stays at or
 * above zero: a loser that would take the total below zero waits until a winner has gone first.
 */
export function orderProfits(profits: readonly number[], openingWins: number): number[] {
  const pending = [...profits];
  const ordered: number[] = [];
  let running = 0;
  const take = (index: number) => {
    const [profit] = pending.splice(index, 1);
    ordered.push(profit);
    running += profit;
  };
  for (let i = 0; i < openingWins; i += 1) take(pending.findIndex((p) => p > 0));
  while (pending.length > 0) {
    const fits = pending[0] > 0 || running + pending[0] >= 0;
    const winner = pending.findIndex((p) => p > 0);
    take(fits || winner < 0 ? 0 : winner);
  }
  return ordered;
}

/**
 * How many of `count` trades win, at least and at most: 60% rounded up (never fewer than the opening winners),
 * and all but 10% rounded up (never fewer than the minimum). Whole-number arithmetic, so 68 gives exactly 41..61.
 */
export function demoWinBounds(count: number): { min: number; max: number } {
  const min = Math.max(DEMO_OPENING_WINS, Math.ceil((count * DEMO_MIN_WIN_PERCENT) / 100));
  const max = Math.max(min, count - Math.ceil((count * DEMO_MIN_LOSS_PERCENT) / 100));
  return { min, max };
}

function entryPrice(random: () => number, pair: string, price: number): string {
  const digits = pair.endsWith('JPY') ? 3 : 5;
  // Within about half a percent of the typical price.
  return (price * (1 + (random() - 0.5) / 100)).toFixed(digits);
}

/**
 * The demo's trades for a seed: `count` trades, random pairs and directions, about seven in ten winners and
 * never a count outside `demoWinBounds(count)`, profits scaled so they total exactly `targetPence`, ordered so
 * the running total stays non-negative after the opening winners.
 */
export function demoScript(seed: number, count = DEMO_TRADE_COUNT, targetPence = DEMO_TARGET_PENCE): DemoTrade[] {
  if (count < DEMO_OPENING_WINS || targetPence < count) {
    throw new RangeError('demoScript needs at least 3 trades and a target of at least 1p per trade');
  }
  const random = seededRandom(seed);
  // Each trade after the opening winners wins with probability 0.7; the count is then held within the bounds,
  // which changes nothing for about 98 seeds in 100 (a binomial draw rarely strays that far from 7 in 10).
  let drawnWins = DEMO_OPENING_WINS;
  for (let i = DEMO_OPENING_WINS; i < count; i += 1) if (random() < 0.7) drawnWins += 1;
  const bounds = demoWinBounds(count);
  const winCount = Math.min(Math.max(drawnWins, bounds.min), bounds.max);
  const winWeights = Array.from({ length: winCount }, () => between(random, 300, 2000));
  const losses = Array.from({ length: count - winCount }, () => -between(random, 200, 1500));
  const lossTotal = -losses.reduce((a, b) => a + b, 0);
  // Winners take the target plus whatever the losers gave back, in proportion to their raw size.
  const winners = apportion(targetPence + lossTotal, winWeights);

  // Shuffle (Fisher-Yates) before ordering, so winners and losers interleave.
  const profits = [...winners, ...losses];
  for (let i = profits.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [profits[i], profits[j]] = [profits[j], profits[i]];
  }

  return orderProfits(profits, DEMO_OPENING_WINS).map((profit, i) => {
    const [pair, price] = DEMO_PAIRS[Math.floor(random() * DEMO_PAIRS.length)];
    const win = profit > 0;
    return {
      id: i + 1,
      pair,
      type: random() < 0.5 ? 'BUY' : 'SELL',
      entry: entryPrice(random, pair, price),
      profit,
      status: win ? 'winning' : 'losing',
      tradeType: win ? 'win' : 'loss',
    };
  });
}

export interface DemoSummary {
  /** Total profit in pence. */
  total: number;
  /** Trades shown so far. */
  active: number;
  /** Average profit per trade in pence, rounded; 0 before the first trade. */
  average: number;
  won: number;
}

export function summarise(trades: readonly DemoTrade[]): DemoSummary {
  const total = trades.reduce((sum, trade) => sum + trade.profit, 0);
  return {
    total,
    active: trades.length,
    average: trades.length === 0 ? 0 : Math.round(total / trades.length),
    won: trades.filter((trade) => trade.tradeType === 'win').length,
  };
}

/** £ with pence and an explicit sign for non-zero amounts: +£12.34, −£3.10, £0.00. */
export function formatPounds(pence: number, signed = true): string {
  const amount = `£${(Math.abs(pence) / 100).toFixed(2)}`;
  if (!signed || pence === 0) return pence < 0 ? `−${amount}` : amount;
  return `${pence > 0 ? '+' : '−'}${amount}`;
}

/** When each stage of the simulation happens, in ms from the start, for `count` trades. */
export function demoTimeline(count: number, interval = DEMO_INTERVAL_MS) {
  const lastTrade = count * interval;
  const stage1 = lastTrade + DEMO_STAGE1_DELAY_MS;
  return {
    tradeAt: (index: number) => (index + 1) * interval,
    lastTrade,
    stage1,
    stage2: stage1 + DEMO_STAGE2_DELAY_MS,
  };
}
