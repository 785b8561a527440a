// The texts the news islands show, by key: the pages pick them from content/labels/news.md (pickLabels in
// src/lib/content.ts) and pass them as a prop.
/**
 * Every label the news islands read (the last three are the relative times' of src/lib/relative-time.ts); the
 * page fails to build when one is missing.
 */
export const NEWS_LABEL_KEYS = [
  'empty',
  'loadFailed',
  'loading',
  'investingHeading',
  'refresh',
  'lastUpdated',
  'readMore',
  'newTab',
  'positive',
  'negative',
  'neutral',
  'justNow',
  'hoursAgo',
  'dayAgo',
] as const;

export type NewsLabels = Record<(typeof NEWS_LABEL_KEYS)[number], string>;
