// The news function over plain fetch with the public key: no supabase-js on the news pages.
import { type NewsAnswer, readNewsAnswer } from '../../lib/news-answer.ts';
import { SUPABASE_KEY } from '../../stores/api-key.ts';
import { SUPABASE_URL } from '../../stores/auth.ts';

export type FeedName = 'combined' | 'investing';

/** One answer of the news function; `reload` skips the browser's HTTP cache (the Refresh button). */
export async function loadNews(feed: FeedName, reload = false): Promise<NewsAnswer> {
  const res = await fetch(`${SUPABASE_URL}/functions/v1/news?feed=${feed}`, {
    headers: { apikey: SUPABASE_KEY, Authorization: `Bearer ${SUPABASE_KEY}` },
    cache: reload ? 'reload' : 'default',
  });
  if (!res.ok) throw new Error(`news: HTTP ${res.status}`);
  return readNewsAnswer(await res.json());
}
