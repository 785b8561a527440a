// The /track-record figures: reads public.track_record() through the API with the public key and fills the page's
// static shell (src/pages/track-record.astro). Plain DOM rather than an island: a few lines of DOM do it without a
// framework; the rule and the formatting are src/lib/track-record.ts's.
import { fill } from '../lib/fill-template.ts';
import { type Figures, formatFactor, formatPips, formatRate, type TrackRecord } from '../lib/track-record.ts';
import { SUPABASE_KEY } from '../stores/api-key.ts';
import { SUPABASE_URL } from '../stores/auth.ts';
import type { TrackRecordLabels } from './track-record/labels.ts';

const SVG = 'http://www.w3.org/2000/svg';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function row(cells: string[], header?: string): HTMLTableRowElement {
  const tr = el('tr');
  if (header !== undefined) {
    const th = el('th', header, 'px-3 py-2 text-left font-semibold');
    th.scope = 'row';
    tr.append(th);
  }
  for (const cell of cells) tr.append(el('td', cell, 'px-3 py-2 text-right tabular-nums'));
  return tr;
}

const figureCells = (f: Figures) => [
  String(f.trades),
  String(f.wins),
  String(f.losses),
  formatRate(f.win_rate),
  formatPips(f.pips),
  formatFactor(f.profit_factor),
  formatPips(f.max_drawdown_pips),
];

/** The label of each final status. */
const STATUS = {
  tp3_hit: 'tp3Hit',
  sl_hit: 'slHit',
  closed: 'closed',
  expired: 'expired',
  cancelled: 'cancelled',
} as const;

/** Rows of the closed-signal table shown at first; the rest on "Show all". */
export const FIRST_ROWS = 25;

const day = (iso: string) => iso.slice(0, 10);
const minute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

/** The equity curve as an inline SVG polyline, scaled into a 600 × 200 view box with 0 pips marked. */
function curve(points: TrackRecord['curve'], label: string): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 600 200');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('class', 'h-auto w-full');
  const values = [0, ...points.map((p) => p.pips)];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const x = (i: number) => (i / Math.max(1, values.length - 1)) * 590 + 5;
  const y = (v: number) => 195 - ((v - low) / span) * 190;
  const zero = document.createElementNS(SVG, 'line');
  for (const [k, v] of Object.entries({ x1: 5, x2: 595, y1: y(0), y2: y(0) })) zero.setAttribute(k, String(v));
  zero.setAttribute('class', 'stroke-current opacity-30');
  zero.setAttribute('stroke-dasharray', '4 4');
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', 'currentColor');
  line.setAttribute('stroke-width', '2');
  line.setAttribute('vector-effect', 'non-scaling-stroke');
  svg.append(zero, line);
  return svg;
}

/** One row of the closed-signal table. */
function signalRow(s: TrackRecord['signals'][number], t: TrackRecordLabels): HTMLTableRowElement {
  return row(
    [
      t[s.tier],
      s.pair,
      s.direction,
      String(s.entry),
      s.exit === null ? '\u2014' : String(s.exit),
      t[STATUS[s.status]],
      s.pips === null ? t.notCounted : formatPips(s.pips),
    ],
    minute(s.closed_at),
  );
}

/** Fills the shell under `root` from the record, or says it is empty. */
export function render(root: HTMLElement, record: TrackRecord, t: TrackRecordLabels): void {
  const part = (name: string) => root.querySelector<HTMLElement>(`[data-part="${name}"]`);
  const status = part('status');
  const { first_close: first, last_close: last } = record.period;
  if (!first || !last) {
    if (status) status.textContent = t.empty;
    for (const name of ['figures', 'curve', 'signals']) part(name)?.setAttribute('hidden', '');
  } else {
    if (status) status.textContent = fill(t.period, { first: day(first), last: day(last) });
    part('figures-body')?.replaceChildren(
      row(figureCells(record.overall), t.overall),
      ...record.tiers.map((f) => row(figureCells(f), t[f.tier])),
    );
    const total = formatPips(record.overall.pips);
    part('curve-svg')?.replaceChildren(
      curve(record.curve, fill(t.curveLabel, { first: day(first), last: day(last), total })),
    );
  }
  // The newest rows at once, the rest when asked for: a long history would otherwise be one long task.
  const body = part('signals-body');
  body?.replaceChildren(...record.signals.slice(0, FIRST_ROWS).map((s) => signalRow(s, t)));
  const more = part('show-all');
  if (more && body && record.signals.length > FIRST_ROWS) {
    more.textContent = fill(t.showAll, { count: String(record.signals.length) });
    more.hidden = false;
    more.onclick = () => {
      body.append(...record.signals.slice(FIRST_ROWS).map((s) => signalRow(s, t)));
      more.hidden = true;
    };
  }
  root.dataset.state = first ? 'ready' : 'empty';
}

export async function loadTrackRecord(root: HTMLElement): Promise<void> {
  const t = JSON.parse(root.dataset.labels ?? '{}') as TrackRecordLabels;
  try {
    const res = await fetch(`${SUPABASE_URL.replace(/\/+$/, '')}/rest/v1/rpc/track_record`, {
      method: 'POST',
      headers: { apikey: SUPABASE_KEY, Authorization: `Bearer ${SUPABASE_KEY}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    if (!res.ok) throw new Error(`track_record answered ${res.status}`);
    render(root, (await res.json()) as TrackRecord, t);
  } catch {
    const status = root.querySelector<HTMLElement>('[data-part="status"]');
    if (status) {
      status.textContent = t.loadFailed;
      status.setAttribute('role', 'alert');
    }
    root.dataset.state = 'error';
  }
}
