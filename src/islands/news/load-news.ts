// The news function over plain fetch: no supabase-js on the news pages. The function is public
// (verify_jwt = false; the gateway asks no key of functions), so the request carries no key header: a plain
// GET is a "simple" cross-origin request, with no CORS preflight round trip before the articles.
import { type NewsAnswer, readNewsAnswer } from '../../lib/news-answer.ts';
import { SUPABASE_URL } from '../../stores/auth.ts';

export type FeedName = 'combined' | 'investing';

/** One answer of the news function; `reload` skips the browser's HTTP cache (the Refresh button). */
export async function loadNews(feed: FeedName, reload = false): Promise<NewsAnswer> {
  const res = await fetch(`${SUPABASE_URL}/functions/v1/news?feed=${feed}`, {
    cache: reload ? 'reload' : 'default',
  });
  if (!res.ok) throw new Error(`news: HTTP ${res.status}`);
  return readNewsAnswer(await res.json());
}
