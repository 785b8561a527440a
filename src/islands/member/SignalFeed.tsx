import { useStore } from '@nanostores/preact';
import { useEffect, useId, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { fill } from '../../lib/fill-template.ts';
import { relativeTime } from '../../lib/relative-time.ts';
import {
  createSignalFeed,
  type FeedChange,
  type FeedSignal,
  fillAfter,
  type HistoryFilters,
  historyPairs,
  RESULTS,
  type SignalFeedDeps,
  TIERS,
} from '../../stores/signal-feed.ts';
import { createSignalLive, type LiveSocket, type SignalLive } from '../../stores/signal-live.ts';
import type { DashboardLabels } from './labels.ts';

type Labels = DashboardLabels;

const TIER_KEY = { foundation: 'tierFoundation', growth: 'tierGrowth', momentum: 'tierMomentum' } as const;
const STATUS_KEY = {
  active: 'statusActive',
  tp1_hit: 'statusTp1',
  tp2_hit: 'statusTp2',
  tp3_hit: 'statusTp3',
  sl_hit: 'statusSl',
  closed: 'statusClosed',
  expired: 'statusExpired',
  cancelled: 'statusCancelled',
} as const;
const RESULT_KEY = { win: 'resultWin', loss: 'resultLoss', flat: 'resultFlat' } as const;
/** How long a changed signal stays marked. */
const MARK_MS = 4000;

const tierName = (l: Labels, tier: string) => l[TIER_KEY[tier as keyof typeof TIER_KEY]] ?? tier;
const statusName = (l: Labels, status: string) => l[STATUS_KEY[status as keyof typeof STATUS_KEY]] ?? status;

/** One short sentence for screen readers: the change, or how many signals changed at once. */
export function announcement(l: Labels, changes: FeedChange[]): string {
  if (changes.length !== 1) return fill(l.liveMany, { n: changes.length });
  const [{ kind, signal: s }] = changes;
  const values = {
    pair: s.pair,
    direction: s.direction,
    tier: tierName(l, s.tier),
    status: statusName(l, s.status),
    price: s.currentStop,
  };
  return fill(kind === 'new' ? l.liveNew : kind === 'stop' ? l.liveStopMoved : l.liveStatusChanged, values);
}

/**
 * The Premium Signals card of /dashboard: open signals, then the history with filters and CSV export. With a
 * `socket` it is live: signals and events apply as they arrive, what changed is marked for a moment and said once
 * to screen readers, and a small status says whether it is live.
 */
export default function SignalFeed({
  labels,
  reader,
  socket,
}: {
  labels: Labels;
  reader: SignalFeedDeps;
  socket?: LiveSocket;
}) {
  const [feed] = useState(() => createSignalFeed(reader));
  const [live] = useState(() =>
    socket
      ? createSignalLive({
          socket,
          feed,
          fill: (after, openIds) => fillAfter(reader, after, openIds),
          timer: (ms, callback) => {
            const id = setTimeout(callback, ms);
            return () => clearTimeout(id);
          },
        })
      : null,
  );
  const state = useStore(feed.$feed);
  const filters = useStore(feed.$filters);
  const history = useStore(feed.$history);
  const changes = useStore(feed.$changes);
  const [now, setNow] = useState(() => new Date());
  const [marked, setMarked] = useState<ReadonlySet<string>>(() => new Set());
  // What the live region says, keyed by the batch: a batch that says what the last one said ("2 signals updated"
  // twice) is a new node, so screen readers announce it again.
  const [said, setSaid] = useState({ text: '', batch: 0 });

  useEffect(() => {
    if (live) {
      live.start();
      return () => live.stop();
    }
    void feed.refresh();
  }, [feed, live]);

  useEffect(() => {
    if (state.status === 'loaded') setNow(new Date());
  }, [state.status]);

  useEffect(() => {
    if (changes.n === 0) return;
    setNow(new Date());
    setMarked(new Set(changes.changes.map((c) => c.signal.id)));
    setSaid({ text: announcement(labels, changes.changes), batch: changes.n });
    const id = setTimeout(() => setMarked(new Set()), MARK_MS);
    return () => clearTimeout(id);
  }, [changes, labels]);

  const refresh = () => void feed.refresh();
  const loading = state.status === 'loading' || state.status === 'idle';

  return (
    <section aria-labelledby="signal-feed" className="mt-10 rounded-2xl border border-navy-700 bg-navy-900 p-6">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <h2 id="signal-feed" className="text-2xl font-semibold">
          {labels.feedHeading}
        </h2>
        <div className="flex flex-wrap items-center gap-4">
          {live && <LiveBadge labels={labels} live={live} />}
          <Button variant="outline" onClick={refresh} disabled={loading}>
            {loading ? labels.refreshing : labels.refresh}
          </Button>
        </div>
      </div>
      <p className="mt-2 text-muted">{labels.feedLead}</p>
      <p aria-live="polite" className="sr-only">
        <span key={said.batch}>{said.text}</span>
      </p>
      {state.status === 'error' && (
        <p role="alert" className="mt-4 rounded-xl border border-danger/50 p-4">
          {labels.feedError}
        </p>
      )}
      <OpenSignals labels={labels} signals={state.open} now={now} ready={state.status !== 'idle'} marked={marked} />
      <History
        labels={labels}
        closed={state.closed}
        rows={history}
        filters={filters}
        ready={state.status !== 'idle'}
        marked={marked}
        onFilter={feed.setFilter}
        onExport={() => void feed.exportCsv()}
      />
    </section>
  );
}

/** Live, Connecting or Reconnecting: a dot (steady when live) and the word. */
function LiveBadge({ labels, live }: { labels: Labels; live: SignalLive }) {
  const { status } = useStore(live.$live);
  const on = status === 'live';
  return (
    <p className="flex items-center gap-2 text-sm text-muted" data-live-status={status}>
      <span
        aria-hidden="true"
        className={`size-2 rounded-full ${on ? 'bg-accent' : 'bg-gold motion-safe:animate-pulse'}`}
      />
      {on ? labels.liveOn : status === 'connecting' ? labels.liveConnecting : labels.liveReconnecting}
    </p>
  );
}

/** A changed signal's mark: a ring that fades in and out (at once when motion is reduced). */
const markClass = (on: boolean) =>
  `ring-2 ring-inset motion-safe:transition-shadow motion-safe:duration-700 ${on ? 'ring-accent' : 'ring-transparent'}`;

function OpenSignals({
  labels,
  signals,
  now,
  ready,
  marked,
}: {
  labels: Labels;
  signals: FeedSignal[];
  now: Date;
  ready: boolean;
  marked: ReadonlySet<string>;
}) {
  return (
    <>
      <h3 className="mt-8 text-xl font-semibold">{labels.openHeading}</h3>
      {ready && signals.length === 0 && <p className="mt-3 text-muted">{labels.openEmpty}</p>}
      <ul className="mt-4 grid list-none gap-4 p-0 lg:grid-cols-2">
        {signals.map((s) => (
          <li
            key={s.id}
            className={`rounded-xl bg-navy-800 p-4 ${markClass(marked.has(s.id))}`}
            data-changed={marked.has(s.id) || undefined}
          >
            <p className="flex flex-wrap items-baseline justify-between gap-2">
              <span className="text-sm font-semibold text-accent">{tierName(labels, s.tier)}</span>
              <span className="text-sm text-muted">{statusName(labels, s.status)}</span>
            </p>
            <p className="mt-1 text-lg font-semibold">
              {s.pair} <span className={s.direction === 'BUY' ? 'text-accent' : 'text-danger'}>{s.direction}</span>
            </p>
            <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm tabular-nums sm:grid-cols-3">
              <Term term={labels.entryLabel}>{s.entry}</Term>
              <Term term={labels.stopLabel}>
                {s.currentStop !== s.stopLoss ? (
                  <>
                    <s>{s.stopLoss}</s> {labels.stopMoved.replace('{price}', String(s.currentStop))}
                  </>
                ) : (
                  s.stopLoss
                )}
              </Term>
              {(['TP1', 'TP2', 'TP3'] as const).map((name, i) => (
                <Term key={name} term={name}>
                  {s.tp[i]}
                  {s.hits[i] && <span className="ml-1 font-semibold text-accent">✓ {labels.tpHit}</span>}
                </Term>
              ))}
              <Term term={labels.timeframeLabel}>{s.timeframe}</Term>
              <Term term={labels.riskRewardLabel}>{s.riskReward ?? '—'}</Term>
              <Term term={labels.issuedLabel}>
                <time dateTime={s.issuedAt}>{relativeTime(new Date(s.issuedAt), now, labels)}</time>
              </Term>
            </dl>
          </li>
        ))}
      </ul>
    </>
  );
}

function Term({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-muted">{term}</dt>
      <dd className="font-semibold">{children}</dd>
    </div>
  );
}

function History({
  labels,
  closed,
  rows,
  filters,
  ready,
  marked,
  onFilter,
  onExport,
}: {
  labels: Labels;
  closed: FeedSignal[];
  rows: FeedSignal[];
  filters: HistoryFilters;
  ready: boolean;
  marked: ReadonlySet<string>;
  onFilter: <K extends keyof HistoryFilters>(key: K, value: HistoryFilters[K]) => void;
  onExport: () => void;
}) {
  const id = useId();
  const select = 'mt-1 block rounded-lg border border-navy-600 bg-navy-950 px-3 py-2';
  return (
    <>
      <h3 className="mt-10 text-xl font-semibold">{labels.historyHeading}</h3>
      {ready && closed.length === 0 ? (
        <p className="mt-3 text-muted">{labels.historyEmpty}</p>
      ) : (
        <>
          <div className="mt-4 flex flex-wrap items-end gap-4">
            <label htmlFor={`${id}-tier`} className="text-sm">
              {labels.filterTier}
              <select
                id={`${id}-tier`}
                className={select}
                value={filters.tier}
                onChange={(e) => onFilter('tier', e.target.value as HistoryFilters['tier'])}
              >
                <option value="">{labels.filterAll}</option>
                {TIERS.map((t) => (
                  <option key={t} value={t}>
                    {tierName(labels, t)}
                  </option>
                ))}
              </select>
            </label>
            <label htmlFor={`${id}-pair`} className="text-sm">
              {labels.filterPair}
              <select
                id={`${id}-pair`}
                className={select}
                value={filters.pair}
                onChange={(e) => onFilter('pair', e.target.value)}
              >
                <option value="">{labels.filterAll}</option>
                {historyPairs(closed).map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </label>
            <label htmlFor={`${id}-result`} className="text-sm">
              {labels.filterResult}
              <select
                id={`${id}-result`}
                className={select}
                value={filters.result}
                onChange={(e) => onFilter('result', e.target.value as HistoryFilters['result'])}
              >
                <option value="">{labels.filterAll}</option>
                {RESULTS.map((r) => (
                  <option key={r} value={r}>
                    {labels[RESULT_KEY[r]]}
                  </option>
                ))}
              </select>
            </label>
            <Button variant="outline" onClick={onExport} disabled={rows.length === 0}>
              {labels.exportCsv}
            </Button>
          </div>
          {rows.length === 0 ? (
            <p className="mt-4 text-muted" role="status">
              {labels.historyNoMatch}
            </p>
          ) : (
            <section
              aria-labelledby={`${id}-caption`}
              // biome-ignore lint/a11y/noNoninteractiveTabindex: the table scrolls sideways, so it takes keyboard focus to be scrolled without a mouse
              tabIndex={0}
              className="mt-4 overflow-x-auto"
            >
              <table className="w-full text-left text-sm whitespace-nowrap tabular-nums">
                <caption id={`${id}-caption`} className="sr-only">
                  {labels.historyCaption}
                </caption>
                <thead>
                  <tr className="text-muted">
                    {[
                      labels.tierLabel,
                      labels.pairLabel,
                      labels.directionLabel,
                      labels.entryLabel,
                      labels.exitLabel,
                      labels.pipsLabel,
                      labels.resultLabel,
                      labels.statusLabel,
                      labels.closedLabel,
                    ].map((h) => (
                      <th key={h} scope="col" className="px-2 py-2 font-semibold">
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((s) => (
                    <tr
                      key={s.id}
                      className={`border-t border-navy-700 ${markClass(marked.has(s.id))}`}
                      data-changed={marked.has(s.id) || undefined}
                    >
                      <td className="px-2 py-2">{tierName(labels, s.tier)}</td>
                      <th scope="row" className="px-2 py-2 font-semibold">
                        {s.pair}
                      </th>
                      <td className="px-2 py-2">{s.direction}</td>
                      <td className="px-2 py-2">{s.entry}</td>
                      <td className="px-2 py-2">{s.exit ?? '—'}</td>
                      <td className="px-2 py-2">{s.pips === null ? '—' : s.pips}</td>
                      <td className="px-2 py-2">{s.result ? labels[RESULT_KEY[s.result]] : '—'}</td>
                      <td className="px-2 py-2">{statusName(labels, s.status)}</td>
                      <td className="px-2 py-2">
                        {s.closedAt && <time dateTime={s.closedAt}>{s.closedAt.slice(0, 16).replace('T', ' ')}</time>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
        </>
      )}
    </>
  );
}
