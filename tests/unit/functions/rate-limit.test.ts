import { describe, expect, test } from 'vitest';
import { createRateLimiter, tooManyRequestsMessage } from '../../../supabase/functions/_shared/rate-limit.ts';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('fixed-window rate limit', () => {
  test('allows max hits per window, then refuses with the time left', () => {
    const c = clock();
    const limiter = createRateLimiter({ max: 3, windowMs: 60_000 }, { now: c.now });
    expect([1, 2, 3].map(() => limiter.hit('1.2.3.4').ok)).toEqual([true, true, true]);
    c.advance(15_000);
    expect(limiter.hit('1.2.3.4')).toEqual({ ok: false, retryAfterSeconds: 45 });
  });

  test('keys are counted apart', () => {
    const limiter = createRateLimiter({ max: 1, windowMs: 60_000 }, { now: clock().now });
    expect(limiter.hit('a').ok).toBe(true);
    expect(limiter.hit('b').ok).toBe(true);
    expect(limiter.hit('a').ok).toBe(false);
  });

  test('a new window starts fresh', () => {
    const c = clock();
    const limiter = createRateLimiter({ max: 1, windowMs: 60_000 }, { now: c.now });
    limiter.hit('a');
    c.advance(59_999);
    expect(limiter.hit('a').ok).toBe(false);
    c.advance(1);
    expect(limiter.hit('a')).toEqual({ ok: true, remaining: 0 });
  });

  test('refused hits do not extend the window', () => {
    const c = clock();
    const limiter = createRateLimiter({ max: 1, windowMs: 10_000 }, { now: c.now });
    limiter.hit('a');
    for (let i = 0; i < 5; i++) {
      c.advance(1000);
      limiter.hit('a');
    }
    c.advance(5000);
    expect(limiter.hit('a').ok).toBe(true);
  });

  test('off (RATE_LIMITS=off) never refuses', () => {
    const limiter = createRateLimiter({ max: 1, windowMs: 60_000 }, { enabled: false });
    expect(Array.from({ length: 10 }, () => limiter.hit('a').ok).every(Boolean)).toBe(true);
  });

  test.each([
    [1, 'Too many requests from your address. Please try again in 1 second.'],
    [45, 'Too many requests from your address. Please try again in 45 seconds.'],
    [60, 'Too many requests from your address. Please try again in 1 minute.'],
    [61, 'Too many requests from your address. Please try again in 2 minutes.'],
    [600, 'Too many requests from your address. Please try again in 10 minutes.'],
  ])('message for %s s', (seconds, text) => {
    expect(tooManyRequestsMessage(seconds)).toBe(text);
  });
});
