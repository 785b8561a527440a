// The CAPTCHA on the forms' functions, with TURNSTILE_SECRET_KEY set as on a hosted project built with a site
// key: each function's handler served on 127.0.0.1 beside a real stack (its database, its mail catcher), and
// Turnstile's siteverify played by the stand-in verifier (TURNSTILE_VERIFY_URL). Checked: what the caller gets,
// what got stored or mailed, and what siteverify was asked.
import { randomUUID } from 'node:crypto';
import { type ServerType, serve } from '@hono/node-server';
import { FunctionsClient } from '@supabase/functions-js';
import { FunctionsHttpError } from '@supabase/supabase-js';
import { functionEnv } from 'local-supabase';
import { GOOD_PASSWORD, startTestStack, type TestStack, uniqueEmail } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CaptchaVerifierServer, startCaptchaVerifier } from '../../scripts/lib/captcha-verifier.ts';
import { consentVersion } from '../../src/lib/consent-version.ts';
import type { Database } from '../../supabase/database.types.ts';
import { CAPTCHA_MESSAGE } from '../../supabase/functions/_shared/captcha.ts';
import { type Env, envFrom } from '../../supabase/functions/_shared/env.ts';
import { WRONG_PASSWORD_MESSAGE } from '../../supabase/functions/account/account.ts';
import { createHandler as accountHandler } from '../../supabase/functions/account/handler.ts';
import { createHandler as newsletterHandler } from '../../supabase/functions/newsletter-signup/handler.ts';
import { createHandler as resetHandler } from '../../supabase/functions/password-reset/handler.ts';
import { createHandler as contactHandler } from '../../supabase/functions/send-contact-email/handler.ts';
import { createHandler as signupHandler } from '../../supabase/functions/user-signup/handler.ts';
import { labels } from '../content.ts';

type Handler = (req: Request) => Promise<Response>;

interface Served {
  client: FunctionsClient;
  close(): Promise<void>;
}

