// The members' signal feed on /dashboard: open signals newest first, and the history of closed ones with their
// result in pips, filtered by tier, pair and result, exportable as CSV. The reads go through a reader given to
// createSignalFeed (the browser client's `from`, under the member's session, so RLS shows members every signal);
// a live source can later replace refresh() without the island changing.
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
export function toFeedSignal(row: SignalRow, events: Pick<Tables<'signal_events'>, 'kind'>[] = []): FeedSignal {
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

export const CSV_COLUMNS = [
  'id',
  'tier',
  'pair',
  'direction',
  'timeframe',
  'entry',
  'stop_loss',
  'stop_in_force',
  'tp1',
  'tp2',
  'tp3',
  'issued_at',
  'closed_at',
  'status',
  'exit',
  'pips',
  'result',
] as const;

function csvCell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  // Quoted when it holds a separator, a quote or a line break; a leading = + - @ is kept from spreadsheets' formulas.
  const safe = /^[=+\-@]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The rows as CSV: a header of CSV_COLUMNS, one line per signal, CRLF line ends (RFC 4180). */
export function historyCsv(rows: FeedSignal[]): string {
  const lines = rows.map((s) =>
    [
      s.id,
      s.tier,
      s.pair,
      s.direction,
      s.timeframe,
      s.entry,
      s.stopLoss,
      s.currentStop,
      s.tp[0],
      s.tp[1],
      s.tp[2],
      s.issuedAt,
      s.closedAt,
      s.status,
      s.exit,
      s.pips,
      s.result,
    ]
      .map(csvCell)
      .join(','),
  );
  return [CSV_COLUMNS.join(','), ...lines].map((l) => `${l}\r\n`).join('');
}

/** The feed's state and actions; one per island. */
export function createSignalFeed(deps: SignalFeedDeps) {
  const $feed = atom<FeedState>({ status: 'idle', open: [], closed: [] });
  const $filters = atom<HistoryFilters>({ tier: '', pair: '', result: '' });
  const $history = computed([$feed, $filters], (feed, filters) => filterHistory(feed.closed, filters));
  let reading = 0;

  /** Reads open signals (and their events) and the closed ones again; keeps what was shown if a read fails. */
  async function refresh(): Promise<void> {
    const mine = ++reading;
    const before = $feed.get();
    $feed.set({ status: 'loading', open: before.open, closed: before.closed });
    try {
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
        ? await deps.from('signal_events').select('signal_id, kind').in('signal_id', ids).order('seq')
        : { data: [], error: null };
      if (events.error) throw events.error;
      if (mine !== reading) return;
      $feed.set({
        status: 'loaded',
        open: open.data.map((s) =>
          toFeedSignal(
            s,
            events.data.filter((e) => e.signal_id === s.id),
          ),
        ),
        closed: closed.data.map((s) => toFeedSignal(s)),
      });
    } catch (err) {
      console.error('Signal feed read failed:', err);
      if (mine === reading) $feed.set({ status: 'error', open: before.open, closed: before.closed });
    }
  }

  function setFilter<K extends keyof HistoryFilters>(key: K, value: HistoryFilters[K]): void {
    $filters.set({ ...$filters.get(), [key]: value });
  }

  /** Downloads what the filters show as signals-history.csv. */
  function exportCsv(doc: Document = document): void {
    const blob = new Blob([historyCsv($history.get())], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const link = doc.createElement('a');
    link.href = url;
    link.download = 'signals-history.csv';
    doc.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  return { $feed, $filters, $history, refresh, setFilter, exportCsv };
}

export type SignalFeed = ReturnType<typeof createSignalFeed>;
