// One answer of the news function: every feed of the set fetched in parallel, failures logged and skipped.
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
  /** How long one picture's check may take before the picture is kept unchecked (default 3 s). */
  pictureTimeoutMs?: number;
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
    articles: await withWorkingPictures(
      toArticles(items, set),
      fetcher,
      options.pictureTimeoutMs ?? PICTURE_TIMEOUT_MS,
    ),
    updatedAt: new Date(now()).toISOString(),
    feeds: { ok, total: set.urls.length, failed },
  };
}

export const PICTURE_TIMEOUT_MS = 3000;

/**
 * The articles with each picture checked once per answer (HEAD, in parallel): a picture whose address cannot
 * be reached or answers an error is left out, so no reader's browser requests a picture known to fail (and logs
 * it). A server that refuses HEAD (405, 501) or a check past the time limit keeps the picture: the page still
 * hides a picture that fails in the browser.
 */
export async function withWorkingPictures(articles: Article[], fetcher: Fetch, timeoutMs: number): Promise<Article[]> {
  const works = async (url: string): Promise<boolean> => {
    try {
      const res = await fetcher(url, {
        method: 'HEAD',
        redirect: 'follow',
        signal: AbortSignal.timeout(timeoutMs),
        headers: { Accept: 'image/*', 'User-Agent': 'SignalOne-News/1.0' },
      });
      await res.body?.cancel().catch(() => {});
      return res.ok || res.status === 405 || res.status === 501;
    } catch (err) {
      return err instanceof Error && err.name === 'TimeoutError';
    }
  };
  const checks = await Promise.all(articles.map((a) => (a.thumbnail ? works(a.thumbnail) : true)));
  return articles.map((article, i) => {
    if (checks[i] || !article.thumbnail) return article;
    const { thumbnail: _, ...rest } = article;
    return rest;
  });
}
