import { describe, expect, test, vi } from 'vitest';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import {
  BAD_FEED_MESSAGE,
  createHandler,
  notModified,
  wantsRevalidation,
} from '../../../supabase/functions/news/handler.ts';
import type { NewsAnswer } from '../../../supabase/functions/news/news.ts';
import { fixtureFetch } from './fixtures.ts';

const FEEDS = {
  business: 'https://feeds.test/business.xml',
  markets: 'https://feeds.test/markets.atom',
  headlines: 'https://feeds.test/headlines.xml',
  investing: 'https://feeds.test/investing.xml',
  down: 'https://feeds.test/down.xml',
};

function setup(
  routes: Record<string, string | number | Error>,
  env: Record<string, string> = {},
  now: () => number = Date.now,
) {
  // Every request the function makes (only feed reads: pictures are the browser's to load).
  const calls: string[] = [];
  const logged: string[] = [];
  const fetcher = fixtureFetch(routes, calls);
  const handler = createHandler(
    envFrom({
      NEWS_FEED_URLS: [FEEDS.business, FEEDS.markets, FEEDS.headlines].join(', '),
      INVESTING_FEED_URL: FEEDS.investing,
      ...env,
    }),
    { fetcher, log: (m) => logged.push(m), now },
  );
  return { handler, calls, logged };
}

const allUp = {
  [FEEDS.business]: 'business.xml',
  [FEEDS.markets]: 'markets.atom',
  [FEEDS.headlines]: 'headlines.xml',
  [FEEDS.investing]: 'investing.xml',
};

const get = (query: string, method = 'GET') => new Request(`http://fn.local/news${query}`, { method });

