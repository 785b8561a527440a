// Email round trips (WIRE.md §9-§11): the mail, its /verify link, the 303 Location and the session the
// client builds from it; PKCE code exchange; expired and spent links; verifyOtp with a token hash. The sign-up
// mail links to the site's /auth page, so GET /verify is reached there through GoTrue's own link for its token hash.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  confirmedUser,
  fragment,
  GOOD_PASSWORD,
  memoryStorage,
  openLink,
  raw,
  storedClient,
  uniqueEmail,
  verifyLink,
} from '../../testing/auth-helpers.ts';
import { confirmationTokenHash, confirmPageLink, signupVerifyLink } from '../../testing/confirmation-link.ts';
import { startTestStack, type TestStack, until } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const IMPLICIT_KEYS = ['access_token', 'expires_at', 'expires_in', 'refresh_token', 'sb', 'token_type', 'type'];

describe('sign-up confirmation link', () => {
  test('signUp → mail → 303 with the session in the fragment → setSession → confirmed user', async () => {
    const email = uniqueEmail('confirm');
    const redirect = 'http://127.0.0.1:4321/newsletter-verified?type=user';
    await t.anon().auth.signUp({ email, password: GOOD_PASSWORD, options: { emailRedirectTo: redirect } });
    const link = signupVerifyLink(t, await t.mail.waitFor(email), redirect);
    const { status, location } = await openLink(link);
    expect(status).toBe(303);
    expect(location.startsWith(`${redirect}#access_token=`)).toBe(true);
    const hash = location.slice(location.indexOf('#') + 1);
    // url.Values.Encode: keys sorted, "sb" present and empty.
    expect(hash.split('&').map((kv) => kv.split('=')[0])).toEqual(IMPLICIT_KEYS);
    const f = fragment(location);
    expect(f).toMatchObject({ expires_in: '3600', sb: '', token_type: 'bearer', type: 'signup' });
    expect(f.refresh_token).toMatch(/^[A-Za-z0-9]{12}$/);

    const { client } = storedClient(t);
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const { data, error } = await client.auth.setSession({
      access_token: f.access_token,
      refresh_token: f.refresh_token,
    });
    expect(error).toBeNull();
    expect(data.user!.email).toBe(email);
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect(data.user!.identities![0].identity_data!.email_verified).toBe(true);
    expect(events).toContain('SIGNED_IN');
    const got = await client.auth.getUser();
    expect(got.data.user!.email_confirmed_at).toBeTruthy();
    const claims = JSON.parse(Buffer.from(f.access_token.split('.')[1], 'base64url').toString());
    expect(claims.amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);
    // Now the password works.
    expect((await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error).toBeNull();
  });

  test('a link works once: the second click lands on the otp_expired error fragment', async () => {
    const email = uniqueEmail('once');
    await t.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    const link = signupVerifyLink(t, await t.mail.waitFor(email));
    expect((await openLink(link)).status).toBe(303);
    const { status, location } = await openLink(link);
    expect(status).toBe(303);
    expect(location).toBe(
      'http://127.0.0.1:4321#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
    );
  });

  test('a link older than otp_expiry is refused and the user stays unconfirmed', async () => {
    const email = uniqueEmail('old');
    const { data } = await t.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    const link = signupVerifyLink(t, await t.mail.waitFor(email));
    await t.stack.ctx.db.query(
      `update auth.users set confirmation_sent_at = now() - interval '3601 seconds' where id = $1`,
      [data.user!.id],
    );
    expect(fragment((await openLink(link)).location).error_code).toBe('otp_expired');
    const rows = await t.stack.ctx.db.query<{ c: unknown }>(
      'select email_confirmed_at as c from auth.users where id = $1',
      [data.user!.id],
    );
    expect(rows[0].c).toBeNull();
  });

  test('GET /verify needs no API key; a missing type is a JSON error, not a redirect', async () => {
    const res = await fetch(`${t.url}/auth/v1/verify?token=abc`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      code: 400,
      error_code: 'validation_failed',
      msg: 'Verify requires a verification type',
    });
  });

  test('resend type signup mails a fresh link', async () => {
    const email = uniqueEmail('resend');
    await t.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    const first = await t.mail.waitFor(email);
    const { error } = await t
      .anon()
      .auth.resend({ type: 'signup', email, options: { emailRedirectTo: 'http://127.0.0.1:4321/x' } });
    expect(error).toBeNull();
    const mails = (await t.mail.list()).filter((m) => m.To.some((a) => a.Address === email));
    expect(mails).toHaveLength(2);
    const fresh = await t.mail.get(mails[0].ID);
    expect(confirmPageLink(fresh).searchParams.get('type')).toBe('signup');
    expect(confirmationTokenHash(fresh)).not.toBe(confirmationTokenHash(first));
    // The first mail's link is replaced; the fresh one confirms and lands where the resend asked.
    expect(fragment((await openLink(signupVerifyLink(t, first))).location).error_code).toBe('otp_expired');
    const { location } = await openLink(signupVerifyLink(t, fresh, 'http://127.0.0.1:4321/x'));
    expect(location.startsWith('http://127.0.0.1:4321/x#access_token=')).toBe(true);
    expect(fragment(location).type).toBe('signup');
  });
});

