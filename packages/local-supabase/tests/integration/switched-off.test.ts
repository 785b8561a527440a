// What the project keeps switched off answers as hosted Supabase (GoTrue, PostgREST, the CLI's gateway)
// answers when the feature is off: phone sign-up and sign-in, OAuth providers, phone MFA, email change,
// embedding, Storage, and Realtime when REALTIME=off. Each through the supabase-js call that reaches it.
import { isAuthApiError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMember, type Member } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let member: Member;
const PHONE = '+15555550123';
const PASSWORD = 'Str0ng!Passw0rd';

beforeAll(async () => {
  t = await startTestStack();
  member = await createMember(t, 'off');
});
afterAll(() => t?.stop());

/** The number of rows in auth.users, to show a refused request created nobody. */
async function userCount(): Promise<number> {
  const [row] = await t.stack.ctx.db.query<{ n: number }>('select count(*)::int as n from auth.users');
  return row?.n ?? -1;
}

describe('phone provider', () => {
  test('signUp with a phone: 400 phone_provider_disabled, nobody created', async () => {
    const before = await userCount();
    const { data, error } = await t.anon().auth.signUp({ phone: PHONE, password: PASSWORD });
    expect(data.user).toBeNull();
    expect(isAuthApiError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Phone signups are disabled',
    });
    expect(await userCount()).toBe(before);
  });

  test('signInWithPassword with a phone: 422 phone_provider_disabled', async () => {
    const { data, error } = await t.anon().auth.signInWithPassword({ phone: PHONE, password: PASSWORD });
    expect(data.session).toBeNull();
    expect(error).toMatchObject({ status: 422, code: 'phone_provider_disabled', message: 'Phone logins are disabled' });
  });

  test('signInWithOtp with a phone: 400 phone_provider_disabled "Unsupported phone provider"', async () => {
    const before = await userCount();
    const { error } = await t.anon().auth.signInWithOtp({ phone: PHONE });
    expect(error).toMatchObject({
      status: 400,
      code: 'phone_provider_disabled',
      message: 'Unsupported phone provider',
    });
    expect(await userCount()).toBe(before);
  });

  test('resend an SMS: 400 phone_provider_disabled', async () => {
    const { error } = await t.anon().auth.resend({ type: 'sms', phone: PHONE });
    expect(error).toMatchObject({ status: 400, code: 'phone_provider_disabled', message: 'Phone logins are disabled' });
  });
});

test('signInAnonymously: 422 anonymous_provider_disabled, nobody created', async () => {
  const before = await userCount();
  const { data, error } = await t.anon().auth.signInAnonymously();
  expect(data.session).toBeNull();
  expect(error).toMatchObject({
    status: 422,
    code: 'anonymous_provider_disabled',
    message: 'Anonymous sign-ins are disabled',
  });
  expect(await userCount()).toBe(before);
});

