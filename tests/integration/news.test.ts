// The news function through the real stack: the functions host, its env, and fixture feeds served over HTTP
// on 127.0.0.1. Checks are on what the site gets: status, headers and the articles. The feeds' pictures live on
// a host of their own that logs every request: the function must never send it one.

import { createServer, type Server } from 'node:http';
import { startTestStack, type TestStack } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type FeedServer, startFeedServer } from '../../scripts/lib/feed-server.ts';

interface Answer {
  articles: {
    title: string;
    description: string;
    link: string;
    pubDate: string | null;
    source: string;
    ragStatus: string;
    thumbnail?: string;
  }[];
  updatedAt: string;
  feeds: { ok: number; total: number; failed: string[] };
}

let feeds: FeedServer;
let t: TestStack;
/** The pictures' host: answers every picture 200 except missing-image.png (404), and logs what reached it. */
let pictureHost: Server;
let pictures: string;
const pictureRequests: string[] = [];
/**
 * The news function's minimum age for a Refresh on this stack, in seconds: short, so the test waits little, and
 * long enough that a busy machine makes its first refresh within it (the 10 s default is unit-tested).
 */
const REFRESH_MIN_SECONDS = 6;

beforeAll(async () => {
  pictureHost = createServer((req, res) => {
    pictureRequests.push(`${req.method} ${req.url} ${req.headers['user-agent'] ?? ''}`);
    res.writeHead(req.url?.includes('missing-image') ? 404 : 200, { 'Content-Type': 'image/png' }).end();
  });
  await new Promise<void>((listening) => pictureHost.listen(0, '127.0.0.1', listening));
  pictures = `http://127.0.0.1:${(pictureHost.address() as { port: number }).port}`;
  feeds = await startFeedServer({ imagesOrigin: pictures });
  t = await startTestStack({
    functionSecrets: {
      // One feed of the combined set does not exist on the server: it is skipped, the others answer.
      NEWS_FEED_URLS: ['business.xml', 'markets.atom', 'headlines.xml', 'gone.xml']
        .map((f) => feeds.feedUrl(f))
        .join(','),
      INVESTING_FEED_URL: feeds.feedUrl('investing.xml'),
      // The Refresh rule's minimum age, shorter than the default 10 s (tests/unit/news/handler.test.ts) so that
      // the test below waits it out in seconds.
      NEWS_REFRESH_MIN_SECONDS: String(REFRESH_MIN_SECONDS),
    },
  });
});

afterAll(async () => {
  await t?.stop();
  await feeds?.close();
  pictureHost?.closeAllConnections();
  await new Promise((closed) => pictureHost?.close(closed));
});

const call = (query: string, init: RequestInit = {}) =>
  fetch(`${t.url}/functions/v1/news${query}`, {
    ...init,
    headers: { apikey: t.config.anonKey, Authorization: `Bearer ${t.config.anonKey}`, ...init.headers },
  });

