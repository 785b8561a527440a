// The members' signal feed on /dashboard: open signals newest first, and the history of closed ones with their
// result in pips, filtered by tier, pair and result, exportable as CSV. The reads go through a reader given to
// createSignalFeed (the browser client's `from`, under the member's session, so RLS shows members every signal).
// The live source (src/stores/signal-live.ts) hands rows to apply() as they arrive and asks fillAfter() for what a
// disconnect missed; applyRows() is the one rule for both, pure, so a row seen twice changes nothing.
import type { PostgrestClient } from '@supabase/postgrest-js';
import { atom, computed } from 'nanostores';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { pips, resultOf, type SignalResult, signalExit } from '../lib/signal-format.ts';

export const TIERS = ['foundation', 'growth', 'momentum'] as const;
export type Tier = (typeof TIERS)[number];
export const RESULTS = ['win', 'loss', 'flat'] as const;

/** Statuses of a signal still running. */
const OPEN_STATUSES = ['active', 'tp1_hit', 'tp2_hit'];
/** How many closed signals the history reads (the newest). */
export const HISTORY_LIMIT = 500;

export interface FeedSignal {
  id: string;
  tier: string;
  pair: string;
  direction: string;
  entry: number;
  stopLoss: number;
  /** The stop in force; differs from stopLoss once a stop_moved event moved it. */
  currentStop: number;
  tp: [number, number, number];
  /** Which of TP1–TP3 were hit. */
  hits: [boolean, boolean, boolean];
  timeframe: string;
  riskReward: number | null;
  issuedAt: string;
  status: string;
  closedAt: string | null;
  exit: number | null;
  pips: number | null;
  result: SignalResult | null;
  /** The highest signal_events.seq this state reflects (0: none); an older state never replaces a newer one. */
  version: number;
}

export interface HistoryFilters {
  tier: '' | Tier;
  pair: string;
  result: '' | SignalResult;
}

export type FeedState =
  | { status: 'idle' | 'loading'; open: FeedSignal[]; closed: FeedSignal[] }
  | { status: 'loaded'; open: FeedSignal[]; closed: FeedSignal[] }
  | { status: 'error'; open: FeedSignal[]; closed: FeedSignal[] };

/** What the store reads through: the typed browser client's `from` (src/stores/supabase.ts). */
export interface SignalFeedDeps {
  from: PostgrestClient<Database>['from'];
}

const RANK: Record<string, number> = { active: 0, tp1_hit: 1, tp2_hit: 2, tp3_hit: 3 };

/** A row of `signals` as the table returns it (signal_canonical_json is a computed field, not read). */
export type SignalRow = Omit<Tables<'signals'>, 'signal_canonical_json'>;

/** A row of `signals` and its events as the feed shows it. */
export function toFeedSignal(
  row: SignalRow,
  events: Pick<Tables<'signal_events'>, 'kind'>[] = [],
  version = 0,
): FeedSignal {
  const n = (v: number | string) => Number(v);
  const rank = RANK[row.status] ?? 0;
  const hit = (k: 1 | 2 | 3) => rank >= k || events.some((e) => e.kind === `tp${k}_hit`);
  const closedTerms = {
    pair: row.pair,
    direction: row.direction,
    entry: n(row.entry),
    tp3: n(row.tp3),
    current_stop: n(row.current_stop),
    status: row.status,
    exit_price: row.exit_price === null ? null : n(row.exit_price),
  };
  const exit = signalExit(closedTerms);
  const pipCount = exit === null ? null : pips(row.pair, row.direction, closedTerms.entry, exit);
  return {
    id: row.id,
    tier: row.tier,
    pair: row.pair,
    direction: row.direction,
    entry: closedTerms.entry,
    stopLoss: n(row.stop_loss),
    currentStop: closedTerms.current_stop,
    tp: [n(row.tp1), n(row.tp2), closedTerms.tp3],
    hits: [hit(1), hit(2), hit(3)],
    timeframe: row.timeframe,
    riskReward: row.risk_reward === null ? null : n(row.risk_reward),
    issuedAt: row.issued_at,
    status: row.status,
    closedAt: row.closed_at,
    exit,
    pips: pipCount,
    result: resultOf(pipCount),
    version,
  };
}

/** A signal's row as the ledger holds it now, the kinds of its events known, and the event seq it reflects. */
export interface LedgerRow {
  row: SignalRow;
  kinds: string[];
  version: number;
}

/** What applying rows changed, for the view to mark and announce: a new signal, a new status, a moved stop. */
export interface FeedChange {
  kind: 'new' | 'status' | 'stop';
  signal: FeedSignal;
}

