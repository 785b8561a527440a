// A `signals` row as PostgREST returns it, for the tests of the feed and its live source: the terms of a EUR/USD
// BUY unless given.
import type { Tables } from '../../supabase/database.types.ts';

export function signalRow(over: Partial<Tables<'signals'>> = {}): Tables<'signals'> {
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
