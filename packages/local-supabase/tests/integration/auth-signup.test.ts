// Sign-up as supabase-js sees it (WIRE.md §7, §8), its confirmation mail, and the
// anti-enumeration answers.
import { AuthApiError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  confirmedUser,
  fragment,
  GOOD_PASSWORD,
  openLink,
  raw,
  uniqueEmail,
  verifyLink,
} from '../../testing/auth-helpers.ts';
import { confirmationTokenHash, confirmPageLink, signupVerifyLink } from '../../testing/confirmation-link.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

async function userRow(email: string) {
  const rows = await t.stack.ctx.db.query<Record<string, unknown>>(
    `select id::text, encrypted_password, raw_user_meta_data, email_confirmed_at, confirmation_token,
            confirmation_sent_at::text as confirmation_sent_at
       from auth.users where email = $1`,
    [email],
  );
  return rows[0];
}

/**
 * Where a redirect asked for ends up, by the allow-list: in the recovery mail's link (the confirmation mail links to
 * the site and carries no redirect), and where GET /verify sends a sign-up link naming it, which checks it again.
 */
async function redirectOf(s: TestStack, asked: string) {
  const { email } = await confirmedUser(s, uniqueEmail('allow'));
  expect((await s.anon().auth.resetPasswordForEmail(email, { redirectTo: asked })).error).toBeNull();
  const inMail = new URL(verifyLink(await s.mail.waitFor(email))).searchParams.get('redirect_to');
  const signup = uniqueEmail('allow-signup');
  expect((await s.anon().auth.signUp({ email: signup, password: GOOD_PASSWORD })).error).toBeNull();
  const { status, location } = await openLink(signupVerifyLink(s, await s.mail.waitFor(signup), asked));
  return { inMail, status, landsOn: location.slice(0, location.indexOf('#')), type: fragment(location).type };
}

