// The texts the track record's island shows, by key: the page picks them from content/labels/track-record.md
// (pickLabels in src/lib/content.ts) and passes them in the page's HTML.
/** Every label the island reads; the page fails to build when one is missing. */
export const TRACK_RECORD_LABEL_KEYS = [
  'loading',
  'empty',
  'loadFailed',
  'overall',
  'foundation',
  'growth',
  'momentum',
  'tier',
  'trades',
  'wins',
  'losses',
  'winRate',
  'pips',
  'profitFactor',
  'maxDrawdown',
  'pair',
  'direction',
  'entry',
  'exit',
  'result',
  'closedAt',
  'notCounted',
  'showAll',
  'tp3Hit',
  'slHit',
  'closed',
  'expired',
  'cancelled',
  'curveLabel',
  'warning',
  'period',
  'ledgerLink',
] as const;

export type TrackRecordLabels = Record<(typeof TRACK_RECORD_LABEL_KEYS)[number], string>;