/** A function's handler on its own port, reached as hosted Supabase's edge delivers a visitor (CF-Connecting-IP). */
function serveFunction(make: (env: Env) => Handler, env: Env, key: string, visitor: string): Promise<Served> {
  const handler = make(env);
  return new Promise((resolve) => {
    const server: ServerType = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve({
        client: new FunctionsClient(`http://127.0.0.1:${info.port}`, {
          headers: { apikey: key, Authorization: `Bearer ${key}`, 'CF-Connecting-IP': visitor },
        }),
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

async function failure(error: unknown) {
  expect(error).toBeInstanceOf(FunctionsHttpError);
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const sender = () => `captcha-${randomUUID().slice(0, 8)}@example.com`;

let t: TestStack;
let verifier: CaptchaVerifierServer;

beforeAll(async () => {
  [t, verifier] = await Promise.all([startTestStack(), startCaptchaVerifier()]);
});
afterAll(async () => {
  await Promise.all([t?.stop(), verifier?.close()]);
});

/** The function's environment on a hosted project with the secret set, siteverify being the stand-in. */
const withSecret = () =>
  envFrom({ ...functionEnv(t.config), TURNSTILE_SECRET_KEY: verifier.secret, TURNSTILE_VERIFY_URL: verifier.url });

describe('send-contact-email with TURNSTILE_SECRET_KEY', () => {
  const VISITOR = '198.51.100.23';
  let fn: Served;
  beforeAll(async () => {
    fn = await serveFunction(contactHandler, withSecret(), t.config.anonKey, VISITOR);
  });
  afterAll(() => fn?.close());

  async function stored(email: string) {
    const { data, error } = await t
      .admin<Database>()
      .from('contact_messages')
      .select('email, message, ip')
      .eq('email', email);
    expect(error).toBeNull();
    return data;
  }

  async function mailedFrom(email: string) {
    const found = [];
    for (const m of await t.mail.list()) {
      const full = (await t.mail.get(m.ID)) as { ReplyTo: { Address: string }[] };
      if (full.ReplyTo.some((r) => r.Address === email)) found.push(full);
    }
    return found;
  }

  const message = (email: string, captchaToken?: string) => ({
    name: 'Ann Lee',
    email,
    message: 'A question about the signals.',
    ...(captchaToken === undefined ? {} : { captchaToken }),
  });

  test('a token the widget gave: the message is stored and mailed, siteverify asked once with the visitor', async () => {
    const email = sender();
    const token = verifier.issue();
    const { data, error } = await fn.client.invoke('send-contact-email', { body: message(email, token) });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await stored(email)).toEqual([{ email, message: 'A question about the signals.', ip: VISITOR }]);
    await t.mail.waitFor(t.config.functionSecrets.CONTACT_INBOX);
    expect(await mailedFrom(email)).toHaveLength(1);
    expect(verifier.calls.filter((c) => c.token === token)).toEqual([
      { token, remoteip: VISITOR, success: true, codes: [] },
    ]);
  });

  test.each([
    ['no token', undefined],
    ['a forged token', 'forged-token'],
    ['an empty token', ''],
  ])('%s: 400 with the message, nothing stored or mailed', async (_name, token) => {
    const email = sender();
    const { data, error } = await fn.client.invoke('send-contact-email', { body: message(email, token) });
    expect(data).toBeNull();
    expect(await failure(error)).toEqual({ status: 400, body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' } });
    expect(await stored(email)).toEqual([]);
    expect(await mailedFrom(email)).toEqual([]);
  });

  test('a token used once is refused the second time: one message only', async () => {
    const email = sender();
    const token = verifier.issue();
    expect((await fn.client.invoke('send-contact-email', { body: message(email, token) })).error).toBeNull();
    const again = await fn.client.invoke('send-contact-email', { body: message(email, token) });
    expect(await failure(again.error)).toEqual({
      status: 400,
      body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' },
    });
    expect(await stored(email)).toHaveLength(1);
  });

  test('siteverify unreachable: the message is kept anyway (the form fails open, as its rate limit)', async () => {
    const email = sender();
    await fetch(new URL('/down', verifier.url), { method: 'POST' });
    try {
      const { data, error } = await fn.client.invoke('send-contact-email', {
        body: message(email, verifier.issue()),
      });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true });
    } finally {
      await fetch(new URL('/up', verifier.url), { method: 'POST' });
    }
    expect(await stored(email)).toHaveLength(1);
  });

  test('a bad field is said first, and the token is not spent on it', async () => {
    const token = verifier.issue();
    const { error } = await fn.client.invoke('send-contact-email', {
      body: { name: 'Ann', email: 'not-an-address', message: 'Hi', captchaToken: token },
    });
    expect((await failure(error)).body).toMatchObject({ field: 'email' });
    expect(verifier.calls.some((c) => c.token === token)).toBe(false);
  });
});

describe('send-contact-email without TURNSTILE_SECRET_KEY', () => {
  test('as before: a message without a token is stored, and siteverify is never asked', async () => {
    const fn = await serveFunction(
      contactHandler,
      envFrom({ ...functionEnv(t.config), TURNSTILE_VERIFY_URL: verifier.url }),
      t.config.anonKey,
      '198.51.100.24',
    );
    try {
      const email = sender();
      const before = verifier.calls.length;
      const { data, error } = await fn.client.invoke('send-contact-email', {
        body: { name: 'Bo', email, message: 'No widget on this build.' },
      });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true });
      const { data: rows } = await t.admin<Database>().from('contact_messages').select('email').eq('email', email);
      expect(rows).toHaveLength(1);
      expect(verifier.calls.length).toBe(before);
    } finally {
      await fn.close();
    }
  });
});

describe('user-signup with TURNSTILE_SECRET_KEY', () => {
  const VISITOR = '198.51.100.31';
  let fn: Served;
  beforeAll(async () => {
    fn = await serveFunction(signupHandler, withSecret(), t.config.anonKey, VISITOR);
  });
  afterAll(() => fn?.close());

  const signup = (email: string, captchaToken?: string) => ({
    email,
    password: GOOD_PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
    ...(captchaToken === undefined ? {} : { captchaToken }),
  });

  async function users(email: string) {
    return t.stack.ctx.db.query<{ id: string }>('select id from auth.users where lower(email) = lower($1)', [email]);
  }

  /** An unconfirmed account at `email`, made directly at the auth service as anyone may. */
  async function pendingAccount(email: string): Promise<string> {
    const { data, error } = await t.anon().auth.signUp({ email, password: 'Stranger-pass1!' });
    expect(error).toBeNull();
    await t.mail.waitFor(email);
    await t.mail.clear();
    return data.user?.id ?? '';
  }

  test('a token the widget gave: the account is made and mailed; siteverify asked once, the auth service not again', async () => {
    const email = uniqueEmail('captcha-signup');
    const token = verifier.issue();
    const { data, error } = await fn.client.invoke('user-signup', { body: signup(email, token) });
    expect(error).toBeNull();
    expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
    expect(await users(email)).toHaveLength(1);
    expect((await t.mail.waitFor(email)).Subject).toBe('Confirm your SignalOne account');
    expect(verifier.calls.filter((c) => c.token === token)).toEqual([
      { token, remoteip: VISITOR, success: true, codes: [] },
    ]);
  });

  test.each([
    ['no token', undefined],
    ['a forged token', 'forged-token'],
  ])('%s: 400 with the message; the pending account at the address stays, no new mail', async (_name, token) => {
    const email = uniqueEmail('captcha-signup-bad');
    const stranger = await pendingAccount(email);
    const { error } = await fn.client.invoke('user-signup', { body: signup(email, token) });
    expect(await failure(error)).toEqual({ status: 400, body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' } });
    expect(await users(email)).toEqual([{ id: stranger }]);
    expect((await t.mail.list()).filter((m) => m.To.some((to) => to.Address === email))).toEqual([]);
  });

  test('siteverify unreachable: 503, and nothing changes (the sign-up fails closed)', async () => {
    const email = uniqueEmail('captcha-signup-down');
    await fetch(new URL('/down', verifier.url), { method: 'POST' });
    try {
      const { error } = await fn.client.invoke('user-signup', { body: signup(email, verifier.issue()) });
      const { status, body } = await failure(error);
      expect(status).toBe(503);
      expect(body.code).toBe('captcha_failed');
    } finally {
      await fetch(new URL('/up', verifier.url), { method: 'POST' });
    }
    expect(await users(email)).toEqual([]);
  });
});

describe('newsletter-signup with TURNSTILE_SECRET_KEY', () => {
  const VISITOR = '198.51.100.41';
  const card = labels('newsletter');
  const CONSENT = consentVersion([card('intro'), card('consent')]);
  let fn: Served;
  beforeAll(async () => {
    fn = await serveFunction(newsletterHandler, withSecret(), t.config.anonKey, VISITOR);
  });
  afterAll(() => fn?.close());

  const reader = () => `captcha-reader-${randomUUID().slice(0, 8)}@example.com`;
  const body = (email: string, captchaToken?: string) => ({
    email,
    consentVersion: CONSENT,
    ...(captchaToken === undefined ? {} : { captchaToken }),
  });

  async function rows(email: string) {
    const { data, error } = await t
      .admin<Database>()
      .from('newsletter_subscribers')
      .select('status')
      .ilike('email', email);
    expect(error).toBeNull();
    return data;
  }

  const mailTo = async (email: string) =>
    (await t.mail.list()).filter((m) => m.To.some((to) => to.Address.toLowerCase() === email));

  test('a token the widget gave: a pending sign-up and its confirmation mail', async () => {
    const email = reader();
    const token = verifier.issue();
    const { data, error } = await fn.client.invoke('newsletter-signup', { body: body(email, token) });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await rows(email)).toEqual([{ status: 'pending' }]);
    await t.mail.waitFor(email);
    expect(verifier.calls.filter((c) => c.token === token)).toEqual([
      { token, remoteip: VISITOR, success: true, codes: [] },
    ]);
  });

  test.each([
    ['no token', undefined],
    ['a forged token', 'forged-token'],
  ])('%s: 400 with the message, no row, no mail', async (_name, token) => {
    const email = reader();
    const { error } = await fn.client.invoke('newsletter-signup', { body: body(email, token) });
    expect(await failure(error)).toEqual({ status: 400, body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' } });
    expect(await rows(email)).toEqual([]);
    expect(await mailTo(email)).toEqual([]);
  });

  test('siteverify unreachable: 503, no row (the sign-up fails closed)', async () => {
    const email = reader();
    await fetch(new URL('/down', verifier.url), { method: 'POST' });
    try {
      const { error } = await fn.client.invoke('newsletter-signup', { body: body(email, verifier.issue()) });
      expect(await failure(error)).toMatchObject({ status: 503, body: { code: 'captcha_failed' } });
    } finally {
      await fetch(new URL('/up', verifier.url), { method: 'POST' });
    }
    expect(await rows(email)).toEqual([]);
  });
});

/**
 * A stack whose auth service checks CAPTCHA tokens: [auth.captcha] switched on through the environment, as the
 * CLI allows (SUPABASE_AUTH_CAPTCHA_*), with siteverify at the stand-in (CAPTCHA_VERIFY_URL). The stack reads
 * them once, at start.
 */
async function startCaptchaStack(): Promise<TestStack> {
  const vars = {
    SUPABASE_AUTH_CAPTCHA_ENABLED: 'true',
    SUPABASE_AUTH_CAPTCHA_PROVIDER: 'turnstile',
    SUPABASE_AUTH_CAPTCHA_SECRET: verifier.secret,
    CAPTCHA_VERIFY_URL: verifier.url,
  };
  Object.assign(process.env, vars);
  try {
    return await startTestStack();
  } finally {
    for (const name of Object.keys(vars)) delete process.env[name];
  }
}

describe('the auth service with [auth.captcha] on', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await startCaptchaStack();
  });
  afterAll(() => s?.stop());

  const VISITOR = '198.51.100.51';
  const envOf = (extra: Record<string, string> = {}) => envFrom({ ...functionEnv(s.config), ...extra });

  async function users(email: string) {
    return s.stack.ctx.db.query<{ id: string }>('select id from auth.users where lower(email) = lower($1)', [email]);
  }
  const mailTo = async (email: string) =>
    (await s.mail.list()).filter((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase()));

  /** A raw call to the auth service, as GoTrue answers it to supabase-js (API version 2024-01-01). */
  async function auth(path: string, body: unknown, key = s.config.anonKey) {
    const res = await fetch(`${s.url}/auth/v1${path}`, {
      method: 'POST',
      headers: {
        apikey: key,
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'X-Supabase-Api-Version': '2024-01-01',
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  test('sign-up without a token: GoTrue’s 400 captcha_failed, no user, no mail', async () => {
    const email = uniqueEmail('captcha-direct');
    expect(await auth('/signup', { email, password: GOOD_PASSWORD })).toEqual({
      status: 400,
      body: { code: 'captcha_failed', message: 'captcha protection: request disallowed (no captcha_token found)' },
    });
    expect(await users(email)).toEqual([]);
    expect(await mailTo(email)).toEqual([]);
  });

  test('a forged or used token: 400 naming siteverify’s error codes; a good one signs up, once', async () => {
    const email = uniqueEmail('captcha-direct');
    const forged = await auth('/signup', {
      email,
      password: GOOD_PASSWORD,
      gotrue_meta_security: { captcha_token: 'forged' },
    });
    expect(forged).toEqual({
      status: 400,
      body: { code: 'captcha_failed', message: 'captcha protection: request disallowed (invalid-input-response)' },
    });
    const token = verifier.issue();
    const { data, error } = await s
      .anon()
      .auth.signUp({ email, password: GOOD_PASSWORD, options: { captchaToken: token } });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    await s.mail.waitFor(email);
    const again = await s.anon().auth.signUp({
      email: uniqueEmail('captcha-direct'),
      password: GOOD_PASSWORD,
      options: { captchaToken: token },
    });
    expect(again.error?.code).toBe('captcha_failed');
    expect(again.error?.message).toBe('captcha protection: request disallowed (timeout-or-duplicate)');
  });

  test('password sign-in needs a token; a refresh, a code check and an admin caller do not', async () => {
    const email = uniqueEmail('captcha-signin');
    const created = await s.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    expect(created.error).toBeNull();
    const client = s.anon();
    const refused = await client.auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(refused.error?.code).toBe('captcha_failed');
    const { data, error } = await client.auth.signInWithPassword({
      email,
      password: GOOD_PASSWORD,
      options: { captchaToken: verifier.issue() },
    });
    expect(error).toBeNull();
    const refreshed = await client.auth.refreshSession({ refresh_token: data.session?.refresh_token ?? '' });
    expect(refreshed.error).toBeNull();
    // /verify is not guarded: a wrong code is refused for what it is, not for a missing token.
    const verify = await auth('/verify', { type: 'signup', email, token: '000000' });
    expect(verify.body.code).not.toBe('captcha_failed');
    const byAdmin = await auth(
      '/signup',
      { email: uniqueEmail('captcha-admin'), password: GOOD_PASSWORD },
      s.config.serviceRoleKey,
    );
    expect(byAdmin.status).toBe(200);
  });

  test('siteverify unreachable: GoTrue’s 500, nothing created', async () => {
    const email = uniqueEmail('captcha-down');
    await fetch(new URL('/down', verifier.url), { method: 'POST' });
    try {
      const answer = await auth('/signup', {
        email,
        password: GOOD_PASSWORD,
        gotrue_meta_security: { captcha_token: verifier.issue() },
      });
      expect(answer.status).toBe(500);
      expect(answer.body.message).toBe('captcha verification process failed');
    } finally {
      await fetch(new URL('/up', verifier.url), { method: 'POST' });
    }
    expect(await users(email)).toEqual([]);
  });

  test('password-reset passes the visitor’s token on: a good one mails once, a bad one is refused, nothing mailed', async () => {
    const email = uniqueEmail('captcha-reset');
    await s.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const fn = await serveFunction(resetHandler, envOf(), s.config.anonKey, VISITOR);
    try {
      const bad = await fn.client.invoke('password-reset', { body: { email, captchaToken: 'forged' } });
      expect(await failure(bad.error)).toEqual({
        status: 400,
        body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' },
      });
      const missing = await fn.client.invoke('password-reset', { body: { email } });
      expect((await failure(missing.error)).body.code).toBe('captcha_failed');
      expect(await mailTo(email)).toEqual([]);

      const token = verifier.issue();
      const { data, error } = await fn.client.invoke('password-reset', { body: { email, captchaToken: token } });
      expect(error).toBeNull();
      expect(data).toEqual({ message: 'If an account exists for this email, a password reset link is on its way.' });
      expect((await s.mail.waitFor(email)).Subject).toBe('Reset your SignalOne password');
      // Checked once, by the auth service.
      expect(verifier.calls.filter((c) => c.token === token).map((c) => c.success)).toEqual([true]);
    } finally {
      await fn.close();
    }
  });

  test('user-signup/resend passes the token on: a bad one is refused and mails nothing', async () => {
    const email = uniqueEmail('captcha-resend');
    const token = verifier.issue();
    await s.anon().auth.signUp({ email, password: GOOD_PASSWORD, options: { captchaToken: token } });
    await s.mail.waitFor(email);
    await s.mail.clear();
    const fn = await serveFunction(signupHandler, envOf(), s.config.anonKey, VISITOR);
    try {
      const { error } = await fn.client.invoke('user-signup/resend', { body: { email, captchaToken: 'forged' } });
      expect(await failure(error)).toEqual({ status: 400, body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' } });
      expect(await mailTo(email)).toEqual([]);
    } finally {
      await fn.close();
    }
  });

  test('account deletion passes the dialog’s token on: none, forged or used keeps the account; a good one deletes it', async () => {
    const email = uniqueEmail('captcha-delete');
    const created = await s.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    expect(created.error).toBeNull();
    const signedIn = await s
      .anon()
      .auth.signInWithPassword({ email, password: GOOD_PASSWORD, options: { captchaToken: verifier.issue() } });
    expect(signedIn.error).toBeNull();
    const member = { Authorization: `Bearer ${signedIn.data.session?.access_token}` };
    const fn = await serveFunction(accountHandler, envOf(), s.config.anonKey, VISITOR);
    const remove = (body: Record<string, unknown>) => fn.client.invoke('account', { body, headers: member });
    const refusedToken = { status: 400, body: { error: CAPTCHA_MESSAGE, code: 'captcha_failed' } };
    try {
      expect(await failure((await remove({ password: GOOD_PASSWORD })).error)).toEqual(refusedToken);
      expect(await failure((await remove({ password: GOOD_PASSWORD, captchaToken: 'forged' })).error)).toEqual(
        refusedToken,
      );
      const used = verifier.issue();
      // A good token with a wrong password: the password is what is refused, and the token is spent.
      expect(await failure((await remove({ password: 'Wrong-password-1!', captchaToken: used })).error)).toEqual({
        status: 403,
        body: { error: WRONG_PASSWORD_MESSAGE, code: 'invalid_credentials' },
      });
      expect(await failure((await remove({ password: GOOD_PASSWORD, captchaToken: used })).error)).toEqual(
        refusedToken,
      );
      expect(await users(email)).toHaveLength(1);

      const token = verifier.issue();
      const { data, error } = await remove({ password: GOOD_PASSWORD, captchaToken: token });
      expect(error).toBeNull();
      expect(data).toEqual({ deleted: true });
      expect(await users(email)).toEqual([]);
      expect(verifier.calls.filter((c) => c.token === token).map((c) => c.success)).toEqual([true]);
    } finally {
      await fn.close();
    }
  });

  test('user-signup with its secret: the token is checked once, by the function; the sign-up goes through', async () => {
    const email = uniqueEmail('captcha-function');
    const fn = await serveFunction(
      signupHandler,
      envOf({ TURNSTILE_SECRET_KEY: verifier.secret, TURNSTILE_VERIFY_URL: verifier.url }),
      s.config.anonKey,
      VISITOR,
    );
    try {
      const token = verifier.issue();
      const { data, error } = await fn.client.invoke('user-signup', {
        body: { email, password: GOOD_PASSWORD, firstName: 'Ada', lastName: 'Lovelace', captchaToken: token },
      });
      expect(error).toBeNull();
      expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
      expect(await users(email)).toHaveLength(1);
      await s.mail.waitFor(email);
      expect(verifier.calls.filter((c) => c.token === token)).toHaveLength(1);
    } finally {
      await fn.close();
    }
  });
});
