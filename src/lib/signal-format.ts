// A closed signal's result as the members' feed shows it, by the track record's one pip rule
// (src/lib/track-record.ts, docs/ledger.md): a pip is 0.01 of a pair quoted in yen, 0.0001 of any other; a closed
// signal's exit is TP3 when TP3 was hit, the stop in force when the stop was hit (moved stops count), or the closing
// price; its pips are the exit less the entry in pips, signed by direction. Expired and cancelled signals have no
// exit and so no result.
import { pipSize, pipsOf } from './track-record.ts';

export { pipSize };

export type Direction = 'BUY' | 'SELL';
export type SignalResult = 'win' | 'loss' | 'flat';

/** The track record's pips (src/lib/track-record.ts: (exit − entry) / pip size, signed by direction), to one decimal. */
export function pips(pair: string, direction: Direction | string, entry: number, exit: number): number {
  const raw = pipsOf(pair, direction === 'SELL' ? 'SELL' : 'BUY', entry, exit);
  // Rounded through a string of 10 significant digits first, so 1.0900 − 1.0850 is 50 and not 49.99999.
  const value = Math.round(Number(raw.toPrecision(10)) * 10) / 10;
  return value === 0 ? 0 : value;
}

export interface ClosedTerms {
  pair: string;
  direction: string;
  entry: number;
  tp3: number;
  current_stop: number;
  status: string;
  exit_price: number | null;
}

/** The exit the result counts from, or null when the signal did not close with a result. */
export function signalExit(s: ClosedTerms): number | null {
  if (s.status === 'tp3_hit') return s.tp3;
  if (s.status === 'sl_hit') return s.current_stop;
  if (s.status === 'closed') return s.exit_price;
  return null;
}

/** Win above 0 pips, loss below, flat at 0; null when there is no result (open, expired, cancelled). */
export function resultOf(pipCount: number | null): SignalResult | null {
  if (pipCount === null) return null;
  return pipCount > 0 ? 'win' : pipCount < 0 ? 'loss' : 'flat';
}
