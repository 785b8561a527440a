// The track record's rule in TypeScript (docs/ledger.md#track-record), the same rule public.track_record() computes
// in SQL: the integration tests check that both agree on generated ledgers, and the /track-record island uses the
// types and formatting.

export type Tier = 'foundation' | 'growth' | 'momentum';
export const TIERS: readonly Tier[] = ['foundation', 'growth', 'momentum'];

export interface Figures {
  trades: number;
  wins: number;
  losses: number;
  /** wins / trades, null with no trades. */
  win_rate: number | null;
  pips: number;
  /** Winning pips / |losing pips|, null when nothing was lost. */
  profit_factor: number | null;
  /** The deepest fall of cumulative pips, 0 or negative. */
  max_drawdown_pips: number;
}

export interface ListedSignal {
  id: string;
  tier: Tier;
  pair: string;
  direction: 'BUY' | 'SELL';
  entry: number;
  /** Null for expired and cancelled signals. */
  exit: number | null;
  status: 'tp3_hit' | 'sl_hit' | 'closed' | 'expired' | 'cancelled';
  closed_at: string;
  /** Null for expired and cancelled signals: listed, not counted. */
  pips: number | null;
}

export interface TrackRecord {
  period: { first_close: string | null; last_close: string | null };
  overall: Figures;
  tiers: (Figures & { tier: Tier })[];
  months: (Figures & { month: string })[];
  /** Every signal in a final state, last closed first. */
  signals: ListedSignal[];
  /** Cumulative pips after each counted signal, in close-time order. */
  curve: { at: string; id: string; pips: number }[];
}

/** A signal with its events, as the engine posts them. */
export interface LedgerSignal {
  id: string;
  tier: Tier;
  pair: string;
  direction: 'BUY' | 'SELL';
  entry: number;
  stop_loss: number;
  take_profit: [number, number, number];
  events: { kind: string; price?: number; stop_loss?: number; at: string }[];
}

const FINAL = new Set(['tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled']);
const COUNTED = new Set(['tp3_hit', 'sl_hit', 'closed']);

/** 0.01 when the quote currency is JPY, 0.0001 otherwise. */
export const pipSize = (pair: string): number => (pair.endsWith('/JPY') ? 0.01 : 0.0001);

/** (exit − entry) / pip size, negated for a SELL. */
export function pipsOf(pair: string, direction: 'BUY' | 'SELL', entry: number, exit: number): number {
  const pips = (exit - entry) / pipSize(pair);
  return direction === 'BUY' ? pips : -pips;
}

/** Figures of counted signals given in close-time order. */
export function figuresOf(pips: readonly number[]): Figures {
  let cum = 0;
  let peak = 0;
  let drawdown = 0;
  let won = 0;
  let lost = 0;
  let wins = 0;
  for (const p of pips) {
    cum += p;
    peak = Math.max(peak, cum);
    drawdown = Math.min(drawdown, cum - peak);
    if (p > 0) {
      wins += 1;
      won += p;
    } else if (p < 0) lost += p;
  }
  return {
    trades: pips.length,
    wins,
    losses: pips.length - wins,
    win_rate: pips.length ? wins / pips.length : null,
    pips: cum,
    profit_factor: lost < 0 ? won / -lost : null,
    max_drawdown_pips: drawdown,
  };
}

/** The track record of a ledger, by the rule: replays each signal's events to its final state. */
export function trackRecordOf(ledger: readonly LedgerSignal[]): TrackRecord {
  const listed: ListedSignal[] = [];
  for (const s of ledger) {
    let stop = s.stop_loss;
    let final: { status: ListedSignal['status']; at: string; exit: number | null } | undefined;
    for (const e of s.events) {
      if (e.kind === 'stop_moved' && e.stop_loss !== undefined) stop = e.stop_loss;
      if (!FINAL.has(e.kind)) continue;
      const exit =
        e.kind === 'tp3_hit'
          ? s.take_profit[2]
          : e.kind === 'sl_hit'
            ? stop
            : e.kind === 'closed'
              ? (e.price ?? null)
              : null;
      final = { status: e.kind as ListedSignal['status'], at: e.at, exit };
      break;
    }
    if (!final) continue;
    listed.push({
      id: s.id,
      tier: s.tier,
      pair: s.pair,
      direction: s.direction,
      entry: s.entry,
      exit: final.exit,
      status: final.status,
      closed_at: final.at,
      pips: COUNTED.has(final.status) && final.exit !== null ? pipsOf(s.pair, s.direction, s.entry, final.exit) : null,
    });
  }
  const byClose = (a: ListedSignal, b: ListedSignal) =>
    a.closed_at < b.closed_at ? -1 : a.closed_at > b.closed_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  const counted = listed.filter((s) => s.pips !== null).sort(byClose);
  const pipsOfAll = (rows: ListedSignal[]) => rows.map((s) => s.pips as number);
  const months = [...new Set(counted.map((s) => s.closed_at.slice(0, 7)))].sort();
  let cum = 0;
  return {
    period: { first_close: counted[0]?.closed_at ?? null, last_close: counted.at(-1)?.closed_at ?? null },
    overall: figuresOf(pipsOfAll(counted)),
    tiers: TIERS.map((tier) => ({ tier, ...figuresOf(pipsOfAll(counted.filter((s) => s.tier === tier))) })),
    months: months.map((month) => ({
      month,
      ...figuresOf(pipsOfAll(counted.filter((s) => s.closed_at.startsWith(month)))),
    })),
    signals: [...listed].sort((a, b) => byClose(b, a)),
    curve: counted.map((s) => {
      cum += s.pips as number;
      return { at: s.closed_at, id: s.id, pips: cum };
    }),
  };
}

/** Pips to one decimal with a sign: "+62.0", "−50.0" (a true minus sign), "0.0". */
export function formatPips(pips: number): string {
  const text = Math.abs(pips).toFixed(1);
  if (text === '0.0') return text;
  return `${pips > 0 ? '+' : '\u2212'}${text}`;
}

/** A rate in [0, 1] as a whole percentage, "—" when there is none. */
export const formatRate = (rate: number | null): string => (rate === null ? '\u2014' : `${Math.round(rate * 100)}%`);

/** A profit factor to two decimals, "—" when there is none. */
export const formatFactor = (factor: number | null): string => (factor === null ? '\u2014' : factor.toFixed(2));
