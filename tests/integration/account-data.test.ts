// The account function through the real stack (supabase-js invoke with a member's session, the functions
// host, the auth service, Postgres): downloading one's data and deleting one's account. Checks are on the
// answers and on what is stored afterwards (users, sessions, profiles, newsletter and contact rows).
// Members with two-factor on use codes computed from their factor's secret, as an authenticator app does.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import {
  codeFor,
  confirmedUser,
  failure,
  GOOD_PASSWORD,
  startTestStack,
  type TestStack,
  uniqueEmail,
  wrongCode,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../supabase/database.types.ts';
import { PUBLISHED_CONSENT_WORDINGS } from '../../supabase/functions/_shared/newsletter-consent.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

interface Member {
  id: string;
  email: string;
  client: SupabaseClient<Database>;
}

/**
 * A confirmed member, signed in on its own client, with a contact message and (unless `newsletter` is false) a
 * newsletter subscription.
 */
async function member(email: string, firstName: string, password = GOOD_PASSWORD, newsletter = true): Promise<Member> {
  const { user } = await confirmedUser(t, email, password, { first_name: firstName, last_name: 'Lee' });
  const client = t.anon<Database>();
  const { error } = await client.auth.signInWithPassword({ email, password });
  if (error) throw error;
  const admin = t.admin<Database>();
  if (newsletter) {
    const subscribed = await admin.from('newsletter_subscribers').insert({
      email,
      status: 'verified',
      verified_at: new Date().toISOString(),
      consent_text_version: '0123456789abcdef',
    });
    expect(subscribed.error).toBeNull();
  }
  // Sent with the address in upper case: still the member's.
  const sent = await admin.from('contact_messages').insert({
    name: `${firstName} Lee`,
    email: email.toUpperCase(),
    subject: `Question from ${firstName}`,
    message: 'How many signals per week?',
  });
  expect(sent.error).toBeNull();
  return { id: user.id, email, client };
}

const stored = async (m: Member) => {
  const db = t.stack.ctx.db;
  const count = async (sql: string, value: string) => Number((await db.query<{ n: number }>(sql, [value]))[0]?.n);
  return {
    users: await count('select count(*)::int as n from auth.users where id = $1', m.id),
    sessions: await count('select count(*)::int as n from auth.sessions where user_id = $1', m.id),
    profiles: await count('select count(*)::int as n from public.profiles where user_id = $1', m.id),
    newsletter: await count(
      'select count(*)::int as n from public.newsletter_subscribers where email_key = lower($1)',
      m.email,
    ),
    contact: await count(
      'select count(*)::int as n from public.contact_messages where lower(email) = lower($1)',
      m.email,
    ),
  };
};

