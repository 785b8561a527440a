// Stores what the engine posted, through the ledger's functions (ingest_signal, ingest_signal_event): one
// transaction each, insert ... on conflict do nothing, then a comparison with the stored row. So the same id with
// the same content again stores nothing (duplicate), and concurrent duplicates store one row and one commitment.
import type { IngestPayload } from './payload.ts';

/** What the ledger answered; `field` is the payload key when it refused the content. */
export type LedgerOutcome =
  | { outcome: 'stored' | 'duplicate' | 'conflict' }
  | { outcome: 'invalid'; field: string; message: string };

export interface IngestDeps {
  /** Calls `ingest_signal` (args.signal) or `ingest_signal_event` (args.event) as service_role. */
  call(fn: 'ingest_signal' | 'ingest_signal_event', args: Record<string, unknown>): Promise<unknown>;
}

/** The ledger's constraint and column names, as the payload's keys. */
const FIELDS: Record<string, string> = {
  signals_id_shape: 'id',
  signals_tier: 'tier',
  signals_pair_shape: 'pair',
  signals_direction: 'direction',
  signals_prices: 'entry',
  signals_levels: 'stop_loss',
  signals_timeframe: 'timeframe',
  signals_issued_at_milliseconds: 'issued_at',
  signal_events_id_shape: 'id',
  signal_events_kind: 'kind',
  signal_events_price: 'price',
  signal_events_price_required: 'price',
  signal_events_stop_loss: 'stop_loss',
  signal_events_stop_loss_only_moves: 'stop_loss',
  signal_events_at_milliseconds: 'at',
};

function outcomeOf(answer: unknown): LedgerOutcome {
  const a = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
  if (a.outcome === 'stored' || a.outcome === 'duplicate' || a.outcome === 'conflict') return { outcome: a.outcome };
  if (a.outcome === 'invalid') {
    const raw = typeof a.field === 'string' ? a.field : '';
    return {
      outcome: 'invalid',
      field: FIELDS[raw] ?? raw,
      message: typeof a.message === 'string' ? a.message : 'The ledger refused it.',
    };
  }
  throw new Error(`unexpected answer from the ledger: ${JSON.stringify(answer)}`);
}

export async function ingest(payload: IngestPayload, deps: IngestDeps): Promise<LedgerOutcome> {
  if (payload.type === 'signal.opened') {
    const { type: _type, ...signal } = payload;
    return outcomeOf(await deps.call('ingest_signal', { signal }));
  }
  const { type: _type, ...event } = payload;
  return outcomeOf(await deps.call('ingest_signal_event', { event }));
}
