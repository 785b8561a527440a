import { describe, expect, test } from 'vitest';
import { clientIp, userAgent } from '../../../supabase/functions/_shared/client-ip.ts';
import { envFrom, rateLimitsEnabled, requireEnv, runtimeEnv } from '../../../supabase/functions/_shared/env.ts';

const req = (headers: Record<string, string>) => new Request('http://fn.local/', { headers });

describe('clientIp', () => {
  test.each([
    [{ 'cf-connecting-ip': '203.0.113.7' }, '203.0.113.7'],
    [{ 'cf-connecting-ip': ' 2001:db8::1 ' }, '2001:db8::1'],
    [{ 'cf-connecting-ip': '::ffff:192.0.2.1' }, '::ffff:192.0.2.1'],
    // What the caller writes itself is never the address: the leftmost X-Forwarded-For entry, X-Real-IP.
    [{ 'cf-connecting-ip': '198.51.100.9', 'x-forwarded-for': '203.0.113.7, 198.51.100.9' }, '198.51.100.9'],
    [{ 'x-forwarded-for': '203.0.113.7' }, 'unknown'],
    [{ 'x-real-ip': '198.51.100.2' }, 'unknown'],
    [{}, 'unknown'],
    [{ 'cf-connecting-ip': '203.0.113.7, 10.0.0.1' }, 'unknown'],
    [{ 'cf-connecting-ip': 'f'.repeat(46) }, 'unknown'],
  ])('%j gives %s', (headers, ip) => {
    expect(clientIp(req(headers))).toBe(ip);
  });

  test('user agent is cut to a storable length', () => {
    expect(userAgent(req({ 'user-agent': 'a'.repeat(600) }))?.length).toBe(500);
    expect(userAgent(req({}))).toBeNull();
  });
});

describe('env', () => {
  test('an injected environment holds only its own values', () => {
    const env = envFrom({ SUPABASE_URL: 'http://127.0.0.1:1' });
    expect(env.get('SUPABASE_URL')).toBe('http://127.0.0.1:1');
    expect(env.get('PATH')).toBeUndefined();
  });

  test('requireEnv names the missing variable', () => {
    expect(() => requireEnv(envFrom({}), 'SMTP_URL')).toThrow('Missing environment variable SMTP_URL');
    expect(() => requireEnv(envFrom({ SMTP_URL: '' }), 'SMTP_URL')).toThrow('SMTP_URL');
  });

  test('in Node without Deno the runtime environment is process.env', () => {
    process.env.CONTACT_ENV_PROBE = 'yes';
    expect(runtimeEnv().get('CONTACT_ENV_PROBE')).toBe('yes');
    delete process.env.CONTACT_ENV_PROBE;
  });

  test('Deno.env wins where Deno exists', () => {
    const g = globalThis as { Deno?: unknown };
    g.Deno = { env: { get: (name: string) => (name === 'X' ? 'from-deno' : undefined) } };
    try {
      expect(runtimeEnv().get('X')).toBe('from-deno');
    } finally {
      delete g.Deno;
    }
  });

  test.each([
    ['off', false],
    ['OFF', false],
    ['on', true],
    ['', true],
    [undefined, true],
  ])('RATE_LIMITS=%s: limits on = %s', (value, on) => {
    expect(rateLimitsEnabled(envFrom({ RATE_LIMITS: value }))).toBe(on);
  });
});