describe('signUp with email confirmation on', () => {
  test('answers the bare user with its email identity, no session, and mails a confirmation link', async () => {
    const email = uniqueEmail('signup');
    const { data, error } = await t.anon().auth.signUp({
      email,
      password: GOOD_PASSWORD,
      options: {
        data: { first_name: 'Ada', last_name: 'Lovelace' },
        emailRedirectTo: 'http://127.0.0.1:4321/newsletter-verified?type=user',
      },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    const user = data.user!;
    expect(user).toMatchObject({
      aud: 'authenticated',
      role: 'authenticated',
      email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { first_name: 'Ada', last_name: 'Lovelace' },
      is_anonymous: false,
    });
    expect(user.email_confirmed_at).toBeUndefined();
    expect(user.confirmation_sent_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(user.identities).toHaveLength(1);
    expect(user.identities![0]).toMatchObject({
      id: user.id,
      user_id: user.id,
      provider: 'email',
      email,
      identity_data: {
        sub: user.id,
        email,
        email_verified: false,
        phone_verified: false,
        first_name: 'Ada',
        last_name: 'Lovelace',
      },
    });
    // Key order of the JSON as GoTrue marshals models.User.
    const keys = Object.keys(user);
    expect(keys.slice(0, 4)).toEqual(['id', 'aud', 'role', 'email']);
    expect(keys.at(-1)).toBe('is_anonymous');

    const stored = await userRow(email);
    expect(stored.encrypted_password).toMatch(/^\$2a\$10\$/);
    expect(stored.email_confirmed_at).toBeNull();

    const mail = await t.mail.waitFor(email);
    expect(mail.Subject).toBe('Confirm your SignalOne account');
    expect(mail.HTML).toContain('SignalOne');
    // The project's template links to the site's /auth page with {{ .TokenHash }}, not to GET /auth/v1/verify
    // (a GET of the link must confirm nothing); the page verifies the hash when a password is chosen.
    const link = confirmPageLink(mail);
    expect(`${link.origin}${link.pathname}`).toBe('http://127.0.0.1:4321/auth');
    expect([...link.searchParams.keys()]).toEqual(['tab', 'token_hash', 'type']);
    expect(link.searchParams.get('tab')).toBe('confirm');
    expect(link.searchParams.get('type')).toBe('signup');
    const hash = confirmationTokenHash(mail);
    expect(hash).toMatch(/^[0-9a-f]{56}$/);
    expect(mail.HTML).toContain(`href="http://127.0.0.1:4321/auth?tab=confirm&amp;token_hash=${hash}&amp;type=signup"`);
    expect(mail.Text + mail.HTML).not.toContain('/auth/v1/verify');
    // The token has the shape of GoTrue's hex(SHA-224(email + otp)) but is random: it cannot be computed
    // from the address and a guessed code.
    const otp = /code: (\d{6})/.exec(mail.Text)![1];
    const { createHash } = await import('node:crypto');
    expect(hash).not.toBe(
      createHash('sha224')
        .update(email + otp)
        .digest('hex'),
    );
    const ott = await t.stack.ctx.db.query<{ token_type: string; relates_to: string }>(
      `select token_type, relates_to from auth.one_time_tokens where token_hash = $1`,
      [hash],
    );
    expect(ott).toEqual([{ token_type: 'confirmation_token', relates_to: email }]);
  });

  test('the profile trigger sees the metadata and email_confirmed_at flips email_verified', async () => {
    const email = uniqueEmail('profile');
    const { data } = await t.anon().auth.signUp({
      email,
      password: GOOD_PASSWORD,
      options: { data: { first_name: 'Grace', last_name: 'Hopper' } },
    });
    const profile = async () =>
      (
        await t.stack.ctx.db.query<{ first_name: string; last_name: string; email_verified: boolean }>(
          'select first_name, last_name, email_verified from public.profiles where user_id = $1',
          [data.user!.id],
        )
      )[0];
    expect(await profile()).toEqual({ first_name: 'Grace', last_name: 'Hopper', email_verified: false });
    const { location } = await openLink(signupVerifyLink(t, await t.mail.waitFor(email)));
    expect(fragment(location).type).toBe('signup');
    expect((await profile()).email_verified).toBe(true);
  });

  test('an address that is already confirmed gets a made-up user with no identities and no mail', async () => {
    const email = uniqueEmail('taken');
    await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const before = await userRow(email);
    const { data, error } = await t.anon().auth.signUp({
      email,
      password: 'Another-pass1',
      options: { data: { first_name: 'Mallory' } },
    });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user!.identities).toEqual([]);
    expect(data.user!.id).not.toBe(before.id);
    expect(data.user!.role).toBe('');
    expect(data.user!.user_metadata).toEqual({ first_name: 'Mallory' });
    expect(data.user!.email_confirmed_at).toBeUndefined();
    expect(await userRow(email)).toEqual(before);
    expect((await t.mail.list()).some((m) => m.To.some((a) => a.Address === email))).toBe(false);
  });

  test("an unconfirmed address gets the confirmation mail again, with the newest sign-up's password and data", async () => {
    const email = uniqueEmail('again');
    const first = await t
      .anon()
      .auth.signUp({ email, password: GOOD_PASSWORD, options: { data: { first_name: 'One' } } });
    const firstMail = await t.mail.waitFor(email);
    const before = await userRow(email);
    const second = await t.anon().auth.signUp({
      email,
      password: 'Different-pass2',
      options: { data: { first_name: 'Two' } },
    });
    expect(second.error).toBeNull();
    expect(second.data.user!.id).toBe(first.data.user!.id);
    expect(second.data.user!.identities).toHaveLength(1);
    expect(second.data.user!.user_metadata).toEqual({ first_name: 'Two' });
    // Nobody proved owning the address: the newest sign-up replaces the pending one (same id).
    const after = await userRow(email);
    expect(after.encrypted_password).not.toBe(before.encrypted_password);
    expect(after.raw_user_meta_data).toEqual({ first_name: 'Two' });
    expect(after.confirmation_token).not.toBe(before.confirmation_token);
    const mails = (await t.mail.list()).filter((m) => m.To.some((a) => a.Address === email));
    expect(mails).toHaveLength(2);
    const newest = await t.mail.get(mails[0].ID);
    expect(confirmationTokenHash(newest)).not.toBe(confirmationTokenHash(firstMail));
    // Only the newest link works.
    expect(fragment((await openLink(signupVerifyLink(t, firstMail))).location).error_code).toBe('otp_expired');
    expect(fragment((await openLink(signupVerifyLink(t, newest))).location).type).toBe('signup');
  });

  test('a weak password is 422 weak_password with the reasons, and nothing is stored', async () => {
    const email = uniqueEmail('weak');
    const short = await t.anon().auth.signUp({ email, password: 'Ab1!' });
    expect(short.error).toBeInstanceOf(AuthWeakPasswordError);
    expect(short.error).toMatchObject({ status: 422, code: 'weak_password', reasons: ['length'] });
    expect(short.error!.message).toBe('Password should be at least 8 characters.');

    const plain = await t.anon().auth.signUp({ email, password: 'alllowercase' });
    expect(plain.error).toMatchObject({ name: 'AuthWeakPasswordError', status: 422, reasons: ['characters'] });
    expect(plain.error!.message).toBe(
      'Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789, !@#$%^&*()_+-=[]{};\':"|<>?,./`~.',
    );
    const both = await t.anon().auth.signUp({ email, password: 'abc' });
    expect((both.error as AuthWeakPasswordError).reasons).toEqual(['length', 'characters']);
    expect(both.error!.message).toMatch(/^Password should be at least 8 characters\. Password should contain/);
    expect(await userRow(email)).toBeUndefined();
  });

  test('a password over 72 characters is 400 validation_failed', async () => {
    const { error } = await t.anon().auth.signUp({ email: uniqueEmail(), password: `Aa1!${'x'.repeat(70)}` });
    expect(error).toBeInstanceOf(AuthApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(error!.message).toBe('Password cannot be longer than 72 characters');
  });

  test('neither email nor phone: the client refuses, and the server answers as GoTrue does', async () => {
    const client = await t.anon().auth.signUp({ password: GOOD_PASSWORD } as never);
    expect(client.error).toMatchObject({
      name: 'AuthInvalidCredentialsError',
      message: 'You must provide either an email or phone number and a password',
    });
    const res = await raw(t, '/signup', { body: { email: '', password: GOOD_PASSWORD } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: 'anonymous_provider_disabled', message: 'Anonymous sign-ins are disabled' });
    const noPassword = await t.anon().auth.signUp({ email: uniqueEmail(), password: '' });
    expect(noPassword.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(noPassword.error!.message).toBe('Signup requires a valid password');
    const badEmail = await t.anon().auth.signUp({ email: 'not-an-email', password: GOOD_PASSWORD });
    expect(badEmail.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(badEmail.error!.message).toBe('Unable to validate email address: invalid format');
  });

  test('a redirect outside the allow-list falls back to SITE_URL in the link, and GET /verify checks it again', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('redirect'));
    await t.anon().auth.resetPasswordForEmail(email, { redirectTo: 'https://evil.example.com/steal' });
    const link = new URL(verifyLink(await t.mail.waitFor(email)));
    expect(link.searchParams.get('redirect_to')).toBe('http://127.0.0.1:4321');
    const { status, location } = await openLink(link.toString());
    expect(status).toBe(303);
    expect(location.startsWith('http://127.0.0.1:4321#access_token=')).toBe(true);
    // A sign-up link whose redirect_to was changed to one off the list still lands on SITE_URL, and confirms.
    const signup = uniqueEmail('redirect-signup');
    await t.anon().auth.signUp({
      email: signup,
      password: GOOD_PASSWORD,
      options: { emailRedirectTo: 'https://evil.example.com/steal' },
    });
    const forged = await openLink(signupVerifyLink(t, await t.mail.waitFor(signup), 'https://evil.example.com/steal'));
    expect(forged.status).toBe(303);
    expect(forged.location.startsWith('http://127.0.0.1:4321#access_token=')).toBe(true);
    expect(fragment(forged.location).type).toBe('signup');
    expect((await userRow(signup)).email_confirmed_at).not.toBeNull();
  });

  test("allowed redirects: SITE_URL's own origin only; an unlisted loopback port falls back to SITE_URL", async () => {
    for (const [asked, expected] of [
      ['http://127.0.0.1:4321/auth?tab=reset', 'http://127.0.0.1:4321/auth?tab=reset'],
      ['http://127.0.0.1:9999/anything', 'http://127.0.0.1:4321'],
      ['http://[::1]:4321/x', 'http://127.0.0.1:4321'],
      ['http://localhost:4321/auth?tab=reset', 'http://127.0.0.1:4321'],
      ['http://localhost:5000/x', 'http://127.0.0.1:4321'],
      ['https://127.0.0.1:4321/x', 'http://127.0.0.1:4321'],
      ['javascript:alert(1)', 'http://127.0.0.1:4321'],
    ]) {
      expect({ asked, ...(await redirectOf(t, asked)) }).toEqual({
        asked,
        inMail: expected,
        status: 303,
        landsOn: expected,
        type: 'signup',
      });
    }
  });

  test("PKCE sign-up: the mail's token hash carries pkce_ and the flow state waits for the code exchange", async () => {
    const email = uniqueEmail('pkce');
    const challenge = 'x'.repeat(43);
    const res = await raw(t, '/signup', {
      body: { email, password: GOOD_PASSWORD, code_challenge: challenge, code_challenge_method: 's256' },
    });
    expect(res.status).toBe(200);
    const token = confirmationTokenHash(await t.mail.waitFor(email));
    expect(token).toMatch(/^pkce_[0-9a-f]{56}$/);
    const flows = await t.stack.ctx.db.query<Record<string, string>>(
      `select code_challenge, code_challenge_method, authentication_method, provider_type
         from auth.flow_state where user_id = $1`,
      [res.body.id],
    );
    expect(flows).toEqual([
      {
        code_challenge: challenge,
        code_challenge_method: 's256',
        authentication_method: 'email/signup',
        provider_type: 'email',
      },
    ]);
    const bad = await raw(t, '/signup', {
      body: { email: uniqueEmail(), password: GOOD_PASSWORD, code_challenge: 'short', code_challenge_method: 's256' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });
});

describe('settings and health', () => {
  test('GET /settings has GoTrue shape', async () => {
    const res = await raw(t, '/settings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      external: { email: true, phone: false, anonymous_users: false, google: false },
      disable_signup: false,
      mailer_autoconfirm: false,
      phone_autoconfirm: false,
      saml_enabled: false,
    });
  });

  test('GET /health needs no key', async () => {
    const res = await fetch(`${t.url}/auth/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'GoTrue' });
  });
});

describe('email frequency limit (rate limits on)', () => {
  let limited: TestStack;
  beforeAll(async () => {
    limited = await startTestStack({ rateLimits: true, authOverrides: { emailMaxFrequency: 60 } });
  });
  afterAll(() => limited?.stop());

  test('a second confirmation mail within max_frequency is 429 over_email_send_rate_limit', async () => {
    const email = uniqueEmail('freq');
    const asked = Date.now();
    const first = await limited.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    expect(first.error).toBeNull();
    await limited.mail.waitFor(email);
    const again = await limited.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    expect(again.error).toBeInstanceOf(AuthApiError);
    expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    // The seconds left count down from 60 while the first mail is sent and the second request made: at most 60,
    // and no fewer than the whole seconds that have passed since the first request allow.
    const left = /^For security purposes, you can only request this after (\d+) seconds\.$/.exec(again.error!.message);
    expect(left).not.toBeNull();
    expect(Number(left?.[1])).toBeLessThanOrEqual(60);
    expect(Number(left?.[1])).toBeGreaterThanOrEqual(59 - Math.ceil((Date.now() - asked) / 1000));
    const resend = await limited.anon().auth.resend({ type: 'signup', email });
    expect(resend.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    expect((await limited.mail.list()).filter((m) => m.To.some((a) => a.Address === email))).toHaveLength(1);
  });

  test('recovery has its own timer, and unknown addresses still answer 200 {}', async () => {
    const email = uniqueEmail('freqrec');
    await limited.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    expect((await limited.anon().auth.resetPasswordForEmail(email)).error).toBeNull();
    const again = await limited.anon().auth.resetPasswordForEmail(email);
    expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
    const unknown = await raw(limited, '/recover', { body: { email: uniqueEmail('nobody') } });
    expect(unknown).toMatchObject({ status: 200, body: {} });
  });
});

describe('LOCAL_REDIRECT_URLS: redirect targets of this stack only', () => {
  let local: TestStack;
  beforeAll(async () => {
    local = await startTestStack({
      localRedirectUrls: loadConfig({ LOCAL_REDIRECT_URLS: ' http://localhost:4321/** ,http://127.0.0.1:5173/**' })
        .localRedirectUrls,
    });
  });
  afterAll(() => local?.stop());

  test('listed loopback entries are allowed; other ports still fall back to SITE_URL', async () => {
    for (const [asked, expected] of [
      ['http://localhost:4321/auth?tab=reset', 'http://localhost:4321/auth?tab=reset'],
      ['http://127.0.0.1:5173/x', 'http://127.0.0.1:5173/x'],
      ['http://127.0.0.1:5174/x', 'http://127.0.0.1:4321'],
    ]) {
      expect({ asked, ...(await redirectOf(local, asked)) }).toEqual({
        asked,
        inMail: expected,
        status: 303,
        landsOn: expected,
        type: 'signup',
      });
    }
  });
});
