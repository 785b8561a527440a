import { describe, expect, test } from 'vitest';
import { createCache } from '../../../supabase/functions/news/cache.ts';

/** A load whose calls are counted and whose answers the test releases by hand. */
function controlledLoad() {
  const pending: ((value: string) => void)[] = [];
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    load: (key: string) => {
      calls += 1;
      return new Promise<string>((resolve) => pending.push((v) => resolve(`${key}:${v}`)));
    },
    release(value: string) {
      const next = pending.shift();
      if (!next) throw new Error('no load waiting');
      next(value);
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('createCache', () => {
  test('100 concurrent first requests share one load', async () => {
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, { ttlMs: 1000 });
    const answers = Promise.all(Array.from({ length: 100 }, () => cache.get('combined')));
    await tick();
    expect(upstream.calls).toBe(1);
    upstream.release('v1');
    expect(new Set(await answers)).toEqual(new Set(['combined:v1']));
  });

  test('keys are cached apart', async () => {
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, { ttlMs: 1000 });
    const a = cache.get('combined');
    const b = cache.get('investing');
    upstream.release('1');
    upstream.release('2');
    expect([await a, await b]).toEqual(['combined:1', 'investing:2']);
  });

  test('a fresh answer is served without a load', async () => {
    let now = 0;
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, { ttlMs: 1000, now: () => now });
    const first = cache.get('k');
    upstream.release('v1');
    await first;
    now = 999;
    expect(await cache.get('k')).toBe('k:v1');
    expect(upstream.calls).toBe(1);
  });

  test('a stale answer is served at once while one refresh runs, then the new answer', async () => {
    let now = 0;
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, { ttlMs: 1000, now: () => now });
    const first = cache.get('k');
    upstream.release('v1');
    await first;
    now = 1000;
    const during = await Promise.all(Array.from({ length: 50 }, () => cache.get('k')));
    expect(new Set(during)).toEqual(new Set(['k:v1']));
    expect(upstream.calls).toBe(2);
    upstream.release('v2');
    await tick();
    expect(await cache.get('k')).toBe('k:v2');
    expect(upstream.calls).toBe(2);
  });

  test('a poor answer is fresh for the shorter time', async () => {
    let now = 0;
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, {
      ttlMs: 10_000,
      poorTtlMs: 100,
      isPoor: (v) => v.endsWith('empty'),
      now: () => now,
    });
    const first = cache.get('k');
    upstream.release('empty');
    await first;
    now = 100;
    await cache.get('k');
    expect(upstream.calls).toBe(2);
  });

  test('a failed first load rejects its callers, and the next request tries again', async () => {
    let calls = 0;
    const cache = createCache(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        return 'ok';
      },
      { ttlMs: 1000 },
    );
    await expect(cache.get('k')).rejects.toThrow('boom');
    expect(await cache.get('k')).toBe('ok');
  });

  test('a failed refresh keeps the stale answer and is logged', async () => {
    let now = 0;
    let calls = 0;
    const logged: string[] = [];
    const cache = createCache(
      async () => {
        calls += 1;
        if (calls === 2) throw new Error('upstream down');
        return `v${calls}`;
      },
      { ttlMs: 1000, now: () => now, log: (m) => logged.push(m) },
    );
    expect(await cache.get('k')).toBe('v1');
    now = 2000;
    expect(await cache.get('k')).toBe('v1');
    await tick();
    expect(logged.join()).toContain('upstream down');
    expect(await cache.get('k')).toBe('v1');
    await tick();
    expect(await cache.get('k')).toBe('v3');
  });

  test('the refresh of a stale answer runs through the given background runner', async () => {
    let now = 0;
    const tasks: (() => Promise<unknown>)[] = [];
    const cache = createCache(async () => `v${now}`, { ttlMs: 10, now: () => now, background: (t) => tasks.push(t) });
    await cache.get('k');
    now = 10;
    expect(await cache.get('k')).toBe('v0');
    expect(tasks).toHaveLength(1);
    await tasks[0]();
    expect(await cache.get('k')).toBe('v10');
  });

  test('revalidate waits for a new load unless the answer is younger than minAgeMs; callers share it', async () => {
    let now = 0;
    const upstream = controlledLoad();
    const cache = createCache(upstream.load, { ttlMs: 60_000, minAgeMs: 5_000, now: () => now });
    const first = cache.get('k');
    upstream.release('v1');
    await first;
    now = 4_999;
    expect(await cache.get('k', { revalidate: true })).toBe('k:v1');
    expect(upstream.calls).toBe(1);
    now = 5_000;
    const storm = Promise.all(Array.from({ length: 20 }, () => cache.get('k', { revalidate: true })));
    await tick();
    expect(upstream.calls).toBe(2);
    upstream.release('v2');
    expect(new Set(await storm)).toEqual(new Set(['k:v2']));
    expect(await cache.get('k')).toBe('k:v2');
  });
});
