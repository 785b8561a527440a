import { describe, expect, test, vi } from 'vitest';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import {
  createRateLimiter,
  functionRateLimiter,
  type RateLimiter,
  refuseOverLimit,
  tooManyRequestsMessage,
} from '../../../supabase/functions/_shared/rate-limit.ts';

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

describe('refuseOverLimit', () => {
  const answering = (result: Awaited<ReturnType<RateLimiter['hit']>>): RateLimiter => ({ hit: async () => result });

  test('over the limit: 429, the sentence, Retry-After', async () => {
    const res = await refuseOverLimit(answering({ ok: false, retryAfterSeconds: 540 }), '1.2.3.4');
    expect(res?.status).toBe(429);
    expect(res?.headers.get('retry-after')).toBe('540');
    expect(await res?.json()).toEqual({
      error: 'Too many requests from your address. Please try again in 9 minutes.',
      code: 'rate_limited',
    });
  });

  test('within the limit: nothing to answer', async () => {
    expect(await refuseOverLimit(answering({ ok: true, remaining: 3 }), '1.2.3.4')).toBeUndefined();
  });
});

describe('functionRateLimiter (counters in Postgres through supabase-js)', () => {
  const rule = { max: 1, windowMs: 60_000 };

  test('RATE_LIMITS=off never refuses and needs no database', async () => {
    const limiter = functionRateLimiter(envFrom({ RATE_LIMITS: 'off' }), 'f', rule, 'closed');
    for (let i = 0; i < 5; i++) expect(await limiter.hit('a')).toEqual({ ok: true, remaining: 1 });
  });

  test('open: lets the request through with a logged error when the database cannot be asked', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const unreachable = functionRateLimiter(
        envFrom({ SUPABASE_URL: 'http://127.0.0.1:9', SUPABASE_SERVICE_ROLE_KEY: 'key' }),
        'contact',
        rule,
        'open',
      );
      expect(await unreachable.hit('a')).toEqual({ ok: true, remaining: 1 });
      const unset = functionRateLimiter(envFrom({}), 'contact', rule, 'open');
      expect(await unset.hit('a')).toEqual({ ok: true, remaining: 1 });
      expect(logged.mock.calls.map((c) => String(c[0]))).toEqual([
        'contact: rate limit not checked, request let through:',
        'contact: rate limit not checked, request let through:',
      ]);
      expect(String(logged.mock.calls[1][1])).toBe('Missing environment variable SUPABASE_URL');
    } finally {
      logged.mockRestore();
    }
  });

  test('closed: refuses with a logged error when the database cannot be asked', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const env = envFrom({ SUPABASE_URL: 'http://127.0.0.1:9', SUPABASE_SERVICE_ROLE_KEY: 'key' });
      const limiter = functionRateLimiter(env, 'signup', rule, 'closed');
      expect(await limiter.hit('a')).toEqual({ ok: false, unchecked: true, retryAfterSeconds: 60 });
      const res = await refuseOverLimit(functionRateLimiter(env, 'signup', rule, 'closed'), 'a');
      expect(res?.status).toBe(503);
      expect(res?.headers.get('retry-after')).toBe('60');
      // The visitor reads when to come back, not the driver's error (no host, port or ECONNREFUSED).
      expect(await res?.json()).toEqual({
        error: 'This form is briefly unavailable. Please try again in a minute.',
        code: 'temporarily_unavailable',
      });
      expect(String(logged.mock.calls[0]?.[0])).toBe('signup: rate limit not checked, request refused:');
    } finally {
      logged.mockRestore();
    }
  });
});