describe('password recovery', () => {
  test('implicit: reset mail → recovery session → updateUser → sign in with the new password', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('recover'));
    const reset = await t
      .anon()
      .auth.resetPasswordForEmail(email, { redirectTo: 'http://127.0.0.1:4321/auth?tab=reset' });
    expect(reset).toEqual({ data: {}, error: null });
    const mail = await t.mail.waitFor(email);
    expect(mail.Subject).toBe('Reset your SignalOne password');
    const link = verifyLink(mail);
    const url = new URL(link);
    expect(url.searchParams.get('type')).toBe('recovery');
    // A redirect holding "=" is query-escaped in the link, as GoTrue's encodeRedirectURL does.
    expect(link).toContain('redirect_to=http%3A%2F%2F127.0.0.1%3A4321%2Fauth%3Ftab%3Dreset');
    expect(url.searchParams.get('redirect_to')).toBe('http://127.0.0.1:4321/auth?tab=reset');
    const { location } = await openLink(link);
    expect(location.startsWith('http://127.0.0.1:4321/auth?tab=reset#access_token=')).toBe(true);
    const f = fragment(location);
    expect(f.type).toBe('recovery');

    const { client } = storedClient(t);
    await client.auth.setSession({ access_token: f.access_token, refresh_token: f.refresh_token });
    const updated = await client.auth.updateUser({ password: 'Brand-new-pass9' });
    expect(updated.error).toBeNull();
    expect((await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error?.code).toBe(
      'invalid_credentials',
    );
    expect((await t.anon().auth.signInWithPassword({ email, password: 'Brand-new-pass9' })).error).toBeNull();
  });

  test('an unknown address answers the same {} and no mail is sent', async () => {
    const email = uniqueEmail('ghost');
    const res = await t.anon().auth.resetPasswordForEmail(email);
    expect(res).toEqual({ data: {}, error: null });
    // The stack answers after its mail is sent, and the catcher says 250 only once a message is stored: a
    // mail for this request would be in the list already.
    expect((await t.mail.list()).some((m) => m.To.some((a) => a.Address === email))).toBe(false);
    const noEmail = await raw(t, '/recover', { body: {} });
    expect(noEmail).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', message: 'Password recovery requires an email' },
    });
  });

  test('PKCE: ?code= in the redirect, exchangeCodeForSession emits PASSWORD_RECOVERY', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('pkcerec'));
    const { client, storage } = storedClient(t, memoryStorage(), 'pkce');
    const reset = await client.auth.resetPasswordForEmail(email, {
      redirectTo: 'http://127.0.0.1:4321/auth?tab=reset',
    });
    expect(reset.error).toBeNull();
    // The verifier is kept (JSON-encoded) under <key>-code-verifier with the /recovery suffix.
    expect(JSON.parse(storage.items.get('sb-127-auth-token-code-verifier')!)).toMatch(/\/recovery$/);
    const link = verifyLink(await t.mail.waitFor(email));
    expect(new URL(link).searchParams.get('token')).toMatch(/^pkce_[0-9a-f]{56}$/);
    const { status, location } = await openLink(link);
    expect(status).toBe(303);
    const code = new URL(location).searchParams.get('code')!;
    expect(location).toBe(`http://127.0.0.1:4321/auth?code=${code}&tab=reset`);
    expect(code).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const { data, error } = await client.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.session!.user.email).toBe(email);
    await until('the PASSWORD_RECOVERY event', async () => (events.includes('PASSWORD_RECOVERY') ? true : undefined));
    expect((await client.auth.updateUser({ password: 'Pkce-reset-pass1' })).error).toBeNull();
    expect((await t.anon().auth.signInWithPassword({ email, password: 'Pkce-reset-pass1' })).error).toBeNull();

    // The code is spent.
    const again = await raw(t, '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: 'v'.repeat(43) } });
    expect(again).toMatchObject({ status: 404, body: { code: 'flow_state_not_found' } });
  });

  test('PKCE error redirect carries the error in the query and the fragment', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('pkceerr'));
    const { client } = storedClient(t, memoryStorage(), 'pkce');
    await client.auth.resetPasswordForEmail(email, { redirectTo: 'http://127.0.0.1:4321/auth?tab=reset' });
    const link = verifyLink(await t.mail.waitFor(email));
    await openLink(link);
    const { location } = await openLink(link);
    expect(location).toBe(
      'http://127.0.0.1:4321/auth?error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&tab=reset' +
        '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
    );
  });
});

