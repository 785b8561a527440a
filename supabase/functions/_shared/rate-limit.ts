// Per-key (per-IP) fixed-window rate limits for the functions.
import type { Env } from './env.ts';
import { rateLimitsEnabled } from './env.ts';
import { errorResponse } from './http.ts';

export interface RateLimitRule {
  /** Requests allowed per window. */
  max: number;
  windowMs: number;
}

export type RateLimitResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  hit(key: string): RateLimitResult | Promise<RateLimitResult>;
}

/**
 * The limiter a function uses: `name` keeps its counters apart from other functions'.
 * Every function gets its limiter here, so where the counters live is decided in one place.
 */
export function functionRateLimiter(env: Env, name: string, rule: RateLimitRule): RateLimiter {
  const memory = createRateLimiter(rule, { enabled: rateLimitsEnabled(env) });
  return { hit: (key) => memory.hit(`${name}:${key}`) };
}

/** 429 with a clear message and Retry-After when `key` is over the limit; undefined when it may go on. */
export async function refuseOverLimit(limiter: RateLimiter, key: string): Promise<Response | undefined> {
  const limit = await limiter.hit(key);
  if (limit.ok) return undefined;
  return errorResponse(
    429,
    tooManyRequestsMessage(limit.retryAfterSeconds),
    {},
    { 'Retry-After': String(limit.retryAfterSeconds) },
  );
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