describe('OAuth providers', () => {
  /** The URL signInWithOAuth sends the browser to, and what the browser gets there (no key, as a browser). */
  async function authorize(provider: string) {
    const { data, error } = await t.anon().auth.signInWithOAuth({
      // biome-ignore lint/suspicious/noExplicitAny: an unknown provider name is the point of the test.
      provider: provider as any,
      options: { skipBrowserRedirect: true, redirectTo: 'http://127.0.0.1:4321/login' },
    });
    expect(error).toBeNull();
    expect(data.url).toMatch(new RegExp(`^${t.url}/auth/v1/authorize\\?provider=`));
    const res = await fetch(data.url as string, { redirect: 'manual' });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  test('a known provider that is off: 400 validation_failed "provider is not enabled"', async () => {
    expect(await authorize('github')).toEqual({
      status: 400,
      body: { code: 400, error_code: 'validation_failed', msg: 'Unsupported provider: provider is not enabled' },
    });
  });

  test('an unknown provider: 400 validation_failed "could not be found"', async () => {
    const { status, body } = await authorize('myspace');
    expect(status).toBe(400);
    expect(body.msg).toBe('Unsupported provider: Provider myspace could not be found');
  });
});

describe('MFA: phone factors (TOTP is on, see mfa.test.ts)', () => {
  test('enroll a phone factor: 422 mfa_phone_enroll_not_enabled', async () => {
    const { error } = await member.client.auth.mfa.enroll({ factorType: 'phone', phone: PHONE });
    expect(error).toMatchObject({ status: 422, code: 'mfa_phone_enroll_not_enabled' });
    expect(error?.message).toBe('MFA enroll is disabled for Phone');
  });

  test('enroll without a session: 401 no_authorization', async () => {
    const { error } = await t.anon().auth.mfa.enroll({ factorType: 'totp' });
    // supabase-js refuses locally without a session; the server refuses a request without a bearer.
    expect(error).not.toBeNull();
    const res = await fetch(`${t.url}/auth/v1/factors`, {
      method: 'POST',
      headers: { apikey: t.config.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ factor_type: 'totp' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error_code: 'no_authorization' });
  });

  test('challenge a factor: 404 mfa_factor_not_found', async () => {
    const { error } = await member.client.auth.mfa.challenge({ factorId: crypto.randomUUID() });
    expect(error).toMatchObject({ status: 404, code: 'mfa_factor_not_found', message: 'Factor not found' });
  });

  test('no factors are listed, and the session stays at aal1', async () => {
    const { data: factors } = await member.client.auth.mfa.listFactors();
    expect(factors?.all).toEqual([]);
    const { data: level } = await member.client.auth.mfa.getAuthenticatorAssuranceLevel(member.accessToken);
    expect(level).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });
});

describe('email change', () => {
  test('updateUser with a new email: 422 validation_failed, the address is unchanged', async () => {
    const { error } = await member.client.auth.updateUser({ email: `changed-${member.email}` });
    expect(error).toMatchObject({
      status: 422,
      code: 'validation_failed',
      message: 'Changing the email address is not supported by this server',
    });
    const [row] = await t.stack.ctx.db.query<{ email: string; email_change: string | null }>(
      'select email, email_change from auth.users where id = $1::uuid',
      [member.id],
    );
    expect(row?.email).toBe(member.email);
    expect(row?.email_change ?? '').toBe('');
  });
});

describe('embedding', () => {
  test('select with an embedded relation: 400 PGRST200', async () => {
    const { data, error, status } = await member.client.from('profiles').select('user_id, newsletter_subscribers(*)');
    expect(status).toBe(400);
    expect(data).toBeNull();
    expect(error).toEqual({
      code: 'PGRST200',
      details:
        "Searched for a foreign key relationship between 'profiles' and 'newsletter_subscribers' in the schema 'public', but no matches were found.",
      hint: null,
      message: "Could not find a relationship between 'profiles' and 'newsletter_subscribers' in the schema cache",
    });
  });
});

describe('Storage (not run by this stack) and Realtime with REALTIME=off', () => {
  // Realtime runs unless REALTIME=off: a stack of its own started with it.
  let off: TestStack;
  beforeAll(async () => {
    off = await startTestStack({ realtime: false });
  });
  afterAll(() => off?.stop());

  test('storage calls: 503 "name resolution failed", as the CLI gateway with storage disabled', async () => {
    const { data, error } = await t.anon().storage.listBuckets();
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 503, message: 'name resolution failed' });
    const upload = await t.anon().storage.from('avatars').upload('a.txt', 'hello');
    expect(upload.error).toMatchObject({ status: 503, message: 'name resolution failed' });
  });

  test('storage answers CORS like the other services', async () => {
    const res = await fetch(`${t.url}/storage/v1/bucket`, { headers: { Origin: 'http://127.0.0.1:4321' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4321');
    expect(await res.json()).toEqual({ message: 'name resolution failed' });
  });

  test('realtime HTTP: 503; a channel subscription ends in CHANNEL_ERROR', async () => {
    const res = await fetch(`${off.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: off.config.anonKey, 'Content-Type': 'application/json' },
      body: '{"messages":[]}',
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ message: 'name resolution failed' });

    const client = off.anon();
    const status = await new Promise<string>((resolve) => {
      client.channel('signals').subscribe((s) => {
        if (s !== 'SUBSCRIBED') resolve(s);
      });
    });
    expect(status).toBe('CHANNEL_ERROR');
    await client.removeAllChannels();
  });

  test('a WebSocket upgrade to /realtime/v1/websocket gets the 503 answer', async () => {
    const url = `${off.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${off.config.anonKey}&vsn=1.0.0`;
    const outcome = await new Promise<string>((resolve) => {
      const ws = new WebSocket(url);
      ws.onopen = () => resolve('open');
      ws.onerror = () => resolve('error');
    });
    expect(outcome).toBe('error');
    const { request } = await import('node:http');
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${off.url}/realtime/v1/websocket`, {
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    expect(raw).toEqual({ status: 503, body: '{"message":"name resolution failed"}' });
  });
});
