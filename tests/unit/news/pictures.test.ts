// Pictures are the reader's browser's to load: the function requests the feeds and nothing else, whatever
// addresses the feeds name for their pictures, and passes every http(s) picture address on unchanged.
import { describe, expect, test } from 'vitest';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import { feedSets } from '../../../supabase/functions/news/feeds.ts';
import { loadNews } from '../../../supabase/functions/news/news.ts';

const FEED = 'https://feeds.test/pictures.xml';
const pictures = [
  'http://127.0.0.1:5432/admin?x=1',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]:8080/internal.png',
  'https://feeds.test/redirect-to-internal',
  'https://img.example/gone.png',
];
const item = (n: number, picture: string) =>
  `<item><title>Story ${n}</title><link>https://news.example/${n}</link>` +
  `<pubDate>Sun, 22 Nov 2026 ${String(10 + n).padStart(2, '0')}:00:00 GMT</pubDate>` +
  `<media:thumbnail url="${picture}"/></item>`;
const rss = `<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Fixture</title>${[
  ...pictures.map((p, i) => item(i, p)),
  item(7, 'javascript:alert(1)'),
  item(8, 'file:///etc/passwd'),
].join('')}</channel></rss>`;

describe('pictures', () => {
  test('the function requests only the feed: every picture address is passed on unrequested', async () => {
    const requested: { url: string; method: string }[] = [];
    const fetcher = async (url: string, init?: RequestInit): Promise<Response> => {
      requested.push({ url, method: init?.method ?? 'GET' });
      if (url === FEED) return new Response(rss, { headers: { 'Content-Type': 'application/rss+xml' } });
      return new Response(null, { status: url.includes('gone') ? 404 : 200 });
    };
    const set = feedSets(envFrom({ INVESTING_FEED_URL: FEED })).investing;
    const answer = await loadNews(set, { fetcher, log: () => {} });

    expect(requested).toEqual([{ url: FEED, method: 'GET' }]);
    const byTitle = Object.fromEntries(answer.articles.map((a) => [a.title, a.thumbnail]));
    pictures.forEach((picture, i) => {
      expect(byTitle[`Story ${i}`]).toBe(new URL(picture).href);
    });
    // Only absolute http(s) addresses are pictures.
    expect(byTitle['Story 7']).toBeUndefined();
    expect(byTitle['Story 8']).toBeUndefined();
  });
});
