// The error wire of /auth/v1 (WIRE.md §4, §2): body shapes by API version, x-sb-error-code, the echoed
// X-Supabase-Api-Version header and the CORS headers a browser needs to read them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const wrongLogin = { email: 'nobody@example.com', password: 'Whatever-1' };

describe('error bodies', () => {
  test('with X-Supabase-Api-Version 2024-01-01: {code, message}, echoed version, x-sb-error-code', async () => {
    const res = await raw(t, '/token?grant_type=password', { body: wrongLogin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    expect(res.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(res.headers.get('x-sb-error-code')).toBe('invalid_credentials');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('without the version header: the legacy {code: status, error_code, msg}', async () => {
    const res = await raw(t, '/token?grant_type=password', {
      body: wrongLogin,
      headers: { 'X-Supabase-Api-Version': undefined },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    expect(res.headers.get('x-supabase-api-version')).toBeNull();
    expect(res.headers.get('x-sb-error-code')).toBe('invalid_credentials');
  });

  test('a version before 2024-01-01 or a malformed one gets the legacy shape', async () => {
    for (const version of ['2023-12-31', 'latest']) {
      const res = await raw(t, '/token?grant_type=password', {
        body: wrongLogin,
        headers: { 'X-Supabase-Api-Version': version },
      });
      expect(res.body).toMatchObject({ code: 400, error_code: 'invalid_credentials' });
    }
  });

  test('weak_password carries the reasons in both shapes', async () => {
    const body = { email: uniqueEmail('wire'), password: 'abc' };
    const modern = await raw(t, '/signup', { body });
    expect(modern.status).toBe(422);
    expect(modern.body).toEqual({
      code: 'weak_password',
      message: expect.stringMatching(/^Password should be at least 8 characters\. /),
      weak_password: { reasons: ['length', 'characters'] },
    });
    const legacy = await raw(t, '/signup', { body, headers: { 'X-Supabase-Api-Version': undefined } });
    expect(legacy.body).toMatchObject({
      code: 422,
      error_code: 'weak_password',
      weak_password: { reasons: ['length', 'characters'] },
    });
    expect(legacy.body.msg).toBe(modern.body.message);
  });

  test('OAuth-style errors keep {error, error_description} whatever the version', async () => {
    for (const version of ['2024-01-01', undefined]) {
      const res = await raw(t, '/token?grant_type=refresh_token', {
        body: {},
        headers: { 'X-Supabase-Api-Version': version },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: 'refresh_token required' });
    }
  });

  test('the hosted gateway answer without an API key', async () => {
    const res = await raw(t, '/token?grant_type=password', {
      body: wrongLogin,
      headers: { apikey: undefined, Authorization: undefined },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      message: 'No API key found in request',
      hint: 'No `apikey` request header or url param was found.',
    });
  });
});

describe('CORS', () => {
  test('a cross-origin error exposes X-Supabase-Api-Version so the browser client can read error.code', async () => {
    const res = await raw(t, '/token?grant_type=password', {
      body: wrongLogin,
      headers: { Origin: 'http://127.0.0.1:4321' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4321');
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toContain('x-supabase-api-version');
  });

  test('preflight allows the headers supabase-js sends', async () => {
    const res = await fetch(`${t.url}/auth/v1/token?grant_type=password`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://127.0.0.1:4321',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'apikey, authorization, content-type, x-client-info, x-supabase-api-version',
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4321');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['apikey', 'authorization', 'content-type', 'x-client-info', 'x-supabase-api-version']) {
      expect(allowed).toContain(h);
    }
  });
});

describe('the client sees what the wire says', () => {
  test('error.code comes from the body because the response echoes the version header', async () => {
    const { error } = await t.anon().auth.signInWithPassword(wrongLogin);
    expect(error).toMatchObject({ name: 'AuthApiError', code: 'invalid_credentials', status: 400 });
  });

  test('a response stripped of the version header leaves error.code undefined (why the header matters)', async () => {
    const { createClient } = await import('@supabase/supabase-js');
    const stripping: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const headers = new Headers(res.headers);
      headers.delete('x-supabase-api-version');
      return new Response(res.body, { status: res.status, headers });
    };
    const client = createClient(t.url, t.config.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { fetch: stripping },
    });
    const { error } = await client.auth.signInWithPassword(wrongLogin);
    expect(error).toMatchObject({ status: 400, message: 'Invalid login credentials' });
    expect(error!.code).toBeUndefined();
  });
});

describe('rate limits from config.toml (on for this stack)', () => {
  let limited: TestStack;
  beforeAll(async () => {
    limited = await startTestStack({ rateLimits: true, authOverrides: { emailMaxFrequency: 0 } });
  });
  afterAll(() => limited?.stop());

  test('sign_in_sign_ups: the 31st sign-in attempt from one IP within 5 minutes is 429', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await raw(limited, '/token?grant_type=password', { body: wrongLogin });
      expect(res.status).toBe(400);
    }
    const over = await raw(limited, '/token?grant_type=password', { body: wrongLogin });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 'over_request_rate_limit', message: 'Request rate limit reached' });
    // Another address does not help: the limit is per IP.
    const { error } = await limited.anon().auth.signInWithPassword({ email: uniqueEmail(), password: 'Whatever-1' });
    expect(error).toMatchObject({ status: 429, code: 'over_request_rate_limit' });
    // Nor does writing X-Forwarded-For: no proxy is trusted here, so the socket's address counts.
    const spoofed = await raw(limited, '/token?grant_type=password', {
      body: wrongLogin,
      headers: { 'X-Forwarded-For': '203.0.113.50' },
    });
    expect(spoofed.status).toBe(429);
  });
});
