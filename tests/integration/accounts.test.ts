// user-signup and password-reset through the real stack: supabase-js invoke, the functions host, the auth
// service, Postgres, SMTP and the mail catcher. Checks are on answers, stored users and profiles, and mail.

import {
  failure,
  fragment,
  GOOD_PASSWORD,
  openLink,
  startTestStack,
  type TestStack,
  uniqueEmail,
  verifyLink,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resendOutcome, signUpFailure } from '../../src/lib/auth-forms.ts';
import { type FunctionName, type FunctionPayloads, invokeFunction } from '../../src/lib/functions.ts';
import type { Tables } from '../../supabase/database.types.ts';

const SITE = 'http://127.0.0.1:4321';
const SENT = 'If an account exists for this email, a password reset link is on its way.';

async function invoke(t: TestStack, name: string, body: unknown) {
  return t.anon().functions.invoke(name, { body: body as Record<string, unknown> });
}

/** The site's own call (src/lib/functions.ts), sent to this stack instead of the site's API address. */
function siteInvoke<N extends FunctionName>(t: TestStack, name: N, body: FunctionPayloads[N]) {
  return invokeFunction(name, body, {
    fetch: (input, init) => fetch(String(input).replace(/^https?:\/\/[^/]+/, t.url), init),
  });
}

