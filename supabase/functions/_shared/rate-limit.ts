// Per-key (per-IP) fixed-window counters kept in the function's memory.
export interface RateLimitRule {
  /** Requests allowed per window. */
  max: number;
  windowMs: number;
}

export type RateLimitResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  hit(key: string): RateLimitResult;
}

export function createRateLimiter(
  rule: RateLimitRule,
  options: { enabled?: boolean; now?: () => number } = {},
): RateLimiter {
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
