// One answer of the news function: every feed of the set fetched in parallel, failures logged and skipped.
// The function requests the feeds' own URLs and nothing else: a picture's address is only checked for shape (an
// absolute http(s) URL, parse.ts) and passed on; the reader's browser loads it, and the page hides one that
// fails. Checking pictures from here would make the function request any address a feed names, from its own
// network, and its public answer would tell which of them worked.
import { type Article, toArticles } from './articles.ts';
import type { FeedSet } from './feeds.ts';
import { FEED_LIMITS, type Fetch, type FetchLimits, fetchFeedText } from './fetch-feed.ts';
import { parseFeed } from './parse.ts';

export interface NewsAnswer {
  articles: Article[];
  /** When these articles were fetched (ISO 8601). */
  updatedAt: string;
  /**
   * How many of the set's feeds answered (0 of n means every feed failed), and which could not be read: each
   * failed feed's address without its query string or credentials (a key in a feed URL stays private).
   */
  feeds: { ok: number; total: number; failed: string[] };
}

/** A feed's address as the answer names it: origin and path only. */
export function feedLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'invalid feed URL';
  }
}

export interface LoadOptions {
  fetcher?: Fetch;
  limits?: FetchLimits;
  now?: () => number;
  log?: (message: string) => void;
}

export async function loadNews(set: FeedSet, options: LoadOptions = {}): Promise<NewsAnswer> {
  const { fetcher = fetch, limits = FEED_LIMITS, now = Date.now, log = console.error } = options;
  const results = await Promise.allSettled(
    set.urls.map(async (url) => parseFeed(await fetchFeedText(url, limits, fetcher), url)),
  );
  let ok = 0;
  const failed: string[] = [];
  const items = results.flatMap((result, i) => {
    if (result.status === 'fulfilled') {
      ok += 1;
      return result.value;
    }
    const reason = result.reason instanceof Error ? result.reason.message : String(result.reason);
    log(`news: feed ${set.urls[i]} skipped: ${reason}`);
    failed.push(feedLabel(set.urls[i]));
    return [];
  });
  return {
    articles: toArticles(items, set),
    updatedAt: new Date(now()).toISOString(),
    feeds: { ok, total: set.urls.length, failed },
  };
}