describe('news handler', () => {
  test('combined: 15 articles from three feeds, updatedAt, cacheable by a CDN', async () => {
    const { handler } = setup(allUp);
    const asked = Date.now();
    const res = await handler(get('?feed=combined'));
    const answered = Date.now();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60, s-maxage=300, stale-while-revalidate=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as NewsAnswer;
    expect(body.articles).toHaveLength(15);
    expect(new Set(body.articles.map((a) => a.source))).toEqual(
      new Set(['Fixture Business', 'Fixture Markets', 'Fixture Headlines']),
    );
    // Read while this request ran, however long it took.
    expect(Date.parse(body.updatedAt)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(body.updatedAt)).toBeLessThanOrEqual(answered);
    expect(body.feeds).toEqual({ ok: 3, total: 3, failed: [] });
  });

  test('investing: 20 articles from its own feed', async () => {
    const { handler } = setup(allUp);
    const body = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
    expect(body.articles).toHaveLength(20);
    expect(body.articles.every((a) => a.source === 'Fixture Investing')).toBe(true);
  });

  test.each([
    ['no feed', ''],
    ['an unknown feed', '?feed=sports'],
    ['a feed in the wrong case', '?feed=Combined'],
  ])('%s: 400 with a clear message', async (_name, query) => {
    const { handler, calls } = setup(allUp);
    const res = await handler(get(query));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: BAD_FEED_MESSAGE, code: 'invalid_input', field: 'feed' });
    expect(calls).toEqual([]);
  });

  test('OPTIONS answers the CORS preflight; POST is refused', async () => {
    const { handler } = setup(allUp);
    const pre = await handler(get('?feed=combined', 'OPTIONS'));
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-headers')).toContain('apikey');
    const post = await handler(get('?feed=combined', 'POST'));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
  });

  test('a failing feed is logged and skipped while the others answer', async () => {
    const { handler, logged } = setup({ ...allUp, [FEEDS.markets]: 503, [FEEDS.headlines]: new Error('ECONNREFUSED') });
    const body = (await (await handler(get('?feed=combined'))).json()) as NewsAnswer;
    expect(body.feeds).toEqual({ ok: 1, total: 3, failed: [FEEDS.markets, FEEDS.headlines] });
    expect(body.articles.length).toBe(6);
    expect(body.articles.every((a) => a.source === 'Fixture Business')).toBe(true);
    expect(logged.join('\n')).toContain(`${FEEDS.markets} skipped: HTTP 503`);
    expect(logged.join('\n')).toContain(`${FEEDS.headlines} skipped: ECONNREFUSED`);
  });

  test('a page that is not a feed is skipped too', async () => {
    const { handler, logged } = setup({ ...allUp, [FEEDS.investing]: 'thumb.png' });
    const body = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
    expect(body.articles).toEqual([]);
    expect(logged.join()).toContain('skipped');
  });

  test('every feed down: 200 with no articles (the site shows its empty state)', async () => {
    const { handler } = setup({ [FEEDS.business]: 500, [FEEDS.markets]: 500, [FEEDS.headlines]: 500 });
    const res = await handler(get('?feed=combined'));
    expect(res.status).toBe(200);
    expect(((await res.json()) as NewsAnswer).articles).toEqual([]);
  });

  test('50 concurrent requests make one upstream fetch per feed; later requests come from the cache', async () => {
    const { handler, calls } = setup(allUp);
    const answers = await Promise.all(Array.from({ length: 50 }, () => handler(get('?feed=combined'))));
    const bodies = new Set(await Promise.all(answers.map((r) => r.text())));
    expect(bodies.size).toBe(1);
    await handler(get('?feed=combined'));
    expect(calls.sort()).toEqual([FEEDS.business, FEEDS.headlines, FEEDS.markets]);
  });

  test('without feed settings the public defaults are fetched', async () => {
    const calls: string[] = [];
    const handler = createHandler(envFrom({}), { fetcher: fixtureFetch({}, calls), log: () => {} });
    await handler(get('?feed=combined'));
    expect(calls).toHaveLength(3);
    expect(calls.every((u) => u.startsWith('https://'))).toBe(true);
  });

  test('NEWS_CACHE_SECONDS sets the freshness and the Cache-Control', async () => {
    const { handler, calls } = setup(allUp, { NEWS_CACHE_SECONDS: '0' });
    const res = await handler(get('?feed=investing'));
    expect(res.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=0, stale-while-revalidate=0');
    // The second request is answered from the stale copy and starts a new read of the feed in the background.
    await handler(get('?feed=investing'));
    await vi.waitFor(() => expect(calls).toEqual([FEEDS.investing, FEEDS.investing]), { timeout: 10_000 });
  });

  test('an ETag on every answer; If-None-Match with it gets 304 without a body, a changed answer gets 200', async () => {
    const { handler } = setup(allUp, { NEWS_CACHE_SECONDS: '0' });
    const first = await handler(get('?feed=combined'));
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await handler(
      new Request('http://fn.local/news?feed=combined', { headers: { 'If-None-Match': `"other", W/${etag}` } }),
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
    // With no caching, each request starts a refresh in the background; once one has finished (a new
    // updatedAt), the same If-None-Match gets the full new answer.
    const later = await vi.waitFor(
      async () => {
        const res = await handler(
          new Request('http://fn.local/news?feed=combined', { headers: { 'If-None-Match': etag } }),
        );
        expect(res.status).toBe(200);
        return res;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(later.headers.get('etag')).not.toBe(etag);
    expect(((await later.json()) as NewsAnswer).articles).toHaveLength(15);
  });

  test('HEAD answers the headers without a body', async () => {
    const { handler } = setup(allUp);
    const res = await handler(get('?feed=investing', 'HEAD'));
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(await res.text()).toBe('');
  });

  test.each([
    [null, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
  ])('If-None-Match %s against "abc": %s', (header, expected) => {
    expect(notModified(header, '"abc"')).toBe(expected);
  });

  test('a failed feed is named without its query string or credentials', async () => {
    const secret = 'https://user:pw@feeds.test/investing.xml?key=s3cret';
    const { handler } = setup({ [secret]: 500 }, { INVESTING_FEED_URL: secret });
    const body = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
    expect(body.articles).toEqual([]);
    expect(body.feeds).toEqual({ ok: 0, total: 1, failed: ['https://feeds.test/investing.xml'] });
  });

  describe('Refresh (Cache-Control: no-cache)', () => {
    const refresh = (query: string, header = 'no-cache') =>
      new Request(`http://fn.local/news${query}`, { headers: { 'Cache-Control': header } });

    test('a plain GET answers from the cache; a no-cache GET reads the feed again and updates the cache', async () => {
      let now = 1_000_000;
      const routes: Record<string, string | number> = { ...allUp };
      const { handler, calls } = setup(routes, {}, () => now);
      const first = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
      routes[FEEDS.investing] = 500;
      now += 60_000;
      const plain = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
      expect(plain.updatedAt).toBe(first.updatedAt);
      expect(calls).toHaveLength(1);

      const fresh = (await (await handler(refresh('?feed=investing'))).json()) as NewsAnswer;
      expect(calls).toHaveLength(2);
      expect(fresh.articles).toEqual([]);
      expect(fresh.feeds.failed).toEqual([FEEDS.investing]);
      // Later plain views get the refreshed answer.
      const after = (await (await handler(get('?feed=investing'))).json()) as NewsAnswer;
      expect(after.feeds.failed).toEqual([FEEDS.investing]);
    });

    test('a storm of refreshes reads the feed once per minimum age (10 s by default)', async () => {
      let now = 1_000_000;
      const { handler, calls } = setup(allUp, {}, () => now);
      await handler(get('?feed=investing'));
      now += 9_000;
      const storm = await Promise.all(Array.from({ length: 50 }, () => handler(refresh('?feed=investing'))));
      expect(storm.every((r) => r.status === 200)).toBe(true);
      expect(calls).toHaveLength(1);
      now += 1_000;
      await Promise.all(Array.from({ length: 50 }, () => handler(refresh('?feed=investing', 'max-age=0'))));
      expect(calls).toHaveLength(2);
      await Promise.all(Array.from({ length: 50 }, () => handler(refresh('?feed=investing'))));
      expect(calls).toHaveLength(2);
    });

    test('NEWS_REFRESH_MIN_SECONDS sets the minimum age', async () => {
      let now = 1_000_000;
      const { handler, calls } = setup(allUp, { NEWS_REFRESH_MIN_SECONDS: '60' }, () => now);
      await handler(get('?feed=combined'));
      now += 30_000;
      await handler(refresh('?feed=combined'));
      expect(calls).toHaveLength(3);
      now += 30_000;
      await handler(refresh('?feed=combined'));
      expect(calls).toHaveLength(6);
    });
  });

  test('wantsRevalidation reads Cache-Control and Pragma as browsers send them for a reload', () => {
    const req = (headers: Record<string, string>) => new Request('http://fn.local/news', { headers });
    expect(wantsRevalidation(req({ 'Cache-Control': 'no-cache' }))).toBe(true);
    expect(wantsRevalidation(req({ 'Cache-Control': 'max-age=0' }))).toBe(true);
    expect(wantsRevalidation(req({ Pragma: 'no-cache' }))).toBe(true);
    expect(wantsRevalidation(req({ 'Cache-Control': 'max-age=60' }))).toBe(false);
    expect(wantsRevalidation(req({}))).toBe(false);
  });
});