const isOpen = (status: string) => OPEN_STATUSES.includes(status);
const newestIssued = (a: FeedSignal, b: FeedSignal) => b.issuedAt.localeCompare(a.issuedAt);
const newestClosed = (a: FeedSignal, b: FeedSignal) =>
  (b.closedAt ?? '').localeCompare(a.closedAt ?? '') || newestIssued(a, b);
const sameState = (a: FeedSignal, b: FeedSignal) =>
  a.status === b.status && a.currentStop === b.currentStop && a.hits.every((hit, i) => hit === b.hits[i]);

/**
 * The open and closed lists with `rows` applied, and what changed. Idempotent: a row older than the state shown
 * (a lower version) or equal to it changes nothing, so a broadcast, a gap fill and a refresh may deliver the same
 * signal in any order. A signal moves from the open list to the history when its status becomes final.
 */
export function applyRows(
  lists: { open: FeedSignal[]; closed: FeedSignal[] },
  rows: LedgerRow[],
): { open: FeedSignal[]; closed: FeedSignal[]; changes: FeedChange[] } {
  let { open, closed } = lists;
  const changes: FeedChange[] = [];
  for (const { row, kinds, version } of rows) {
    const before = open.find((s) => s.id === row.id) ?? closed.find((s) => s.id === row.id);
    if (before && version < before.version) continue;
    const after = toFeedSignal(
      row,
      kinds.map((kind) => ({ kind })),
      version,
    );
    if (before && sameState(before, after)) continue;
    open = open.filter((s) => s.id !== row.id);
    closed = closed.filter((s) => s.id !== row.id);
    if (isOpen(after.status)) open = [...open, after].sort(newestIssued);
    else closed = [...closed, after].sort(newestClosed).slice(0, HISTORY_LIMIT);
    const kind = !before
      ? isOpen(after.status)
        ? 'new'
        : 'status'
      : before.status !== after.status
        ? 'status'
        : 'stop';
    changes.push({ kind, signal: after });
  }
  return { open, closed, changes };
}

/** The versions (highest event seq) and event kinds per signal, from events read oldest first. */
function eventsBySignal(events: Pick<Tables<'signal_events'>, 'signal_id' | 'kind' | 'seq'>[]) {
  const by = new Map<string, { kinds: string[]; version: number }>();
  for (const e of events) {
    const entry = by.get(e.signal_id) ?? { kinds: [], version: 0 };
    entry.kinds.push(e.kind);
    entry.version = Math.max(entry.version, Number(e.seq));
    by.set(e.signal_id, entry);
  }
  return by;
}

/** How many commitments a gap fill reads; a longer gap reads the feed again instead. */
export const FILL_LIMIT = 500;

/**
 * What a disconnect may have missed, read from REST: the signals committed after `after` (the ledger's gapless
 * commitment seq), and the current rows of `openIds` (the signals shown as open, the only ones an event can have
 * changed meanwhile), each with its events. Events are read before the rows, so a row is never older than the
 * version it is given. Null when the gap is longer than FILL_LIMIT commitments: read everything instead.
 */
export async function fillAfter(
  deps: SignalFeedDeps,
  after: number,
  openIds: string[],
): Promise<{ seq: number; rows: LedgerRow[] } | null> {
  const commitments = await deps
    .from('signal_commitments')
    .select('seq, signal_id')
    .gt('seq', after)
    .order('seq')
    .limit(FILL_LIMIT);
  if (commitments.error) throw commitments.error;
  if (commitments.data.length === FILL_LIMIT) return null;
  const seq = commitments.data.reduce((max, c) => Math.max(max, Number(c.seq)), after);
  const ids = [...new Set([...commitments.data.map((c) => c.signal_id), ...openIds])];
  if (ids.length === 0) return { seq, rows: [] };
  const events = await deps.from('signal_events').select('signal_id, kind, seq').in('signal_id', ids).order('seq');
  if (events.error) throw events.error;
  const signals = await deps.from('signals').select('*').in('id', ids);
  if (signals.error) throw signals.error;
  const by = eventsBySignal(events.data);
  return {
    seq,
    rows: signals.data.map((row) => ({
      row,
      kinds: by.get(row.id)?.kinds ?? [],
      version: by.get(row.id)?.version ?? 0,
    })),
  };
}

/** The closed signals the filters let through, in the order given (newest closed first). */
export function filterHistory(closed: FeedSignal[], filters: HistoryFilters): FeedSignal[] {
  return closed.filter(
    (s) =>
      (!filters.tier || s.tier === filters.tier) &&
      (!filters.pair || s.pair === filters.pair) &&
      (!filters.result || s.result === filters.result),
  );
}

/** The pairs the history has, sorted, for the pair filter. */
export function historyPairs(closed: FeedSignal[]): string[] {
  return [...new Set(closed.map((s) => s.pair))].sort();
}