async function userByEmail(t: TestStack, email: string) {
  const rows = await t.stack.ctx.db.query<{ id: string; email_confirmed_at: string | null }>(
    'select id, email_confirmed_at from auth.users where lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

async function profile(t: TestStack, email: string) {
  const rows = await t.stack.ctx.db.query<Pick<Tables<'profiles'>, 'first_name' | 'last_name' | 'email_verified'>>(
    'select first_name, last_name, email_verified from public.profiles where lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

/** The site link a confirmation mail carries: `<SITE_URL>/auth?tab=confirm&token_hash=…&type=signup`. */
function confirmPageLink(mail: { Subject: string; Text: string }): URL {
  const link = /https?:\/\/\S+\/auth\?tab=confirm&\S+/.exec(mail.Text)?.[0];
  if (!link) throw new Error(`no /auth?tab=confirm link in mail "${mail.Subject}": ${mail.Text}`);
  return new URL(link);
}

/** No mail to `to` arrives within `ms`. */
async function expectNoMail(t: TestStack, to: string, ms = 800) {
  await new Promise((r) => setTimeout(r, ms));
  const hits = (await t.mail.list()).filter((m) => m.To.some((x) => x.Address.toLowerCase() === to.toLowerCase()));
  expect(hits).toEqual([]);
}

const signup = (email: string, extra: Record<string, unknown> = {}) => ({
  email,
  password: GOOD_PASSWORD,
  firstName: 'Ada',
  lastName: 'Lovelace',
  ...extra,
});

describe('user-signup', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  test('creates the user with names and mails a link to /auth?tab=confirm whose token hash confirms the address', async () => {
    const email = uniqueEmail('signup');
    // Client-sent address, agent and time are ignored, not refused.
    const { data, error } = await invoke(
      t,
      'user-signup',
      signup(email, { clientIP: '6.6.6.6', userAgent: 'spoofed', timestamp: 'yesterday' }),
    );
    expect(error).toBeNull();
    expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
    expect(await profile(t, email)).toEqual({ first_name: 'Ada', last_name: 'Lovelace', email_verified: false });

    // The link opens the site's page, which verifies the token hash only with the password chosen there.
    const link = confirmPageLink(await t.mail.waitFor(email));
    expect(`${link.origin}${link.pathname}`).toBe(`${SITE}/auth`);
    expect(link.searchParams.get('tab')).toBe('confirm');
    expect(link.searchParams.get('type')).toBe('signup');
    expect((await userByEmail(t, email)).email_confirmed_at).toBeNull();
    const verified = await t.anon().auth.verifyOtp({
      token_hash: link.searchParams.get('token_hash') ?? '',
      type: 'signup',
    });
    expect(verified.error).toBeNull();
    expect((await userByEmail(t, email)).email_confirmed_at).not.toBeNull();
    expect((await profile(t, email)).email_verified).toBe(true);

    const signIn = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.user_metadata).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
  });

  test('a stranger’s pending account stays findable behind 100 newer sign-ups named after the address: the owner’s sign-up replaces it', async () => {
    const owner = uniqueEmail('owner');
    // A stranger signs the address up first, directly at the auth service, with their own password.
    const stranger = await t.anon().auth.signUp({
      email: owner,
      password: 'Stranger-passw0rd!',
      options: { data: { first_name: 'Evil', last_name: 'Twin' } },
    });
    expect(stranger.error).toBeNull();
    const pending = await userByEmail(t, owner);
    expect(pending.email_confirmed_at).toBeNull();
    // Then 100 newer accounts whose full_name is the address (any sign-up may set it): the auth service's admin
    // list filter matches them too, newest first, so its first page no longer holds the pending account.
    for (let batch = 0; batch < 10; batch++) {
      const created = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.admin().auth.admin.createUser({ email: uniqueEmail('decoy'), user_metadata: { full_name: owner } }),
        ),
      );
      expect(created.map((c) => c.error)).toEqual(Array(10).fill(null));
    }
    const page = await fetch(`${t.url}/auth/v1/admin/users?filter=${encodeURIComponent(owner)}&per_page=100`, {
      headers: { apikey: t.config.serviceRoleKey, Authorization: `Bearer ${t.config.serviceRoleKey}` },
    });
    const { users } = (await page.json()) as { users: { id: string }[] };
    expect(users).toHaveLength(100);
    expect(users.map((u) => u.id)).not.toContain(pending.id);

    await t.mail.clear();
    const { data, error } = await invoke(t, 'user-signup', signup(owner));
    expect(error).toBeNull();
    expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
    // The stranger's account is gone with its password and names; the address's one account is the owner's new
    // one, with a confirmation mail of its own.
    const rows = await t.stack.ctx.db.query<{ id: string; first_name: string }>(
      `select id, raw_user_meta_data->>'first_name' as first_name from auth.users where lower(email) = lower($1)`,
      [owner],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toBe(pending.id);
    expect(rows[0].first_name).toBe('Ada');
    expect(await profile(t, owner)).toEqual({ first_name: 'Ada', last_name: 'Lovelace', email_verified: false });
    await t.mail.waitFor(owner);
  }, 120_000);

  test('the exact lookup is for service_role only: visitors and members get 42501 and learn nothing', async () => {
    const email = uniqueEmail('lookup');
    expect((await t.anon().auth.signUp({ email, password: GOOD_PASSWORD })).error).toBeNull();
    const visitor = await t.anon().rpc('pending_signup_user_id', { address: email });
    expect(visitor.error?.code).toBe('42501');
    expect(visitor.data).toBeNull();
    const other = uniqueEmail('member');
    await t.admin().auth.admin.createUser({ email: other, password: GOOD_PASSWORD, email_confirm: true });
    const client = t.anon();
    expect((await client.auth.signInWithPassword({ email: other, password: GOOD_PASSWORD })).error).toBeNull();
    const member = await client.rpc('pending_signup_user_id', { address: email });
    expect(member.error?.code).toBe('42501');
    // service_role gets the id while the address is unconfirmed, in any case, and nothing once it is confirmed.
    const { id } = await userByEmail(t, email);
    expect((await t.admin().rpc('pending_signup_user_id', { address: email.toUpperCase() })).data).toBe(id);
    expect((await t.admin().auth.admin.updateUserById(id, { email_confirm: true })).error).toBeNull();
    expect((await t.admin().rpc('pending_signup_user_id', { address: email })).data).toBeNull();
  });

  test('an address that already has a confirmed account: 409 account_exists, which the form says as "Account exists"; no mail', async () => {
    const email = uniqueEmail('exists');
    await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const { data, error } = await invoke(t, 'user-signup', signup(email.toUpperCase()));
    expect(data).toBeNull();
    expect(await failure(error)).toEqual({
      status: 409,
      body: { error: 'A user with this email address has already been registered.', code: 'account_exists' },
    });
    // The sign-up form's own call and its decision on the code.
    const answer = await siteInvoke(t, 'user-signup', {
      email,
      password: GOOD_PASSWORD,
      firstName: 'Ann',
      lastName: 'Lee',
    });
    expect(answer).toEqual({
      ok: false,
      error: {
        status: 409,
        message: 'A user with this email address has already been registered.',
        code: 'account_exists',
      },
    });
    if (!answer.ok) {
      expect(signUpFailure(answer.error)).toEqual({
        title: 'accountExistsTitle',
        description: 'accountExistsDescription',
      });
    }
    await expectNoMail(t, email);
  });

  test.each([
    ['a weak password', { password: 'password' }, 'password'],
    ['a blank first name', { firstName: '   ' }, 'firstName'],
    ['a missing last name', { lastName: undefined }, 'lastName'],
    ['a bad email', { email: 'not-an-email' }, 'email'],
    ['a first name of 101 characters', { firstName: 'a'.repeat(101) }, 'firstName'],
  ])('%s: 400 naming the field, no user, no mail', async (_, change, field) => {
    const email = uniqueEmail('bad');
    const { error } = await invoke(t, 'user-signup', { ...signup(email), ...change });
    const { status, body } = await failure(error);
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.any(String), code: 'invalid_input', field });
    expect(await userByEmail(t, email)).toBeUndefined();
    await expectNoMail(t, email, 200);
  });

  test('a filled honeypot: 400 "Please try again later", no user, no mail', async () => {
    const email = uniqueEmail('robot');
    const { error } = await invoke(t, 'user-signup', signup(email, { website: 'http://spam.example' }));
    expect(await failure(error)).toEqual({
      status: 400,
      body: { error: 'Please try again later', code: 'request_rejected' },
    });
    expect(await userByEmail(t, email)).toBeUndefined();
    await expectNoMail(t, email);
  });
});

