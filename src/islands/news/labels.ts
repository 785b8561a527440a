// The texts the news islands show, read from content/labels/news.md by the page and passed as a prop.
import type { RelativeTimeLabels } from '../../lib/relative-time.ts';

export interface NewsLabels extends RelativeTimeLabels {
  empty: string;
  loadFailed: string;
  loading: string;
  investingHeading: string;
  refresh: string;
  lastUpdated: string;
  readMore: string;
  newTab: string;
  positive: string;
  negative: string;
  neutral: string;
}

export const NEWS_LABEL_KEYS: (keyof NewsLabels)[] = [
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
];

/** The labels object from a content lookup; a missing key fails the build with the file named. */
export function newsLabels(t: (key: string) => string): NewsLabels {
  return Object.fromEntries(NEWS_LABEL_KEYS.map((key) => [key, t(key)])) as unknown as NewsLabels;
}