/** The feed's state and actions; one per island. */
export function createSignalFeed(deps: SignalFeedDeps) {
  const $feed = atom<FeedState>({ status: 'idle', open: [], closed: [] });
  const $filters = atom<HistoryFilters>({ tier: '', pair: '', result: '' });
  const $history = computed([$feed, $filters], (feed, filters) => filterHistory(feed.closed, filters));
  /** The last changes apply() or refresh() made, for the view to mark and announce; `n` counts batches. */
  const $changes = atom<{ n: number; changes: FeedChange[] }>({ n: 0, changes: [] });
  let reading = 0;
  /** The newest refresh: what a refresh it replaced answers too. */
  let latest: Promise<number | null> = Promise.resolve(null);
  /** Rows applied while a refresh is on its way: applied again over its result, which may be older. */
  const during = new Set<LedgerRow[]>();

  function announce(changes: FeedChange[]): void {
    if (changes.length) $changes.set({ n: $changes.get().n + 1, changes });
  }

  /**
   * Reads open signals (and their events) and the closed ones again; keeps what was shown if a read fails.
   * Resolves to the ledger's highest commitment seq before the read (the point a gap fill reads after), or null
   * when the read failed. A refresh that a newer one replaced (Refresh pressed, or the live source's join reading
   * again) resolves to what the newer one resolves to: it has not failed, and a caller that took its null for a
   * failure would count a lost connection. Signals read after that seq are never missed: the seq is read first,
   * and a signal commits together with its commitment.
   */
  function refresh(): Promise<number | null> {
    latest = read(++reading);
    return latest;
  }

  async function read(mine: number): Promise<number | null> {
    const applied: LedgerRow[] = [];
    during.add(applied);
    const before = $feed.get();
    $feed.set({ status: 'loading', open: before.open, closed: before.closed });
    try {
      const last = await deps.from('signal_commitments').select('seq').order('seq', { ascending: false }).limit(1);
      if (last.error) throw last.error;
      const seq = last.data.length ? Number(last.data[0].seq) : 0;
      const [open, closed] = await Promise.all([
        deps.from('signals').select('*').in('status', OPEN_STATUSES).order('issued_at', { ascending: false }),
        deps
          .from('signals')
          .select('*')
          .not('status', 'in', `(${OPEN_STATUSES.join(',')})`)
          .order('closed_at', { ascending: false })
          .order('issued_at', { ascending: false })
          .limit(HISTORY_LIMIT),
      ]);
      if (open.error) throw open.error;
      if (closed.error) throw closed.error;
      const ids = open.data.map((s) => s.id);
      const events = ids.length
        ? await deps.from('signal_events').select('signal_id, kind, seq').in('signal_id', ids).order('seq')
        : { data: [], error: null };
      if (events.error) throw events.error;
      if (mine !== reading) return latest;
      const by = eventsBySignal(events.data);
      const fresh = {
        open: open.data.map((s) =>
          toFeedSignal(
            s,
            by.get(s.id)?.kinds.map((kind) => ({ kind })),
            by.get(s.id)?.version,
          ),
        ),
        closed: closed.data.map((s) => toFeedSignal(s)),
      };
      const { open: o, closed: c } = applyRows(fresh, applied);
      $feed.set({ status: 'loaded', open: o, closed: c });
      return seq;
    } catch (err) {
      console.error('Signal feed read failed:', err);
      if (mine !== reading) return latest;
      $feed.set({ status: 'error', open: before.open, closed: before.closed });
      return null;
    } finally {
      during.delete(applied);
    }
  }

  /** Applies rows the live source delivered or a gap fill read; what changed goes to $changes. */
  function apply(rows: LedgerRow[]): FeedChange[] {
    for (const applied of during) applied.push(...rows);
    const state = $feed.get();
    const next = applyRows(state, rows);
    if (next.changes.length) $feed.set({ ...state, open: next.open, closed: next.closed });
    announce(next.changes);
    return next.changes;
  }

  /** The ids of the signals shown as open: a gap fill reads their current rows. */
  const openIds = () => $feed.get().open.map((s) => s.id);

  function setFilter<K extends keyof HistoryFilters>(key: K, value: HistoryFilters[K]): void {
    $filters.set({ ...$filters.get(), [key]: value });
  }

  /** Downloads what the filters show as signals-history.csv; the CSV code loads on the first press. */
  async function exportCsv(doc: Document = document): Promise<void> {
    const { downloadCsv } = await import('./signal-csv.ts');
    downloadCsv($history.get(), doc);
  }

  return { $feed, $filters, $history, $changes, refresh, apply, openIds, setFilter, exportCsv };
}

export type SignalFeed = ReturnType<typeof createSignalFeed>;