describe('user-signup/resend', () => {
  const RESENT =
    'If this address is waiting to be confirmed, a new confirmation email is on its way. Please check your inbox.';
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  test('an unconfirmed address gets a new confirmation mail whose token hash confirms it', async () => {
    const email = uniqueEmail('resend');
    expect((await invoke(t, 'user-signup', signup(email))).error).toBeNull();
    const first = await t.mail.waitFor(email);
    await t.mail.clear();
    const { data, error } = await invoke(t, 'user-signup/resend', { email });
    expect(error).toBeNull();
    expect(data).toEqual({ message: RESENT });
    const second = await t.mail.waitFor(email);
    expect(second.ID).not.toBe(first.ID);
    const tokenHash = confirmPageLink(second).searchParams.get('token_hash') ?? '';
    expect(tokenHash).not.toBe(confirmPageLink(first).searchParams.get('token_hash'));
    expect((await t.anon().auth.verifyOtp({ token_hash: tokenHash, type: 'signup' })).error).toBeNull();
    expect((await userByEmail(t, email)).email_confirmed_at).not.toBeNull();
  });

  test('an unknown and a confirmed address get the same answer and no mail', async () => {
    const unknown = uniqueEmail('resend-unknown');
    const confirmed = uniqueEmail('resend-confirmed');
    await t.admin().auth.admin.createUser({ email: confirmed, password: GOOD_PASSWORD, email_confirm: true });
    for (const email of [unknown, confirmed]) {
      const { data, error } = await invoke(t, 'user-signup/resend', { email });
      expect(error).toBeNull();
      expect(data).toEqual({ message: RESENT });
    }
    await expectNoMail(t, unknown);
    await expectNoMail(t, confirmed, 0);
    expect(await userByEmail(t, unknown)).toBeUndefined();
  });

  test('a bad address: 400 naming the field', async () => {
    const { error } = await invoke(t, 'user-signup/resend', { email: 'not-an-email' });
    expect(await failure(error)).toEqual({
      status: 400,
      body: { error: 'Email must be a valid email address.', code: 'invalid_input', field: 'email' },
    });
  });
});

describe('user-signup/resend under the limits', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack({ rateLimits: true });
  });
  afterAll(() => t?.stop());

  test('within the minute the same answer and no second mail; sign-ups and resends share one counter', async () => {
    const email = uniqueEmail('resend-limit');
    expect((await invoke(t, 'user-signup', signup(email))).error).toBeNull();
    await t.mail.waitFor(email);
    // The auth service refuses a second mail to the address within the minute; the answer does not say so.
    for (let i = 0; i < 4; i++) {
      const { data, error } = await invoke(t, 'user-signup/resend', { email });
      expect(error).toBeNull();
      expect(data).toMatchObject({ message: expect.stringContaining('new confirmation email') });
    }
    await new Promise((r) => setTimeout(r, 500));
    const mails = (await t.mail.list()).filter((m) => m.To.some((x) => x.Address.toLowerCase() === email));
    expect(mails).toHaveLength(1);
    // One sign-up and four resends: the sixth request from the address is refused, whichever entry it uses.
    const answer = await siteInvoke(t, 'user-signup/resend', { email });
    expect(answer).toMatchObject({ ok: false, error: { status: 429, code: 'rate_limited' } });
    // What /auth's "Send a new confirmation email" makes of it: wait.
    if (!answer.ok) {
      expect(resendOutcome(answer.error)).toEqual({ title: 'codeWaitTitle', description: 'codeWaitDescription' });
    }
  });
});

