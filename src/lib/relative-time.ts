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

const pad = (n: number) => String(n).padStart(2, '0');

// Written out rather than through Intl (toLocaleDateString, toLocaleTimeString): a page's first Intl date
// format loads the browser's locale data, a main-thread task of a quarter second and more on a phone, in the
// middle of showing the news.

/** The local date as YYYY-MM-DD: unambiguous in every country. */
export function localDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The local time of day as HH:MM (24-hour clock). */
export function localTime(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** 'Just now' under 1 hour, 'Nh ago' under 24 hours, '1 day ago' under 48 hours, else the local date. */
export function relativeTime(
  published: Date,
  now: Date,
  labels: RelativeTimeLabels,
  formatDate: (date: Date) => string = localDate,
): string {
  const elapsed = now.getTime() - published.getTime();
  if (elapsed < HOUR) return labels.justNow;
  if (elapsed < 24 * HOUR) return labels.hoursAgo.replace('{n}', String(Math.floor(elapsed / HOUR)));
  if (elapsed < 48 * HOUR) return labels.dayAgo;
  return formatDate(published);
}