const canSignIn = async (email: string) =>
  !(await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error;

const deleting = (m: Member, password: string) => m.client.functions.invoke('account', { body: { password } });

/**
 * A member who set up two-factor (their client left at aal2, as after the code step), and a second client signed
 * in with the password alone afterwards: an aal1 session, as someone who knows only the password gets.
 */
async function memberWithFactor(prefix: string) {
  const m = await member(uniqueEmail(prefix), 'Ann');
  const { data: enrolled, error } = await m.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
  if (error || !enrolled) throw error ?? new Error('no factor');
  const verified = await m.client.auth.mfa.challengeAndVerify({
    factorId: enrolled.id,
    code: codeFor(enrolled.totp.secret),
  });
  if (verified.error) throw verified.error;
  const passwordOnly = createClient(t.url, t.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  const signIn = await passwordOnly.auth.signInWithPassword({ email: m.email, password: GOOD_PASSWORD });
  if (signIn.error) throw signIn.error;
  return { ...m, secret: enrolled.totp.secret, passwordOnly };
}

/** A wording the site has published, as the newsletter card sends its version. */
const CONSENT_VERSION = (PUBLISHED_CONSENT_WORDINGS.at(-1) as { version: string }).version;

/** Asks the newsletter function for a confirmation link to `email`, from a browser named `userAgent`. */
async function newsletterSignUp(email: string, userAgent: string) {
  const { error } = await t.anon().functions.invoke('newsletter-signup', {
    body: { email, consentVersion: CONSENT_VERSION },
    headers: { 'User-Agent': userAgent },
  });
  expect(error).toBeNull();
}

/** The confirmation link and the unsubscribe link (List-Unsubscribe header) of the newest mail to `email`. */
async function newsletterLinks(email: string) {
  const mail = await t.mail.waitFor(email);
  const confirm = /https?:\/\/\S+\/functions\/v1\/newsletter-signup\?token=[A-Za-z0-9_-]+/.exec(mail.Text)?.[0];
  const res = await fetch(`http://127.0.0.1:${t.config.ports.mailWeb}/api/v1/message/${mail.ID}/headers`);
  const headers = (await res.json()) as Record<string, string[]>;
  const unsubscribe = /^<(.+)>$/.exec(headers['List-Unsubscribe']?.[0] ?? '')?.[1];
  expect(confirm, mail.Text).toBeTruthy();
  expect(unsubscribe, JSON.stringify(headers)).toBeTruthy();
  return { confirm: confirm as string, unsubscribe: unsubscribe as string };
}

const AAL2_REFUSAL = {
  status: 403,
  body: {
    error:
      'Two-factor authentication is on for this account: sign in with a code from your authenticator app to continue.',
    code: 'insufficient_aal',
  },
};

describe('download my data', () => {
  test('the export holds exactly the member’s data: account, profile, newsletter, contact messages', async () => {
    // "_" is a LIKE wildcard: the other member's address would match a careless pattern for this one.
    const stamp = uniqueEmail('x').split('@')[0];
    const ann = await member(`ann_${stamp}@example.com`, 'Ann');
    const bob = await member(`annx${stamp}@example.com`, 'Bob');

    const { data, error } = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(error).toBeNull();
    expect(data).toEqual({
      exportedAt: expect.any(String),
      account: {
        id: ann.id,
        email: ann.email,
        createdAt: expect.any(String),
        emailConfirmedAt: expect.any(String),
        lastSignInAt: expect.any(String),
      },
      profile: {
        first_name: 'Ann',
        last_name: 'Lee',
        email: ann.email,
        email_verified: true,
        created_at: expect.any(String),
      },
      newsletter: expect.objectContaining({
        email: ann.email,
        status: 'verified',
        consent_text_version: '0123456789abcdef',
      }),
      newsletterConsentEvents: [],
      contactMessages: [expect.objectContaining({ subject: 'Question from Ann', email: ann.email.toUpperCase() })],
      alertPreferences: null,
      alerts: [],
    });
    expect(JSON.stringify(data)).not.toContain(bob.email);
    expect(JSON.stringify(data)).not.toContain('Bob');
    expect(Object.keys(data.newsletter)).not.toContain('verify_token_hash');
  });

  test('a newsletter sign-up and a contact message someone else sent with the member’s address: the export leaves out the sender’s IP address and browser', async () => {
    const ann = await member(uniqueEmail('third'), 'Ann');
    const admin = t.admin<Database>();
    const sender = { ip: '203.0.113.123', user_agent: 'ThirdParty/1.0' };
    expect(
      (await admin.from('newsletter_subscribers').update(sender).eq('email_key', ann.email.toLowerCase())).error,
    ).toBeNull();
    const sent = await admin.from('contact_messages').insert({
      name: 'Someone Else',
      email: ann.email,
      subject: 'Sent by someone else',
      message: 'Hello',
      ...sender,
    });
    expect(sent.error).toBeNull();

    const { data, error } = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(error).toBeNull();
    expect(data.contactMessages.map((m: { subject: string }) => m.subject)).toEqual([
      'Question from Ann',
      'Sent by someone else',
    ]);
    const text = JSON.stringify(data);
    expect(text).not.toContain(sender.ip);
    expect(text).not.toContain(sender.user_agent);
    for (const row of [data.newsletter, ...data.contactMessages]) {
      expect(Object.keys(row)).not.toContain('ip');
      expect(Object.keys(row)).not.toContain('user_agent');
    }
  });

  test('the export holds the address’s newsletter consent record, oldest first: link mailed, confirmed, withdrawn, without IP addresses or browsers', async () => {
    // "_" is a LIKE wildcard: the near-miss address's record must not come with the member's.
    const stamp = uniqueEmail('x').split('@')[0];
    const ann = await member(`ann_${stamp}@example.com`, 'Ann', GOOD_PASSWORD, false);
    const nearMiss = `annx${stamp}@example.com`;
    // Typed in upper case on the card: still the member's address.
    const typed = ann.email.toUpperCase();
    await newsletterSignUp(typed, 'Reader/1.0');
    await newsletterSignUp(nearMiss, 'Stranger/1.0');
    const links = await newsletterLinks(typed);
    const confirmed = await fetch(links.confirm, {
      redirect: 'manual',
      headers: { 'User-Agent': 'Reader-Browser/1.0' },
    });
    expect(confirmed.status).toBe(303);
    const withdrawn = await fetch(links.unsubscribe, {
      method: 'POST',
      headers: { 'User-Agent': 'MailProvider/1.0', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      redirect: 'manual',
    });
    expect(withdrawn.status).toBe(200);
    // What is stored holds each step's IP address and browser: the export must leave them out.
    const { data: record } = await t
      .admin<Database>()
      .from('newsletter_consent_events')
      .select('kind, ip, user_agent')
      .eq('email', typed)
      .order('id');
    expect(record).toEqual([
      { kind: 'requested', ip: '127.0.0.1', user_agent: 'Reader/1.0' },
      { kind: 'confirmed', ip: '127.0.0.1', user_agent: 'Reader-Browser/1.0' },
      { kind: 'withdrawn', ip: '127.0.0.1', user_agent: 'MailProvider/1.0' },
    ]);

    const { data, error } = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(error).toBeNull();
    const step = (kind: string, via: string) => ({
      kind,
      via,
      email: typed,
      consent_text_version: CONSENT_VERSION,
      created_at: expect.any(String),
    });
    expect(data.newsletterConsentEvents).toEqual([
      step('requested', 'form'),
      step('confirmed', 'link'),
      step('withdrawn', 'one-click'),
    ]);
    const times = data.newsletterConsentEvents.map((e: { created_at: string }) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(data.newsletter).toMatchObject({ email: typed, status: 'unsubscribed' });
    const text = JSON.stringify(data);
    for (const absent of ['127.0.0.1', 'Reader/1.0', 'Reader-Browser/1.0', 'MailProvider/1.0', nearMiss]) {
      expect(text).not.toContain(absent);
    }
  });

  test('without a member’s session: 401, no data', async () => {
    const { data, error } = await t.anon().functions.invoke('account', { method: 'GET' });
    expect(data).toBeNull();
    expect(await failure(error)).toEqual({
      status: 401,
      body: { error: 'Your session has expired. Please sign in again.', code: 'session_expired' },
    });
  });
});

describe('delete my account', () => {
  test('a wrong password deletes nothing', async () => {
    const ann = await member(uniqueEmail('wrong'), 'Ann');
    const before = await stored(ann);
    expect(before).toEqual({ users: 1, sessions: 1, profiles: 1, newsletter: 1, contact: 1 });

    const { error } = await deleting(ann, 'Not-the-passw0rd!');
    expect(await failure(error)).toEqual({
      status: 403,
      body: { error: 'The password is incorrect. Your account was not deleted.', code: 'invalid_credentials' },
    });
    expect(await stored(ann)).toEqual(before);
    expect(await canSignIn(ann.email)).toBe(true);
  });

  test('the right password deletes the user, profile, newsletter row and sessions; sign-in fails after', async () => {
    const ann = await member(uniqueEmail('delete'), 'Ann');
    // A second session, on another device.
    expect(await canSignIn(ann.email)).toBe(true);
    expect((await stored(ann)).sessions).toBe(2);

    const { data, error } = await deleting(ann, GOOD_PASSWORD);
    expect(error).toBeNull();
    expect(data).toEqual({ deleted: true });
    // Contact messages stay until their 12 months are up, as the privacy notice says.
    expect(await stored(ann)).toEqual({ users: 0, sessions: 0, profiles: 0, newsletter: 0, contact: 1 });

    const signIn = await t.anon().auth.signInWithPassword({ email: ann.email, password: GOOD_PASSWORD });
    expect(signIn.error?.code).toBe('invalid_credentials');
    // The old refresh token renews nothing, and the old access token names no one any more.
    const refreshed = await ann.client.auth.refreshSession();
    expect(refreshed.error?.code).toBe('refresh_token_not_found');
    const again = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(await failure(again.error)).toMatchObject({ status: 401, body: { code: 'session_expired' } });
  });

  test('a member’s token deletes only that member’s account, even with another member’s password', async () => {
    const ann = await member(uniqueEmail('ann'), 'Ann', 'Ann-0nly-secret!');
    const bob = await member(uniqueEmail('bob'), 'Bob');

    const withAnnsPassword = await deleting(bob, 'Ann-0nly-secret!');
    expect(await failure(withAnnsPassword.error)).toMatchObject({ status: 403, body: { code: 'invalid_credentials' } });
    expect((await stored(ann)).users).toBe(1);
    expect((await stored(bob)).users).toBe(1);

    const { error } = await deleting(bob, GOOD_PASSWORD);
    expect(error).toBeNull();
    expect(await stored(bob)).toEqual({ users: 0, sessions: 0, profiles: 0, newsletter: 0, contact: 1 });
    expect(await stored(ann)).toEqual({ users: 1, sessions: 1, profiles: 1, newsletter: 1, contact: 1 });
  });

  test('no password or no session: nothing is deleted', async () => {
    const ann = await member(uniqueEmail('nopass'), 'Ann');
    const before = await stored(ann);
    const empty = await ann.client.functions.invoke('account', { body: {} });
    expect(await failure(empty.error)).toEqual({
      status: 400,
      body: { error: 'Enter your password to delete your account.', code: 'invalid_input', field: 'password' },
    });
    const anonymous = await t.anon().functions.invoke('account', { body: { password: GOOD_PASSWORD } });
    expect(await failure(anonymous.error)).toMatchObject({ status: 401, body: { code: 'session_expired' } });
    expect(await stored(ann)).toEqual(before);
  });
});

describe('two-factor on: the export and the deletion need an aal2 session, and deletion a current code', () => {
  test('a password-only (aal1) session gets 403 insufficient_aal for both, with the right password and code too; nothing is read or deleted', async () => {
    const ann = await memberWithFactor('aal1');
    const before = await stored(ann);

    const exported = await ann.passwordOnly.functions.invoke('account', { method: 'GET' });
    expect(exported.data).toBeNull();
    expect(await failure(exported.error)).toEqual(AAL2_REFUSAL);

    const removed = await ann.passwordOnly.functions.invoke('account', {
      body: { password: GOOD_PASSWORD, code: codeFor(ann.secret, 1) },
    });
    expect(await failure(removed.error)).toEqual(AAL2_REFUSAL);
    expect(await stored(ann)).toEqual(before);

    // The same member at aal2 gets the export.
    const own = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(own.error).toBeNull();
    expect(own.data.account.email).toBe(ann.email);
  });

  test('at aal2: no code or a malformed one is 400 mfa_code_required, a wrong one 400 mfa_verification_failed; nothing is deleted and the password check leaves no session', async () => {
    const ann = await memberWithFactor('code');
    const before = await stored(ann);
    const attempt = (body: Record<string, unknown>) => ann.client.functions.invoke('account', { body });

    for (const body of [{ password: GOOD_PASSWORD }, { password: GOOD_PASSWORD, code: '12345' }]) {
      expect(await failure((await attempt(body)).error)).toEqual({
        status: 400,
        body: {
          error: 'Enter the 6-digit code from your authenticator app to delete your account.',
          code: 'mfa_code_required',
        },
      });
    }
    const wrong = await attempt({ password: GOOD_PASSWORD, code: wrongCode(ann.secret) });
    expect(await failure(wrong.error)).toEqual({
      status: 400,
      body: {
        error: 'The code is incorrect or has expired. Your account was not deleted.',
        code: 'mfa_verification_failed',
      },
    });
    // A wrong password with a right code: the password's answer, and the code is never tried.
    const wrongPassword = await attempt({ password: 'Not-the-passw0rd!', code: codeFor(ann.secret, 1) });
    expect(await failure(wrongPassword.error)).toEqual({
      status: 403,
      body: { error: 'The password is incorrect. Your account was not deleted.', code: 'invalid_credentials' },
    });
    expect(await stored(ann)).toEqual(before);
    // The member's own session still works.
    expect((await ann.client.functions.invoke('account', { method: 'GET' })).error).toBeNull();
  });

  test('at aal2 with the password and a current code: the account is deleted', async () => {
    const ann = await memberWithFactor('delete-2fa');
    const { data, error } = await ann.client.functions.invoke('account', {
      body: { password: GOOD_PASSWORD, code: codeFor(ann.secret, 1) },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ deleted: true });
    expect(await stored(ann)).toEqual({ users: 0, sessions: 0, profiles: 0, newsletter: 0, contact: 1 });
  });
});