describe('PKCE grant errors', () => {
  async function pendingCode(email: string) {
    const verifier = 'v'.repeat(50);
    const { createHash } = await import('node:crypto');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await raw(t, '/recover', { body: { email, code_challenge: challenge, code_challenge_method: 's256' } });
    const { location } = await openLink(verifyLink(await t.mail.waitFor(email)));
    return { verifier, code: new URL(location).searchParams.get('code')! };
  }

  test('bad_code_verifier, flow_state_expired, flow_state_not_found, validation_failed', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('grant'));
    const { verifier, code } = await pendingCode(email);
    const pkce = (body: unknown) => raw(t, '/token?grant_type=pkce', { body });

    const wrong = await pkce({ auth_code: code, code_verifier: 'w'.repeat(50) });
    expect(wrong).toMatchObject({
      status: 400,
      body: { code: 'bad_code_verifier', message: 'code challenge does not match previously saved code verifier' },
    });
    const empty = await pkce({ auth_code: code, code_verifier: '' });
    expect(empty).toMatchObject({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'invalid request: both auth code and code verifier should be non-empty',
      },
    });
    const unknown = await pkce({ auth_code: '00000000-0000-4000-8000-000000000000', code_verifier: verifier });
    expect(unknown).toMatchObject({
      status: 404,
      body: { code: 'flow_state_not_found', message: 'invalid flow state, no valid flow state found' },
    });

    await t.stack.ctx.db.query(
      `update auth.flow_state set auth_code_issued_at = now() - interval '301 seconds',
              created_at = now() - interval '301 seconds' where auth_code = $1`,
      [code],
    );
    const late = await pkce({ auth_code: code, code_verifier: verifier });
    expect(late).toMatchObject({
      status: 422,
      body: { code: 'flow_state_expired', message: 'invalid flow state, flow state has expired' },
    });
  });

  test('the client reports a missing verifier itself', async () => {
    const { client } = storedClient(t, memoryStorage(), 'pkce');
    const { error } = await client.auth.exchangeCodeForSession('00000000-0000-4000-8000-000000000000');
    expect(error).toMatchObject({ name: 'AuthPKCECodeVerifierMissingError' });
  });
});

describe('verifyOtp', () => {
  test('token_hash + type answers a session; extra fields are refused', async () => {
    const email = uniqueEmail('otp');
    const { data: link } = await t.admin().auth.admin.generateLink({ type: 'signup', email, password: GOOD_PASSWORD });
    const hash = link.properties!.hashed_token;
    const extra = await raw(t, '/verify', { body: { token_hash: hash, type: 'signup', email } });
    expect(extra).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', message: 'Only the token_hash and type should be provided' },
    });
    const client = t.anon();
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const { data, error } = await client.auth.verifyOtp({ token_hash: hash, type: 'signup' });
    expect(error).toBeNull();
    expect(data.session!.refresh_token).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect(events).toContain('SIGNED_IN');
    const spent = await client.auth.verifyOtp({ token_hash: hash, type: 'signup' });
    expect(spent.error).toMatchObject({ name: 'AuthApiError', status: 403, code: 'otp_expired' });
    expect(spent.error!.message).toBe('Email link is invalid or has expired');
  });

  test('email + the six-digit code works too, and a wrong code is otp_expired', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('code'));
    await t.anon().auth.resetPasswordForEmail(email);
    const code = /code: (\d{6})/.exec((await t.mail.waitFor(email)).Text)![1];
    const wrong = await t
      .anon()
      .auth.verifyOtp({ email, token: code === '000000' ? '111111' : '000000', type: 'recovery' });
    expect(wrong.error).toMatchObject({ status: 403, code: 'otp_expired', message: 'Token has expired or is invalid' });
    const client = t.anon();
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const right = await client.auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect(right.error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
  });
});

describe('magic link', () => {
  test('signInWithOtp mails a sign-in link for an existing user', async () => {
    const { email } = await confirmedUser(t, uniqueEmail('magic'));
    const { error } = await t.anon().auth.signInWithOtp({
      email,
      options: { emailRedirectTo: 'http://127.0.0.1:4321/dashboard', shouldCreateUser: false },
    });
    expect(error).toBeNull();
    const mail = await t.mail.waitFor(email);
    expect(mail.Subject).toBe('Your SignalOne sign-in link');
    const { location } = await openLink(verifyLink(mail));
    expect(location.startsWith('http://127.0.0.1:4321/dashboard#access_token=')).toBe(true);
    expect(fragment(location).type).toBe('magiclink');
    const unknown = await t
      .anon()
      .auth.signInWithOtp({ email: uniqueEmail('nouser'), options: { shouldCreateUser: false } });
    expect(unknown.error).toMatchObject({ status: 422, code: 'otp_disabled', message: 'Signups not allowed for otp' });
  });
});
