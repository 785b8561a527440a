// The project's hourly mail budget ([auth.rate_limit] email_sent) is shared by everyone: one client address
// must not be able to spend it. With the stack's rate limits on (client addresses from X-Forwarded-For
// through a trusted proxy on loopback), 40 /otp and /recover calls from one address send only that
// address's share, /otp creates no user (the site has no magic-link sign-up), and another address's
// sign-up through the site's path (user-signup) still gets its confirmation mail.
import { readFileSync } from 'node:fs';
import { createClient } from '@supabase/supabase-js';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { confirmedUser, raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const EMAIL_SENT = (
  parse(readFileSync('supabase/config.toml', 'utf8')) as { auth: { rate_limit: Record<string, number> } }
).auth.rate_limit.email_sent;
const ATTACKER = '198.51.100.66';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({
    rateLimits: true,
    trustedProxies: '127.0.0.1',
    otpSignups: false,
    authOverrides: { emailMaxFrequency: 0 },
  });
});
afterAll(() => t?.stop());

async function userCount(): Promise<number> {
  const rows = await t.stack.ctx.db.query<{ n: number }>('select count(*)::int as n from auth.users');
  return Number(rows[0].n);
}

test('40 /otp and /recover calls from one address; another address still gets its sign-up mail', async () => {
  expect(EMAIL_SENT).toBeGreaterThanOrEqual(10);
  // Members the attacker knows: /recover and /otp would mail them.
  const members = [await confirmedUser(t, uniqueEmail('member')), await confirmedUser(t, uniqueEmail('member'))];
  const usersBefore = await userCount();

  const statuses: Record<string, number[]> = { otp: [], recover: [] };
  for (let i = 0; i < 20; i++) {
    const member = members[i % 2].email;
    const from = { 'X-Forwarded-For': ATTACKER };
    // A new address (would create a user and mail it) and a member (a magic link) in turn.
    const otpEmail = i % 2 === 0 ? uniqueEmail('junk') : member;
    statuses.otp.push((await raw(t, '/otp', { body: { email: otpEmail }, headers: from })).status);
    statuses.recover.push((await raw(t, '/recover', { body: { email: member }, headers: from })).status);
  }

  // No user was created through /otp.
  expect(await userCount()).toBe(usersBefore);
  const junk = await raw(t, '/otp', {
    body: { email: uniqueEmail('junk') },
    headers: { 'X-Forwarded-For': '192.0.2.9' },
  });
  expect(junk.status).toBe(422);
  expect(junk.body).toEqual({ code: 'otp_disabled', message: 'Signups not allowed for otp' });

  // The attacker's address spent its share and then got 429; most of the budget is left.
  const sent = (await t.mail.list()).length;
  expect(sent).toBeGreaterThan(0);
  expect(sent).toBeLessThanOrEqual(EMAIL_SENT / 5);
  expect([...statuses.otp, ...statuses.recover].filter((s) => s === 429).length).toBeGreaterThan(20);

  // Another visitor signs up through the site's path and gets the confirmation mail.
  const email = uniqueEmail('newcomer');
  const visitor = createClient(t.url, t.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { 'X-Forwarded-For': '203.0.113.200' } },
  });
  const { data, error } = await visitor.functions.invoke('user-signup', {
    body: { email, password: 'Sup3r-secret!', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(error).toBeNull();
  expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
  const mail = await t.mail.waitFor(email);
  expect(mail.Subject).toBe('Confirm your SignalOne account');
});

test('the cap is per address: a second address gets its own share', async () => {
  const member = await confirmedUser(t, uniqueEmail('member2'));
  await t.mail.clear();
  const from = { 'X-Forwarded-For': '198.51.100.67' };
  const res = await raw(t, '/recover', { body: { email: member.email }, headers: from });
  expect(res.status).toBe(200);
  await t.mail.waitFor(member.email);
});
