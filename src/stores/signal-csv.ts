// The history's CSV export, loaded by signal-feed.ts on the first press of Export CSV (a dynamic import), so the
// dashboard does not load it up front: the rows shown, as RFC 4180 CSV, downloaded as a Blob.
import type { FeedSignal } from './signal-feed.ts';

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

/** Downloads `rows` as signals-history.csv (a Blob: nothing leaves the browser). */
export function downloadCsv(rows: FeedSignal[], doc: Document = document): void {
  const blob = new Blob([historyCsv(rows)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = 'signals-history.csv';
  doc.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
