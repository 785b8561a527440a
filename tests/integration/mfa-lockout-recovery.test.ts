// A stolen session turns two-factor on with the taker's authenticator app, and what gets the owner back in
// (docs/operations.md): the "factor enrolled" mail reaches the owner; the owner, signed in with the password or
// through a reset link, cannot change the password (401 insufficient_aal); the operator's
// scripts/remove-factor.ts removes the factor and signs everyone out; the owner then resets the password and
// sets up their own authenticator app. Real stack, supabase-js, the script as an operator runs it, and the
// mail through the stack's SMTP into its catcher.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import {
  codeFor,
  confirmedUser,
  GOOD_PASSWORD,
  raw,
  startTestStack,
  type TestStack,
  uniqueEmail,
} from 'local-supabase/testing';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Database } from '../../supabase/database.types.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const NEW_PASSWORD = 'Back-1n-control!';
const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };
const notifications = (
  parse(readFileSync(resolve('supabase/config.toml'), 'utf8')) as {
    auth: { email: { notification: Record<string, { subject: string }> } };
  }
).auth.email.notification;

const client = (): SupabaseClient<Database> => createClient<Database>(t.url, t.config.anonKey, options);

/** The operator's script, run as docs/operations.md says, against the test stack. */
async function removeFactorScript(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, SUPABASE_URL: t.url, SUPABASE_SERVICE_ROLE_KEY: t.config.serviceRoleKey };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/remove-factor.ts', ...args], {
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The owner's "Forgot password?": the reset mail's code, exchanged for a session (aal1). */
async function recoverySession(email: string): Promise<SupabaseClient<Database>> {
  await t.mail.clear();
  const owner = client();
  expect((await owner.auth.resetPasswordForEmail(email)).error).toBeNull();
  const mail = await t.mail.waitFor(email);
  const code = /\b(\d{6})\b/.exec(mail.Text)?.[1] ?? '';
  const { error } = await owner.auth.verifyOtp({ email, token: code, type: 'recovery' });
  expect(error).toBeNull();
  return owner;
}

test('a thief’s factor locks the owner out until the operator removes it; then the owner is back', async () => {
  const email = uniqueEmail('owner');
  const { user } = await confirmedUser(t, email, GOOD_PASSWORD, { first_name: 'Olive' });
  const owner = client();
  const { data: signedIn } = await owner.auth.signInWithPassword({ email, password: GOOD_PASSWORD });
  if (!signedIn.session) throw new Error('the owner did not sign in');

  // The thief has the owner's stored session (say, read from the browser by an injected script) and enrols
  // an authenticator app of their own.
  await t.mail.clear();
  const thief = client();
  expect((await thief.auth.setSession(signedIn.session)).error).toBeNull();
  const { data: factor, error: enrollError } = await thief.auth.mfa.enroll({ factorType: 'totp' });
  expect(enrollError).toBeNull();
  const factorId = factor?.id ?? '';
  const raised = await thief.auth.mfa.challengeAndVerify({ factorId, code: codeFor(factor?.totp.secret ?? '') });
  expect(raised.error).toBeNull();

  // The owner is told at once.
  const told = await t.mail.waitFor(email);
  expect(told.Subject).toBe(notifications.mfa_factor_enrolled.subject);
  expect(told.Text).toContain(`${t.config.siteUrl}/contact-us`);

  // Neither the password nor a reset link lets the owner change the password now.
  const again = client();
  await again.auth.signInWithPassword({ email, password: GOOD_PASSWORD });
  const changed = await again.auth.updateUser({ password: NEW_PASSWORD, current_password: GOOD_PASSWORD });
  expect(changed.error).toMatchObject({ status: 401, code: 'insufficient_aal' });
  const recovered = await recoverySession(email);
  const reset = await recovered.auth.updateUser({ password: NEW_PASSWORD });
  expect(reset.error).toMatchObject({ status: 401, code: 'insufficient_aal' });
  // ... while the thief's session keeps refreshing at aal2.
  const { data: kept, error: keptError } = await thief.auth.refreshSession();
  expect(keptError).toBeNull();
  const thiefToken = kept.session?.access_token ?? '';

  // Wrong input to the script changes nothing.
  const unknown = await removeFactorScript(uniqueEmail('nobody'));
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/^No member has the address nobody-.*@example\.com\.\n$/);
  const other = await removeFactorScript(email, crypto.randomUUID());
  expect(other.code).toBe(1);
  expect(other.stderr).toContain(`Their factors: ${factorId} (totp, verified`);
  expect((await t.admin().auth.admin.mfa.listFactors({ userId: user.id })).data?.factors).toHaveLength(1);

  // After the identity check, the operator removes the factor: every session ends, the thief's included.
  const removed = await removeFactorScript(email);
  expect(removed.code).toBe(0);
  expect(removed.stdout).toContain(`removed factor ${factorId} (totp, verified`);
  expect(removed.stdout).toContain(`signed ${email} out of every session`);
  expect((await t.admin().auth.admin.mfa.listFactors({ userId: user.id })).data?.factors).toEqual([]);
  expect((await thief.auth.refreshSession()).error).toMatchObject({ code: 'refresh_token_not_found' });
  const stale = await raw(t, '/user', { headers: { Authorization: `Bearer ${thiefToken}` } });
  expect(stale).toMatchObject({ status: 403, body: { code: 'session_not_found' } });
  expect((await owner.auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error).toMatchObject({
    code: 'invalid_credentials',
  });

  // The owner resets the password and sets up their own authenticator app.
  const back = await recoverySession(email);
  expect((await back.auth.updateUser({ password: NEW_PASSWORD })).error).toBeNull();
  const mine = client();
  expect((await mine.auth.signInWithPassword({ email, password: NEW_PASSWORD })).error).toBeNull();
  await t.mail.clear();
  const { data: own } = await mine.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'My phone' });
  const mineVerified = await mine.auth.mfa.challengeAndVerify({
    factorId: own?.id ?? '',
    code: codeFor(own?.totp.secret ?? ''),
  });
  expect(mineVerified.error).toBeNull();
  const { data: level } = await mine.auth.mfa.getAuthenticatorAssuranceLevel();
  expect(level?.currentLevel).toBe('aal2');
  expect((await t.mail.waitFor(email)).Subject).toBe(notifications.mfa_factor_enrolled.subject);
  const profile = await mine.from('profiles').select('first_name');
  expect(profile.data).toEqual([{ first_name: 'Olive' }]);
});

test('the script refuses a member without factors and bad arguments, changing nothing', async () => {
  const email = uniqueEmail('plain');
  await confirmedUser(t, email);
  const none = await removeFactorScript(email);
  expect(none).toMatchObject({ code: 1, stderr: `${email} has no two-factor factor: nothing to remove.\n` });
  expect((await client().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error).toBeNull();
  expect(await removeFactorScript('not-an-address')).toMatchObject({
    code: 1,
    stderr: '"not-an-address" is not an email address.\n',
  });
  expect(await removeFactorScript(email, 'abc')).toMatchObject({ code: 1, stderr: expect.stringContaining('"abc"') });
  expect(await removeFactorScript()).toMatchObject({
    code: 1,
    stderr: 'Usage: node scripts/remove-factor.ts <email> [factor-id]\n',
  });
});