describe('password-reset', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  async function confirmedUser() {
    const email = uniqueEmail('reset');
    const { error } = await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    expect(error).toBeNull();
    return email;
  }

  test('mails a recovery link to /auth?tab=reset with the tokens in the fragment; the new password works', async () => {
    const email = await confirmedUser();
    const { data, error } = await invoke(t, 'password-reset', { email, redirectTo: `${SITE}/auth?tab=reset` });
    expect(error).toBeNull();
    expect(data).toEqual({ message: SENT });

    const { status, location } = await openLink(verifyLink(await t.mail.waitFor(email)));
    expect(status).toBe(303);
    expect(location.startsWith(`${SITE}/auth?tab=reset#`)).toBe(true);
    const hash = fragment(location);
    expect(hash.type).toBe('recovery');

    const client = t.anon();
    const set = await client.auth.setSession({ access_token: hash.access_token, refresh_token: hash.refresh_token });
    expect(set.error).toBeNull();
    expect((await client.auth.updateUser({ password: 'N3w-password!' })).error).toBeNull();
    expect((await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error?.code).toBe(
      'invalid_credentials',
    );
    expect((await t.anon().auth.signInWithPassword({ email, password: 'N3w-password!' })).error).toBeNull();
  });

  test('an unknown address gets the same answer and no mail', async () => {
    const email = uniqueEmail('nobody');
    const { data, error } = await invoke(t, 'password-reset', { email, redirectTo: `${SITE}/auth?tab=reset` });
    expect(error).toBeNull();
    expect(data).toEqual({ message: SENT });
    await expectNoMail(t, email);
  });

  test('a redirectTo off the allow-list is never used: the link goes to SITE_URL/auth?tab=reset', async () => {
    const email = await confirmedUser();
    const { data, error } = await invoke(t, 'password-reset', { email, redirectTo: 'https://evil.example/steal' });
    expect(error).toBeNull();
    expect(data).toEqual({ message: SENT });
    const mail = await t.mail.waitFor(email);
    expect(mail.Text).not.toContain('evil.example');
    const { location } = await openLink(verifyLink(mail));
    expect(location.startsWith(`${SITE}/auth?tab=reset#`)).toBe(true);
  });

  test('a second request within the minute answers the same (the limit is not revealed)', async () => {
    const email = await confirmedUser();
    expect((await invoke(t, 'password-reset', { email })).data).toEqual({ message: SENT });
    expect((await invoke(t, 'password-reset', { email })).data).toEqual({ message: SENT });
  });

  test.each([
    ['no email', {}, 'email'],
    ['a bad email', { email: 'nope' }, 'email'],
  ])('%s: 400 naming the field', async (_, body, field) => {
    const { error } = await invoke(t, 'password-reset', body);
    const res = await failure(error);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  test('a filled honeypot: the usual answer, no mail', async () => {
    const email = await confirmedUser();
    const { data } = await invoke(t, 'password-reset', { email, website: 'spam' });
    expect(data).toEqual({ message: SENT });
    await expectNoMail(t, email);
  });
});

describe('per-IP limits', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack({ rateLimits: true });
  });
  afterAll(() => t?.stop());

  test.each(['user-signup', 'password-reset'])(
    '%s: the sixth request in an hour gets 429 and nothing is done',
    async (name) => {
      for (let i = 0; i < 5; i++) {
        const { error } = await invoke(t, name, { email: 'not-an-email' });
        expect((await failure(error)).status).toBe(400);
      }
      const email = uniqueEmail('limited');
      const { error } = await invoke(t, name, signup(email));
      const { status, body } = await failure(error);
      expect(status).toBe(429);
      expect(body.code).toBe('rate_limited');
      expect(String(body.error)).toMatch(/^Too many requests from your address\. Please try again in \d+ minutes?\.$/);
      expect(await userByEmail(t, email)).toBeUndefined();
      await expectNoMail(t, email, 300);
    },
  );
});
