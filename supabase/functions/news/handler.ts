// news over HTTP: GET ?feed=combined|investing answers the cached articles of that feed set as JSON; a request
// with Cache-Control: no-cache (the Refresh button) gets a new read of the feeds, within a minimum age.
// Fetching, parsing and caching live in news.ts, parse.ts and cache.ts.
import { runInBackground } from '../_shared/background.ts';
import { clientIp } from '../_shared/client-ip.ts';
import { corsHeaders, options } from '../_shared/cors.ts';
import { type Env, runtimeEnv } from '../_shared/env.ts';
import { errorResponse, methodNotAllowed } from '../_shared/http.ts';
import { isolateRateLimiter, type RateLimitRule, refuseOverLimit } from '../_shared/rate-limit.ts';
import { createCache } from './cache.ts';
import { type FeedName, feedSets, isFeedName } from './feeds.ts';
import { FEED_LIMITS, type FetchLimits } from './fetch-feed.ts';
import { type LoadOptions, loadNews, type NewsAnswer } from './news.ts';

/**
 * Requests per IP address per window: generous, since answers come from the cache. Counted per isolate,
 * not in Postgres: a cached answer is cheaper than the database round trip a shared counter would cost.
 */
export const RATE_LIMIT: RateLimitRule = { max: 120, windowMs: 60_000 };

/** Seconds an answer stays fresh unless NEWS_CACHE_SECONDS says otherwise. */
export const DEFAULT_CACHE_SECONDS = 300;
/** An answer from which every feed failed is retried after this many seconds at most. */
const FAILED_CACHE_SECONDS = 30;
/**
 * A request that asks to revalidate (the Refresh button) gets a new read of the feeds unless the cached answer
 * is younger than this (NEWS_REFRESH_MIN_SECONDS): however many such requests arrive, each isolate reads each
 * feed set at most once per this many seconds, with no shared state between isolates.
 */
export const DEFAULT_REFRESH_MIN_SECONDS = 10;

export const BAD_FEED_MESSAGE = 'Unknown feed: use feed=combined or feed=investing.';

interface Cached {
  answer: NewsAnswer;
  /** The JSON body, serialized and encoded once per refresh instead of once per request. */
  body: Uint8Array<ArrayBuffer>;
  /** Strong validator of that body: a browser or CDN that has it gets 304 without the body. */
  etag: string;
  /** The 200's headers and the 304's, built once per answer (a Response copies its init headers). */
  headers: Record<string, string>;
  notModifiedHeaders: Record<string, string>;
}

const encoder = new TextEncoder();

/** `"<sha-256 of the body, first 16 bytes in hex>"`: changes whenever the answer does (updatedAt included). */
async function entityTag(body: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
  return `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')}"`;
}

/** If-None-Match matches when it lists the tag (weak comparison, as for GET) or is `*`. */
export function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}

function cacheSeconds(env: Env): number {
  const value = Number(env.get('NEWS_CACHE_SECONDS'));
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_CACHE_SECONDS;
}

function refreshMinSeconds(env: Env): number {
  const raw = env.get('NEWS_REFRESH_MIN_SECONDS')?.trim();
  const value = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_REFRESH_MIN_SECONDS;
}

/**
 * The request asks for a fresh answer: `Cache-Control: no-cache` or `max-age=0`, or `Pragma: no-cache`, as a
 * browser sends them by itself for fetch(url, { cache: 'reload' }) (no extra header of the page's own, so
 * still no CORS preflight).
 */
export function wantsRevalidation(req: Request): boolean {
  const cacheControl = req.headers.get('cache-control') ?? '';
  return (
    /(^|,)\s*(no-cache|max-age\s*=\s*0)\s*(,|$)/i.test(cacheControl) ||
    (!cacheControl && /no-cache/i.test(req.headers.get('pragma') ?? ''))
  );
}

/** NEWS_FEED_TIMEOUT_MS: how long one feed may take before it is skipped (default 10 s). */
function feedLimits(env: Env): FetchLimits {
  const ms = Number(env.get('NEWS_FEED_TIMEOUT_MS'));
  return Number.isFinite(ms) && ms > 0 ? { ...FEED_LIMITS, timeoutMs: ms } : FEED_LIMITS;
}

export function createHandler(env: Env = runtimeEnv(), load: LoadOptions = {}): (req: Request) => Promise<Response> {
  load = { ...load, limits: load.limits ?? feedLimits(env) };
  const limiter = isolateRateLimiter(env, 'news', RATE_LIMIT);
  const sets = feedSets(env);
  const ttl = cacheSeconds(env);
  // Browsers keep an answer a minute at most; a CDN keeps it as long as this function does.
  const cacheControl = `public, max-age=${Math.min(ttl, 60)}, s-maxage=${ttl}, stale-while-revalidate=${ttl}`;
  const cache = createCache<Cached>(
    async (name) => {
      const answer = await loadNews(sets[name as FeedName], load);
      const body = encoder.encode(JSON.stringify(answer));
      const etag = await entityTag(body);
      const notModifiedHeaders = { ...corsHeaders, 'Cache-Control': cacheControl, ETag: etag };
      return {
        answer,
        body,
        etag,
        notModifiedHeaders,
        headers: { ...notModifiedHeaders, 'Content-Type': 'application/json' },
      };
    },
    {
      ttlMs: ttl * 1000,
      poorTtlMs: Math.min(ttl, FAILED_CACHE_SECONDS) * 1000,
      isPoor: ({ answer }) => answer.feeds.ok === 0,
      background: (task) => runInBackground('news refresh', task),
      minAgeMs: refreshMinSeconds(env) * 1000,
      now: load.now,
    },
  );

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(['GET']);

    const refused = await refuseOverLimit(limiter, clientIp(req));
    if (refused) return refused;

    const feed = new URL(req.url).searchParams.get('feed');
    if (!isFeedName(feed)) return errorResponse(400, 'invalid_input', BAD_FEED_MESSAGE, { field: 'feed' });

    try {
      const cached = await cache.get(feed, { revalidate: wantsRevalidation(req) });
      if (notModified(req.headers.get('if-none-match'), cached.etag)) {
        return new Response(null, { status: 304, headers: cached.notModifiedHeaders });
      }
      return new Response(req.method === 'HEAD' ? null : cached.body, { status: 200, headers: cached.headers });
    } catch (err) {
      console.error('news:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', 'Failed to load news. Please try again.');
    }
  };
}