describe('GET /functions/v1/news', () => {
  test('combined: 15 articles, newest first, from the three working feeds', async () => {
    const res = await call('?feed=combined');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+, s-maxage=\d+/);
    const body = (await res.json()) as Answer;
    expect(body.articles).toHaveLength(15);
    expect(body.feeds).toEqual({ ok: 3, total: 4, failed: [feeds.feedUrl('gone.xml')] });
    const times = body.articles.map((a) => Date.parse(a.pubDate ?? ''));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(body.articles[0]).toMatchObject({
      title: 'Stocks rally as markets gain & profits surge',
      description: 'Shares rose sharply on Wall Street & in Europe.',
      link: 'https://business.example.com/stocks-rally',
      source: 'Fixture Business',
      ragStatus: 'positive',
      thumbnail: `${pictures}/images/thumb-thumbnail.png`,
    });
    expect(body.articles.filter((a) => a.description.endsWith('...')).every((a) => a.description.length <= 203)).toBe(
      true,
    );
  });

  test('investing: 20 articles with thumbnails, descriptions cut at 300', async () => {
    const { data, error } = await t.anon().functions.invoke('news?feed=investing', { method: 'GET' });
    expect(error).toBeNull();
    const body = data as Answer;
    expect(body.articles).toHaveLength(20);
    expect(body.articles[0].thumbnail).toBe(`${pictures}/images/thumb-investing.png`);
    // The second article's picture answers 404 there: its address is passed on all the same (the function never
    // requests a picture; the page hides one that fails in the browser).
    expect(body.articles[1].title).toBe('Shares slump as recession fears grow');
    expect(body.articles[1].thumbnail).toBe(`${pictures}/images/missing-image.png`);
    const cut = body.articles.filter((a) => a.description.endsWith('...'));
    expect(cut.length).toBe(3);
    for (const a of cut) expect(a.description.length).toBeLessThanOrEqual(303);
  });

  test("the function requests no picture: both feeds read afresh, and the pictures' host saw no request", async () => {
    const fresh = { 'Cache-Control': 'no-cache' };
    const answers = await Promise.all(
      ['combined', 'investing'].map(
        async (feed) => (await (await call(`?feed=${feed}`, { headers: fresh })).json()) as Answer,
      ),
    );
    const named = answers.flatMap((a) => a.articles.flatMap((article) => article.thumbnail ?? []));
    expect(named.length).toBeGreaterThan(15);
    expect(named.every((url) => url.startsWith(`${pictures}/images/`))).toBe(true);
    expect(pictureRequests).toEqual([]);
  });

  test('a plain GET without any key answers, as the news pages call it (no CORS preflight)', async () => {
    const res = await fetch(`${t.url}/functions/v1/news?feed=investing`, {
      headers: { Origin: 'http://127.0.0.1:4321' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await res.json()) as Answer).articles).toHaveLength(20);
  });

  test('an unknown feed is a 400 with a clear message', async () => {
    const res = await call('?feed=weather');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'Unknown feed: use feed=combined or feed=investing.',
      code: 'invalid_input',
      field: 'feed',
    });
  });

  test('CORS preflight', async () => {
    const res = await fetch(`${t.url}/functions/v1/news?feed=combined`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1:4321', 'Access-Control-Request-Method': 'GET' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('answers come from the cache: the same updatedAt while the feeds go down', async () => {
    const first = (await (await call('?feed=investing')).json()) as Answer;
    await fetch(`${feeds.origin}/down`, { method: 'POST' });
    try {
      const again = (await (await call('?feed=investing')).json()) as Answer;
      expect(again.updatedAt).toBe(first.updatedAt);
      expect(again.articles).toHaveLength(20);
    } finally {
      await fetch(`${feeds.origin}/up`, { method: 'POST' });
    }
  });

  test('the cached answer carries an ETag and the gateway headers; If-None-Match with it gets 304, no body', async () => {
    const res = await call('?feed=combined');
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(Number(res.headers.get('content-length'))).toBe((await res.arrayBuffer()).byteLength);
    const again = await call('?feed=combined', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('x-frame-options')).toBe('DENY');
    expect(await again.text()).toBe('');
  });

  test('Refresh: Cache-Control: no-cache reads the feed again, at most once per NEWS_REFRESH_MIN_SECONDS; an unreadable feed is named', async () => {
    const refreshed = async () =>
      (await (await call('?feed=investing', { headers: { 'Cache-Control': 'no-cache' } })).json()) as Answer;
    // An answer just read (a refresh reads the feed unless the cached answer is younger than the minimum age).
    const cached = await refreshed();
    await fetch(`${feeds.origin}/down`, { method: 'POST' });
    try {
      // A plain view keeps the cached articles.
      const plain = (await (await call('?feed=investing')).json()) as Answer;
      expect(plain.articles).toHaveLength(20);
      // A refresh answers a new read once the answer is REFRESH_MIN_SECONDS old; until then, the cached one.
      let early = 0;
      await expect
        .poll(
          async () => {
            const answer = await refreshed();
            if (answer.updatedAt === cached.updatedAt) early += 1;
            return answer.feeds;
          },
          { timeout: 25_000, interval: 500 },
        )
        .toEqual({ ok: 0, total: 1, failed: [feeds.feedUrl('investing.xml')] });
      const age = Date.now() - Date.parse(cached.updatedAt);
      expect(age).toBeGreaterThanOrEqual(REFRESH_MIN_SECONDS * 1000);
      expect(early).toBeGreaterThan(0);
      // The refreshed answer is what plain views get now: no articles, the failed feed named.
      const after = (await (await call('?feed=investing')).json()) as Answer;
      expect(after.articles).toEqual([]);
      expect(after.feeds.failed).toEqual([feeds.feedUrl('investing.xml')]);
    } finally {
      await fetch(`${feeds.origin}/up`, { method: 'POST' });
    }
    // Back up: the next refresh (REFRESH_MIN_SECONDS later) reads the feed again.
    await expect.poll(async () => (await refreshed()).articles.length, { timeout: 25_000, interval: 500 }).toBe(20);
  }, 60_000);
});
