// Pre-registration: a stranger who signs an address up first (directly at /auth/v1/signup with the public
// key, as anyone can) must never end up holding the owner's account once the owner confirms it. The owner
// signs up through the site's path (the user-signup function) or directly; the newest link confirms the
// owner's password and names, and the stranger's password no longer signs in.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openLink, raw, uniqueEmail, verifyLink } from '../../testing/auth-helpers.ts';
import { signupVerifyLink } from '../../testing/confirmation-link.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const STRANGER_PASSWORD = 'Str4nger-pw!';
const OWNER_PASSWORD = 'Own3r-pw-real!';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

async function strangerSignsUp(email: string) {
  const res = await raw(t, '/signup', {
    body: { email, password: STRANGER_PASSWORD, data: { first_name: 'Evil', last_name: 'Twin' } },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string };
}

async function userRow(email: string) {
  const rows = await t.stack.ctx.db.query<{ id: string; email_confirmed_at: string | null }>(
    'select id::text, email_confirmed_at from auth.users where lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

async function profile(email: string) {
  const rows = await t.stack.ctx.db.query<{ first_name: string; last_name: string }>(
    'select first_name, last_name from public.profiles where lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

/** Confirms with the newest mail to `email` (GET /verify), then checks which password signs in. */
async function confirmNewestAndCheck(email: string) {
  const mail = await t.mail.waitFor(email);
  const { status, location } = await openLink(signupVerifyLink(t, mail));
  expect(status).toBe(303);
  expect(location).toContain('access_token=');
  expect((await userRow(email)).email_confirmed_at).not.toBeNull();

  const owner = await t.anon().auth.signInWithPassword({ email, password: OWNER_PASSWORD });
  expect(owner.error).toBeNull();
  expect(owner.data.user?.user_metadata).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
  const stranger = await t.anon().auth.signInWithPassword({ email, password: STRANGER_PASSWORD });
  expect(stranger.data.session).toBeNull();
  expect(stranger.error?.code).toBe('invalid_credentials');
  expect(await profile(email)).toEqual({ first_name: 'Ada', last_name: 'Lovelace' });
}

test("through user-signup: the stranger's unconfirmed account is removed and made afresh for the owner", async () => {
  const email = uniqueEmail('victim');
  const first = await strangerSignsUp(email);
  await t.mail.waitFor(email);
  await t.mail.clear();

  const { data, error } = await t.anon().functions.invoke('user-signup', {
    body: { email, password: OWNER_PASSWORD, firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(error).toBeNull();
  expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
  // The function removed the stranger's account (as it must on hosted Supabase, whose auth service keeps
  // the first registrant's password) and signed the owner up anew.
  const now = await userRow(email);
  expect(now.id).not.toBe(first.id);
  const { data: gone } = await t.admin().auth.admin.getUserById(first.id);
  expect(gone.user).toBeNull();

  await confirmNewestAndCheck(email);
});

test("directly at /auth/v1/signup: the newest sign-up's password and names replace the stranger's", async () => {
  const email = uniqueEmail('victim-direct');
  await strangerSignsUp(email);
  await t.mail.waitFor(email);
  await t.mail.clear();

  const res = await raw(t, '/signup', {
    body: { email, password: OWNER_PASSWORD, data: { first_name: 'Ada', last_name: 'Lovelace' } },
  });
  expect(res.status).toBe(200);
  // The answer carries the caller's own sign-up data, never the earlier registrant's.
  expect(JSON.stringify(res.body)).not.toContain('Evil');
  expect(res.body.user_metadata).toEqual({ first_name: 'Ada', last_name: 'Lovelace' });

  await confirmNewestAndCheck(email);
});

test("a stranger's earlier confirmation link is dead once the owner has signed up again", async () => {
  const email = uniqueEmail('victim-old-link');
  await strangerSignsUp(email);
  const strangersMail = await t.mail.waitFor(email);
  await t.mail.clear();
  await raw(t, '/signup', {
    body: { email, password: OWNER_PASSWORD, data: { first_name: 'Ada', last_name: 'Lovelace' } },
  });
  await t.mail.waitFor(email);

  const { location } = await openLink(signupVerifyLink(t, strangersMail));
  expect(location).toContain('error_code=otp_expired');
  expect((await userRow(email)).email_confirmed_at).toBeNull();
});

test('a recovery link that confirms an unconfirmed address drops the password nobody proved owning', async () => {
  const email = uniqueEmail('victim-recover');
  await strangerSignsUp(email);
  await t.mail.waitFor(email);
  await t.mail.clear();

  // The owner never signs up but resets the password from the mail the reset sends to their inbox.
  const reset = await raw(t, '/recover', { body: { email } });
  expect(reset.status).toBe(200);
  const { location } = await openLink(verifyLink(await t.mail.waitFor(email)));
  expect(location).toContain('type=recovery');
  expect((await userRow(email)).email_confirmed_at).not.toBeNull();

  const stranger = await t.anon().auth.signInWithPassword({ email, password: STRANGER_PASSWORD });
  expect(stranger.data.session).toBeNull();
  expect(stranger.error?.code).toBe('invalid_credentials');
});
