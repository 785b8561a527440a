// The names of a risk band's figures the quiz's result shows, by key: the page picks them from
// content/labels/signals.md (pickLabels in src/lib/content.ts).

/** The band's figures, in the order the result lists them. */
export const BAND_LABEL_KEYS = [
  'profitFactor',
  'maxDrawdown',
  'winRate',
  'stopRules',
  'maxTrades',
  'frequency',
] as const;

export type BandLabels = Record<(typeof BAND_LABEL_KEYS)[number], string>;
