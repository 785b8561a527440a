// How long ago an article was published, in the words the news cards use.

export interface RelativeTimeLabels {
  /** Under an hour (and dates a little in the future, from clocks that disagree). */
  justNow: string;
  /** Under 24 hours; `{n}` is the whole number of hours. */
  hoursAgo: string;
  /** Under 48 hours. */
  dayAgo: string;
}

const HOUR = 3_600_000;

/** 'Just now' under 1 hour, 'Nh ago' under 24 hours, '1 day ago' under 48 hours, else the local date. */
export function relativeTime(
  published: Date,
  now: Date,
  labels: RelativeTimeLabels,
  formatDate: (date: Date) => string = (date) => date.toLocaleDateString(),
): string {
  const elapsed = now.getTime() - published.getTime();
  if (elapsed < HOUR) return labels.justNow;
  if (elapsed < 24 * HOUR) return labels.hoursAgo.replace('{n}', String(Math.floor(elapsed / HOUR)));
  if (elapsed < 48 * HOUR) return labels.dayAgo;
  return formatDate(published);
}
