// The REST service's JWT cache: a verified token's claims are reused only while the token is valid.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { signJwt } from '../../src/jwt.ts';
import { identify, JwtCache } from '../../src/rest/auth.ts';
import { ApiError } from '../../src/rest/errors.ts';

const SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const noDb = undefined as never;

describe('JwtCache', () => {
  test('keeps claims until exp, not at exp', () => {
    const cache = new JwtCache();
    cache.set('t', { role: 'authenticated', exp: 1000 }, 900);
    expect(cache.get('t', 999)).toEqual({ role: 'authenticated', exp: 1000 });
    expect(cache.get('t', 1000)).toBeUndefined();
    expect(cache.get('t', 999)).toBeUndefined(); // dropped once expired
  });

  test('a token without exp is kept for the maximum lifetime only; an expired one not at all', () => {
    const cache = new JwtCache({ maxLifetime: 60 });
    cache.set('forever', { role: 'anon' }, 100);
    expect(cache.get('forever', 159)).toEqual({ role: 'anon' });
    expect(cache.get('forever', 160)).toBeUndefined();
    cache.set('old', { role: 'anon', exp: 50 }, 100);
    expect(cache.get('old', 40)).toBeUndefined();
  });

  test('holds at most `size` tokens, dropping the oldest', () => {
    const cache = new JwtCache({ size: 2 });
    cache.set('a', { exp: 500 }, 0);
    cache.set('b', { exp: 500 }, 0);
    cache.set('c', { exp: 500 }, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('b', 1)).toEqual({ exp: 500 });
    expect(cache.get('c', 1)).toEqual({ exp: 500 });
  });
});

describe('identify with the cache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('a cached token that expires is refused as PostgREST refuses it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const now = Math.floor(Date.now() / 1000);
    const token = await signJwt({ role: 'authenticated', sub: 'u1', exp: now + 10 }, SECRET);
    const cache = new JwtCache();
    const first = await identify({ authorization: `Bearer ${token}` }, SECRET, noDb, cache);
    expect(first).toEqual({ role: 'authenticated', claims: { role: 'authenticated', sub: 'u1', exp: now + 10 } });
    expect(cache.get(token)).toBeDefined();
    vi.setSystemTime(new Date('2026-01-01T00:00:10Z'));
    const refused = await identify({ authorization: `Bearer ${token}` }, SECRET, noDb, cache).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 401, body: { code: 'PGRST303', message: 'JWT expired' } });
  });

  test('a token that fails verification is never cached, so it fails every time', async () => {
    const token = await signJwt(
      { role: 'service_role', exp: Math.floor(Date.now() / 1000) + 60 },
      'another-secret-of-at-least-32-characters!!',
    );
    const cache = new JwtCache();
    for (let i = 0; i < 2; i++) {
      const refused = await identify({ authorization: `Bearer ${token}` }, SECRET, noDb, cache).catch((e) => e);
      expect(refused).toMatchObject({
        status: 401,
        body: { code: 'PGRST301', message: 'JWT cryptographic operation failed' },
      });
    }
    expect(cache.get(token)).toBeUndefined();
  });
});
