// Per-key (per-address: IPv4, or an IPv6 /64) fixed-window rate limits for the functions: counted in Postgres
// for the deployed functions, in memory for unit use (createRateLimiter).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { addressKey } from './client-ip.ts';
import type { Env } from './env.ts';
import { rateLimitsEnabled, requireEnv } from './env.ts';
import { errorResponse } from './http.ts';

export interface RateLimitRule {
  /** Requests allowed per window. */
  max: number;
  windowMs: number;
}

export type RateLimitResult =
  | { ok: true; remaining: number }
  | { ok: false; retryAfterSeconds: number }
  /** The count could not be checked and the limiter fails closed: the request is refused with a 503. */
  | { ok: false; unchecked: true; retryAfterSeconds: number };

export interface RateLimiter {
  hit(key: string): RateLimitResult | Promise<RateLimitResult>;
}

/** How long a limiter waits for the database before giving up on the count. */
const DB_TIMEOUT_MS = 5000;

/**
 * What a limiter does when the count cannot be checked (database down, slow past DB_TIMEOUT_MS, misconfigured):
 * 'open' lets the request through, 'closed' refuses it with a 503. Each function picks one and says why.
 */
export type WhenUnchecked = 'open' | 'closed';

/** How long a refused caller is asked to wait when the count could not be checked. */
export const UNCHECKED_RETRY_SECONDS = 60;

/** The sentence a person sees when a fail-closed limit could not be checked. */
export const UNCHECKED_MESSAGE = 'This form is briefly unavailable. Please try again in a minute.';

interface HitAnswer {
  allowed: boolean;
  remaining: number;
  retry_after_seconds: number;
}

/**
 * The limiter a function uses: `name` keeps its counters apart from other functions'. The counters
 * live in Postgres (public.rate_limit_hit, callable by service_role only), reached through supabase-js
 * with SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY, so one limit holds across every isolate that
 * hosted Supabase runs the function in. The client is made on the first hit, once per handler.
 *
 * When the database cannot be asked (down, slow, misconfigured) the error is logged and `whenUnchecked`
 * decides: 'open' lets the request through, 'closed' refuses it (503, Retry-After). There is no default:
 * whoever makes a limiter weighs a refused real visitor against a caller who could make the database slow
 * and so switch the limit off.
 */
export function functionRateLimiter(
  env: Env,
  name: string,
  rule: RateLimitRule,
  whenUnchecked: WhenUnchecked,
): RateLimiter {
  if (!rateLimitsEnabled(env)) return { hit: () => ({ ok: true, remaining: rule.max }) };
  const windowSeconds = Math.max(1, Math.ceil(rule.windowMs / 1000));
  let client: SupabaseClient<Database> | undefined;
  return {
    async hit(key) {
      try {
        client ??= createClient<Database>(
          requireEnv(env, 'SUPABASE_URL'),
          requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'),
          {
            auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
          },
        );
        const { data, error } = await client
          .rpc('rate_limit_hit', { bucket: name, key, max_hits: rule.max, window_seconds: windowSeconds })
          .abortSignal(AbortSignal.timeout(DB_TIMEOUT_MS));
        if (error) throw new Error(`${error.code ?? ''} ${error.message}`.trim());
        const answer = data as HitAnswer | null;
        if (!answer || typeof answer.allowed !== 'boolean') throw new Error('unexpected answer from rate_limit_hit');
        return answer.allowed
          ? { ok: true, remaining: answer.remaining }
          : { ok: false, retryAfterSeconds: answer.retry_after_seconds };
      } catch (err) {
        const open = whenUnchecked === 'open';
        console.error(
          `${name}: rate limit not checked, request ${open ? 'let through' : 'refused'}:`,
          err instanceof Error ? err.message : err,
        );
        return open
          ? { ok: true, remaining: rule.max }
          : { ok: false, unchecked: true, retryAfterSeconds: UNCHECKED_RETRY_SECONDS };
      }
    },
  };
}

/**
 * A limiter counted in this isolate's memory only: for answers that cost nothing but CPU (the news cache),
 * where a database round trip per request would cost more than the request itself. Each isolate allows
 * `rule.max`, so across isolates the limit is looser; the CDN in front absorbs repeats anyway.
 */
export function isolateRateLimiter(env: Env, name: string, rule: RateLimitRule): RateLimiter {
  const memory = createRateLimiter(rule, { enabled: rateLimitsEnabled(env) });
  return { hit: (key) => memory.hit(`${name}:${key}`) };
}

/**
 * 429 with a clear message and Retry-After when the caller at `ip` (clientIp) is over the limit; 503 when a
 * fail-closed limit could not be checked (the body says only to come back, never why: no host, port or driver
 * text); undefined when the request may go on. The count is kept per addressKey: an IPv6 caller by its /64.
 */
export async function refuseOverLimit(limiter: RateLimiter, ip: string): Promise<Response | undefined> {
  const limit = await limiter.hit(addressKey(ip));
  if (limit.ok) return undefined;
  const headers = { 'Retry-After': String(limit.retryAfterSeconds) };
  if ('unchecked' in limit) return errorResponse(503, 'temporarily_unavailable', UNCHECKED_MESSAGE, { headers });
  return errorResponse(429, 'rate_limited', tooManyRequestsMessage(limit.retryAfterSeconds), { headers });
}

export function createRateLimiter(
  rule: RateLimitRule,
  options: { enabled?: boolean; now?: () => number } = {},
): { hit(key: string): RateLimitResult } {
  const { enabled = true, now = Date.now } = options;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();

  function sweep(t: number) {
    if (t - lastSweep < rule.windowMs) return;
    lastSweep = t;
    for (const [key, w] of windows) if (t - w.start >= rule.windowMs) windows.delete(key);
  }

  return {
    hit(key) {
      if (!enabled) return { ok: true, remaining: rule.max };
      const t = now();
      sweep(t);
      let w = windows.get(key);
      if (!w || t - w.start >= rule.windowMs) {
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      if (w.count >= rule.max) {
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + rule.windowMs - t) / 1000)) };
      }
      w.count += 1;
      return { ok: true, remaining: rule.max - w.count };
    },
  };
}

/** The sentence a person sees when they are over the limit. */
export function tooManyRequestsMessage(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait =
    retryAfterSeconds < 60
      ? `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`
      : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `Too many requests from your address. Please try again in ${wait}.`;
}
