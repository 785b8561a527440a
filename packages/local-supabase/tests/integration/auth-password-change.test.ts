// Changing the password through PUT /auth/v1/user (supabase-js updateUser) as hosted GoTrue enforces it with
// this project's settings: the current password ("Require current password when updating") and, with
// config.toml's secure_password_change, a reauthentication nonce for sessions signed in over 24 hours ago.
// A stolen access token alone cannot change the password.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { confirmedUser, GOOD_PASSWORD, raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const NEW_PASSWORD = 'N3w-password!';

async function signedIn() {
  const account = await confirmedUser(t, uniqueEmail('pwchange'), GOOD_PASSWORD);
  const client = t.anon();
  const { data, error } = await client.auth.signInWithPassword({ email: account.email, password: GOOD_PASSWORD });
  if (error) throw error;
  return { ...account, client, session: data.session! };
}

async function passwordWorks(email: string, password: string): Promise<boolean> {
  return !(await t.anon().auth.signInWithPassword({ email, password })).error;
}

/** The session was signed in `hours` ago: what a token lifted from an older sign-in carries. */
async function ageSession(sessionId: string, hours: number) {
  await t.stack.ctx.db.query(`update auth.sessions set created_at = now() - make_interval(hours => $2) where id = $1`, [
    sessionId,
    hours,
  ]);
}

function sessionIdOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).session_id;
}

/** The code in the newest reauthentication mail to `email`. */
async function mailedNonce(email: string): Promise<string> {
  const mail = await t.mail.waitFor(email);
  expect(mail.Subject).toBe('Your SignalOne verification code');
  const code = /\b(\d{6})\b/.exec(mail.Text)?.[1];
  if (!code) throw new Error(`no code in "${mail.Text}"`);
  return code;
}

describe('current password', () => {
  test('a fresh session without the current password is refused (400 current_password_required)', async () => {
    const { client, email } = await signedIn();
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD });
    expect(error).toMatchObject({ status: 400, code: 'current_password_required' });
    expect(error?.message).toBe('Current password required when setting new password.');
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(true);
    expect(await passwordWorks(email, NEW_PASSWORD)).toBe(false);
  });

  test('a wrong current password is refused (400 current_password_invalid) and changes nothing', async () => {
    const { client, email } = await signedIn();
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: 'Wr0ng-password!' });
    expect(error).toMatchObject({ status: 400, code: 'current_password_invalid' });
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(true);
  });

  test('the right current password changes it; the same password is still 422 same_password', async () => {
    const { client, email } = await signedIn();
    const same = await client.auth.updateUser({ password: GOOD_PASSWORD, current_password: GOOD_PASSWORD });
    expect(same.error).toMatchObject({ status: 422, code: 'same_password' });
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD });
    expect(error).toBeNull();
    expect(await passwordWorks(email, NEW_PASSWORD)).toBe(true);
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(false);
  });

  test('metadata updates need no password', async () => {
    const { client } = await signedIn();
    expect((await client.auth.updateUser({ data: { first_name: 'Grace' } })).error).toBeNull();
  });

  test('a recovery session (reset link) sets a new password without the old one', async () => {
    const email = uniqueEmail('pwrecover');
    await confirmedUser(t, email, GOOD_PASSWORD);
    const link = await t.admin().auth.admin.generateLink({ type: 'recovery', email });
    const client = t.anon();
    const verified = await client.auth.verifyOtp({ token_hash: link.data.properties!.hashed_token, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect((await client.auth.updateUser({ password: NEW_PASSWORD })).error).toBeNull();
    expect(await passwordWorks(email, NEW_PASSWORD)).toBe(true);
  });
});

describe('secure_password_change: sessions signed in more than 24 hours ago', () => {
  test('without a nonce: 400 reauthentication_needed, even with the current password', async () => {
    const { client, email, session } = await signedIn();
    await ageSession(sessionIdOf(session.access_token), 25);
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD });
    expect(error).toMatchObject({ status: 400, code: 'reauthentication_needed' });
    expect(error?.message).toBe('Password update requires reauthentication');
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(true);
  });

  test('a session of 23 hours needs no nonce', async () => {
    const { client, session } = await signedIn();
    await ageSession(sessionIdOf(session.access_token), 23);
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD });
    expect(error).toBeNull();
  });

  test('reauthenticate() mails a code; a wrong one is 422, the right one works once', async () => {
    const { client, email, session } = await signedIn();
    await ageSession(sessionIdOf(session.access_token), 48);
    await t.mail.clear();
    const sent = await client.auth.reauthenticate();
    expect(sent.error).toBeNull();
    const nonce = await mailedNonce(email);
    const wrong = nonce === '000000' ? '111111' : '000000';

    const bad = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD, nonce: wrong });
    expect(bad.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' });
    expect(bad.error?.message).toBe('Nonce has expired or is invalid');
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(true);

    const good = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD, nonce });
    expect(good.error).toBeNull();
    expect(await passwordWorks(email, NEW_PASSWORD)).toBe(true);

    const again = await client.auth.updateUser({
      password: 'Th1rd-password!',
      current_password: NEW_PASSWORD,
      nonce,
    });
    expect(again.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' });
    expect(await passwordWorks(email, NEW_PASSWORD)).toBe(true);
  });

  test('a nonce does not replace the current password', async () => {
    const { client, email, session } = await signedIn();
    await ageSession(sessionIdOf(session.access_token), 48);
    await t.mail.clear();
    expect((await client.auth.reauthenticate()).error).toBeNull();
    const nonce = await mailedNonce(email);
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, nonce });
    expect(error).toMatchObject({ status: 400, code: 'current_password_required' });
    expect(await passwordWorks(email, GOOD_PASSWORD)).toBe(true);
  });

  test('a code older than otp_expiry is refused', async () => {
    const { client, email, user, session } = await signedIn();
    await ageSession(sessionIdOf(session.access_token), 48);
    await t.mail.clear();
    expect((await client.auth.reauthenticate()).error).toBeNull();
    const nonce = await mailedNonce(email);
    await t.stack.ctx.db.query(
      `update auth.users set reauthentication_sent_at = now() - interval '2 hours' where id = $1`,
      [user.id],
    );
    const { error } = await client.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD, nonce });
    expect(error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' });
  });

  test('GET /reauthenticate needs a session: 401 no_authorization without a bearer token', async () => {
    const res = await raw(t, '/reauthenticate', { headers: { Authorization: undefined } });
    expect(res.status).toBe(401);
    expect(res.body.error_code ?? res.body.code).toBe('no_authorization');
  });
});

describe('REQUIRE_CURRENT_PASSWORD=off: a hosted project without "Require current password when updating"', () => {
  let off: TestStack;
  beforeAll(async () => {
    off = await startTestStack({ requireCurrentPassword: false });
  });
  afterAll(() => off?.stop());

  test('secure_password_change alone: a session under 24 hours changes it with the token only; older needs the nonce', async () => {
    const account = await confirmedUser(off, uniqueEmail('pwoff'), GOOD_PASSWORD);
    const client = off.anon();
    const { data } = await client.auth.signInWithPassword({ email: account.email, password: GOOD_PASSWORD });
    expect((await client.auth.updateUser({ password: NEW_PASSWORD })).error).toBeNull();

    await off.stack.ctx.db.query(`update auth.sessions set created_at = now() - interval '25 hours' where id = $1`, [
      sessionIdOf(data.session!.access_token),
    ]);
    const { error } = await client.auth.updateUser({ password: 'Th1rd-password!' });
    expect(error).toMatchObject({ status: 400, code: 'reauthentication_needed' });
  });
});
