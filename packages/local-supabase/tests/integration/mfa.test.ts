// Two-factor sign-in with an authenticator app (TOTP), through supabase-js as the site and hosted Supabase
// use it: enroll, challenge, verify, the levels (aal) in the access tokens, refresh, unenroll, the admin
// API, GoTrue's limits, and the profiles policy that asks aal2 of members who have a verified factor.
// Codes are computed from the secret the enrollment answers, as an authenticator app does.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
const PASSWORD = 'Str0ng!Passw0rd';
const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

/** The code an authenticator app shows for `secret`, `offset` steps of 30 s from now. */
function codeFor(secret: string, offset = 0): string {
  const totp = new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

/** A code no window accepts (none of the steps -1..+1). */
function wrongCode(secret: string): string {
  const near = new Set([-1, 0, 1].map((o) => codeFor(secret, o)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}

interface Account {
  id: string;
  email: string;
}

async function newAccount(prefix: string): Promise<Account> {
  const email = uniqueEmail(prefix);
  const { data, error } = await t.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
  if (error || !data.user) throw error ?? new Error('no user');
  return { id: data.user.id, email };
}

async function signIn(account: Account): Promise<SupabaseClient> {
  const client = createClient(t.url, t.config.anonKey, clientOptions);
  const { error } = await client.auth.signInWithPassword({ email: account.email, password: PASSWORD });
  if (error) throw error;
  return client;
}

async function claims(client: SupabaseClient) {
  const { data } = await client.auth.getSession();
  return decodeJwt(data.session?.access_token ?? '') as { aal: string; amr: { method: string; timestamp: number }[] };
}

/** A member with a verified TOTP factor; the client is left at aal2. */
async function memberWithFactor(prefix: string) {
  const account = await newAccount(prefix);
  const client = await signIn(account);
  const { data: enrolled, error } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app' });
  if (error || !enrolled) throw error ?? new Error('no factor');
  const verified = await client.auth.mfa.challengeAndVerify({
    factorId: enrolled.id,
    code: codeFor(enrolled.totp.secret),
  });
  if (verified.error) throw verified.error;
  return { account, client, factorId: enrolled.id, secret: enrolled.totp.secret };
}

describe('enroll, verify, levels', () => {
  test('a password sign-in is aal1 with amr [password], as hosted tokens are', async () => {
    const account = await newAccount('mfa-aal1');
    const before = Math.floor(Date.now() / 1000);
    const client = await signIn(account);
    const token = await claims(client);
    expect(token.aal).toBe('aal1');
    expect(token.amr).toHaveLength(1);
    expect(token.amr[0].method).toBe('password');
    expect(token.amr[0].timestamp).toBeGreaterThanOrEqual(before);
    const { data } = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  test('enroll answers the factor with an SVG QR code, the secret and the otpauth URI', async () => {
    const account = await newAccount('mfa-enroll');
    const client = await signIn(account);
    const { data, error } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app' });
    expect(error).toBeNull();
    expect(data).toMatchObject({ type: 'totp', friendly_name: 'Phone app' });
    expect(data?.id).toMatch(/^[0-9a-f-]{36}$/);
    // supabase-js turns GoTrue's SVG text into a data: URI an <img> can show.
    expect(data?.totp.qr_code).toMatch(/^data:image\/svg\+xml;utf-8,<svg[\s\S]*<\/svg>\s*$/);
    expect(data?.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    const issuer = new URL(t.config.siteUrl).host;
    const uri = new URL(data?.totp.uri ?? '');
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/${issuer}:${account.email}`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      algorithm: 'SHA1',
      digits: '6',
      issuer,
      period: '30',
      secret: data?.totp.secret,
    });

    // Listed as unverified; the level does not change until a code is verified.
    const { data: factors } = await client.auth.mfa.listFactors();
    expect(factors?.all).toEqual([
      expect.objectContaining({ id: data?.id, factor_type: 'totp', status: 'unverified', friendly_name: 'Phone app' }),
    ]);
    expect(factors?.totp).toEqual([]);
    const { data: stored } = await t.admin().auth.admin.getUserById(account.id);
    expect(stored.user?.factors?.[0]).toMatchObject({ id: data?.id, status: 'unverified' });
  });

  test('the right code verifies the factor and gives an aal2 session with amr [totp, password]', async () => {
    const account = await newAccount('mfa-verify');
    const client = await signIn(account);
    const { data: before } = await client.auth.getSession();
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const { data: challenge, error: challengeError } = await client.auth.mfa.challenge({ factorId });
    expect(challengeError).toBeNull();
    expect(challenge?.type).toBe('totp');
    const now = Math.floor(Date.now() / 1000);
    expect(challenge?.expires_at).toBeGreaterThanOrEqual(now + 299);
    expect(challenge?.expires_at).toBeLessThanOrEqual(now + 301);

    const { data, error } = await client.auth.mfa.verify({
      factorId,
      challengeId: challenge?.id ?? '',
      code: codeFor(enrolled?.totp.secret ?? ''),
    });
    expect(error).toBeNull();
    // A new refresh token: the aal1 one cannot be swapped for aal2 tokens.
    expect(data?.refresh_token).not.toBe(before.session?.refresh_token);
    const token = await claims(client);
    expect(token.aal).toBe('aal2');
    expect(token.amr.map((e) => e.method)).toEqual(['totp', 'password']);
    const { data: level } = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(level).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const { data: factors } = await client.auth.mfa.listFactors();
    expect(factors?.totp).toEqual([expect.objectContaining({ id: factorId, status: 'verified' })]);

    // A challenge takes one code: the same challenge with a good code again is refused.
    const again = await client.auth.mfa.verify({
      factorId,
      challengeId: challenge?.id ?? '',
      code: codeFor(enrolled?.totp.secret ?? ''),
    });
    expect(again.error).toMatchObject({ status: 422, code: 'mfa_ip_address_mismatch' });
  });

  test('a refresh keeps aal2 and the amr', async () => {
    const { client } = await memberWithFactor('mfa-refresh');
    const { data, error } = await client.auth.refreshSession();
    expect(error).toBeNull();
    const token = decodeJwt(data.session?.access_token ?? '') as { aal: string; amr: { method: string }[] };
    expect(token.aal).toBe('aal2');
    expect(token.amr.map((e) => e.method)).toEqual(['totp', 'password']);
  });

  test('the next password sign-in is aal1 and asks for aal2', async () => {
    const { account } = await memberWithFactor('mfa-next');
    const client = await signIn(account);
    expect((await claims(client)).aal).toBe('aal1');
    const { data } = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    // At aal1 the member can neither add a factor nor remove the verified one.
    const add = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Another' });
    expect(add.error).toMatchObject({ status: 403, code: 'insufficient_aal' });
    const { data: factors } = await client.auth.mfa.listFactors();
    const remove = await client.auth.mfa.unenroll({ factorId: factors?.totp[0]?.id ?? '' });
    expect(remove.error).toMatchObject({ status: 422, code: 'insufficient_aal' });
  });

  test('a password change needs aal2 once a factor is verified (401 insufficient_aal at aal1)', async () => {
    const { account, client: aal2 } = await memberWithFactor('mfa-password');
    const aal1 = await signIn(account);
    const NEW = 'N3w!Passw0rd-x';
    const refused = await aal1.auth.updateUser({ password: NEW, current_password: PASSWORD });
    expect(refused.error).toMatchObject({
      status: 401,
      code: 'insufficient_aal',
      message: 'AAL2 session is required to update email or password when MFA is enabled.',
    });
    // Names still change at aal1; the password at aal2.
    expect((await aal1.auth.updateUser({ data: { first_name: 'Ada' } })).error).toBeNull();
    const changed = await aal2.auth.updateUser({ password: NEW, current_password: PASSWORD });
    expect(changed.error).toBeNull();
  });

  test('a verification ends the member’s other aal1 sessions (InvalidateSessionsWithAALLessThan)', async () => {
    const account = await newAccount('mfa-others');
    const other = await signIn(account);
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    await client.auth.mfa.challengeAndVerify({
      factorId: enrolled?.id ?? '',
      code: codeFor(enrolled?.totp.secret ?? ''),
    });
    const { error } = await other.auth.refreshSession();
    expect(error).toMatchObject({ code: 'refresh_token_not_found' });
  });
});

describe('wrong codes', () => {
  test('a wrong code is refused, counted on the factor, and the factor locks after 10 in a row', async () => {
    const account = await newAccount('mfa-wrong');
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const secret = enrolled?.totp.secret ?? '';
    const { data, error } = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 422, code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' });
    const failed = async () =>
      (
        await t.stack.ctx.db.query<{ n: number }>('select failed_attempts as n from auth.mfa_factors where id = $1', [
          factorId,
        ])
      )[0]?.n;
    expect(await failed()).toBe(1);
    expect((await claims(client)).aal).toBe('aal1');

    for (let i = 2; i <= 10; i++) {
      const r = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
      expect(r.error?.code).toBe('mfa_verification_failed');
    }
    expect(await failed()).toBe(10);
    // Now even the right code waits.
    const locked = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) });
    expect(locked.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' });
    expect((await claims(client)).aal).toBe('aal1');

    // Once the window has passed the right code is accepted and the count starts again.
    await t.stack.ctx.db.query(
      `update auth.mfa_factors set last_failed_at = now() - interval '301 seconds' where id = $1`,
      [factorId],
    );
    const ok = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) });
    expect(ok.error).toBeNull();
    expect(await failed()).toBe(0);
  });

  test('a code for another factor, a malformed code and an empty code are refused', async () => {
    const account = await newAccount('mfa-malformed');
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const bad = await client.auth.mfa.challengeAndVerify({ factorId, code: 'abcdef' });
    expect(bad.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    const { data: challenge } = await client.auth.mfa.challenge({ factorId });
    const empty = await client.auth.mfa.verify({ factorId, challengeId: challenge?.id ?? '', code: '' });
    expect(empty.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'Code needs to be non-empty',
    });
    const unknown = await client.auth.mfa.challenge({ factorId: crypto.randomUUID() });
    expect(unknown.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
  });
});

describe('GoTrue limits', () => {
  test('a challenge expires after 300 s', async () => {
    const account = await newAccount('mfa-expiry');
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const { data: challenge } = await client.auth.mfa.challenge({ factorId });
    await t.stack.ctx.db.query(
      `update auth.mfa_challenges set created_at = now() - interval '301 seconds' where id = $1`,
      [challenge?.id],
    );
    const { error } = await client.auth.mfa.verify({
      factorId,
      challengeId: challenge?.id ?? '',
      code: codeFor(enrolled?.totp.secret ?? ''),
    });
    expect(error).toMatchObject({ status: 422, code: 'mfa_challenge_expired' });
  });

  test('an unverified factor without challenges is removed after 300 s, at the next enrollment', async () => {
    const account = await newAccount('mfa-stale');
    const client = await signIn(account);
    const { data: stale } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Old' });
    await t.stack.ctx.db.query(
      `update auth.mfa_factors set created_at = now() - interval '301 seconds' where id = $1`,
      [stale?.id],
    );
    const { data: fresh } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'New' });
    const { data: factors } = await client.auth.mfa.listFactors();
    expect(factors?.all.map((f) => f.id)).toEqual([fresh?.id]);
  });

  test('challenges older than 24 hours and unverified factors older than 24 hours are cleaned up', async () => {
    const account = await newAccount('mfa-cleanup');
    const client = await signIn(account);
    const { data: old } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Old' });
    const { data: first } = await client.auth.mfa.challenge({ factorId: old?.id ?? '' });
    await t.stack.ctx.db.query(
      `update auth.mfa_challenges set created_at = now() - interval '25 hours' where id = $1`,
      [first?.id],
    );
    const { data: second } = await client.auth.mfa.challenge({ factorId: old?.id ?? '' });
    const ids = async () =>
      (
        await t.stack.ctx.db.query<{ id: string }>(
          'select id::text as id from auth.mfa_challenges where factor_id = $1',
          [old?.id],
        )
      ).map((r) => r.id);
    expect(await ids()).toEqual([second?.id]);

    // A challenged factor outlives the 300 s rule, but not a day.
    await t.stack.ctx.db.query(`update auth.mfa_factors set created_at = now() - interval '25 hours' where id = $1`, [
      old?.id,
    ]);
    const { data: fresh } = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'New' });
    const { data: factors } = await client.auth.mfa.listFactors();
    expect(factors?.all.map((f) => f.id)).toEqual([fresh?.id]);
  });

  test('a friendly name is used once per member, and max_enrolled_factors (10) holds', async () => {
    const account = await newAccount('mfa-max');
    const client = await signIn(account);
    const first = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'App 1' });
    expect(first.error).toBeNull();
    const same = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'App 1' });
    expect(same.error).toMatchObject({ status: 422, code: 'mfa_factor_name_conflict' });
    for (let i = 2; i <= 10; i++) {
      const r = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: `App ${i}` });
      expect(r.error).toBeNull();
    }
    const eleventh = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'App 11' });
    expect(eleventh.error).toMatchObject({ status: 422, code: 'too_many_enrolled_mfa_factors' });
  });
});

describe('unenroll and admin', () => {
  test('at aal2 the member removes the factor; the session goes back to aal1 and a refresh says so', async () => {
    const { client, factorId } = await memberWithFactor('mfa-unenroll');
    const { data, error } = await client.auth.mfa.unenroll({ factorId });
    expect(error).toBeNull();
    expect(data).toEqual({ id: factorId });
    const { data: factors } = await client.auth.mfa.listFactors();
    expect(factors?.all).toEqual([]);
    const { data: refreshed } = await client.auth.refreshSession();
    const token = decodeJwt(refreshed.session?.access_token ?? '') as { aal: string; amr: { method: string }[] };
    expect(token.aal).toBe('aal1');
    expect(token.amr.map((e) => e.method)).toEqual(['password']);
  });

  test('the admin API lists a member’s factors and deletes one', async () => {
    const { account, factorId } = await memberWithFactor('mfa-admin');
    const admin = t.admin();
    const { data, error } = await admin.auth.admin.mfa.listFactors({ userId: account.id });
    expect(error).toBeNull();
    expect(data?.factors).toEqual([
      expect.objectContaining({ id: factorId, factor_type: 'totp', status: 'verified', friendly_name: 'Phone app' }),
    ]);
    const deleted = await admin.auth.admin.mfa.deleteFactor({ userId: account.id, id: factorId });
    expect(deleted.error).toBeNull();
    expect((deleted.data as unknown as { data: { id: string } }).data.id).toBe(factorId);
    const after = await admin.auth.admin.mfa.listFactors({ userId: account.id });
    expect(after.data?.factors).toEqual([]);
    const missing = await admin.auth.admin.mfa.listFactors({ userId: crypto.randomUUID() });
    expect(missing.error).toMatchObject({ status: 404, code: 'user_not_found' });
  });
});

describe('profiles require aal2 of members with a verified factor (restrictive RLS policy)', () => {
  test('aal1 reads no profile row, aal2 reads it', async () => {
    const { account, client: aal2 } = await memberWithFactor('mfa-rls');
    const aal1 = await signIn(account);
    const { data: hidden, error } = await aal1.from('profiles').select('user_id');
    expect(error).toBeNull();
    expect(hidden).toEqual([]);
    // Nor can the aal1 session change the names.
    const { data: changed } = await aal1
      .from('profiles')
      .update({ first_name: 'Mallory' })
      .eq('user_id', account.id)
      .select();
    expect(changed).toEqual([]);

    const { data: shown } = await aal2.from('profiles').select('user_id');
    expect(shown).toEqual([{ user_id: account.id }]);
  });

  test('a member without a verified factor reads the profile at aal1', async () => {
    const account = await newAccount('mfa-rls-none');
    const client = await signIn(account);
    // An enrolled but unverified factor does not count.
    await client.auth.mfa.enroll({ factorType: 'totp' });
    const { data } = await client.from('profiles').select('user_id');
    expect(data).toEqual([{ user_id: account.id }]);
  });
});

describe('[auth.mfa] of config.toml is read', () => {
  const roots: string[] = [];
  let other: TestStack;

  /** A project whose config.toml has other [auth.mfa] values. */
  async function stackWith(mfa: string): Promise<TestStack> {
    const root = mkdtempSync(join(tmpdir(), 'signals-mfa-'));
    roots.push(root);
    const supabaseDir = join(root, 'supabase');
    mkdirSync(supabaseDir, { recursive: true });
    symlinkSync(resolve('supabase/migrations'), join(supabaseDir, 'migrations'));
    symlinkSync(resolve('supabase/templates'), join(supabaseDir, 'templates'));
    const toml = readFileSync(resolve('supabase/config.toml'), 'utf8').replace(
      /\[auth\.mfa\][^[]*\[auth\.mfa\.totp\][^[]*/,
      `${mfa}\n\n`,
    );
    expect(toml).toContain(mfa);
    writeFileSync(join(supabaseDir, 'config.toml'), toml);
    return startTestStack({ supabaseDir });
  }

  afterAll(async () => {
    await other?.stop();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  test('max_enrolled_factors and [auth.mfa.totp] enroll_enabled / verify_enabled', async () => {
    // The project's own file turns TOTP on with 10 factors; this one allows 2 and no verification.
    other = await stackWith(
      '[auth.mfa]\nmax_enrolled_factors = 2\n\n[auth.mfa.totp]\nenroll_enabled = true\nverify_enabled = false',
    );
    const email = uniqueEmail('mfa-config');
    await other.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const client = createClient(other.url, other.config.anonKey, clientOptions);
    await client.auth.signInWithPassword({ email, password: PASSWORD });
    const first = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'One' });
    expect(first.error).toBeNull();
    expect((await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Two' })).error).toBeNull();
    const third = await client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Three' });
    expect(third.error).toMatchObject({ status: 422, code: 'too_many_enrolled_mfa_factors' });
    const challenge = await client.auth.mfa.challenge({ factorId: first.data?.id ?? '' });
    expect(challenge.error).toMatchObject({
      status: 422,
      code: 'mfa_totp_verify_not_enabled',
      message: 'MFA verification is disabled for TOTP',
    });
    await other.stop();

    other = await stackWith('[auth.mfa.totp]\nenroll_enabled = false\nverify_enabled = true');
    const email2 = uniqueEmail('mfa-config-off');
    await other.admin().auth.admin.createUser({ email: email2, password: PASSWORD, email_confirm: true });
    const client2 = createClient(other.url, other.config.anonKey, clientOptions);
    await client2.auth.signInWithPassword({ email: email2, password: PASSWORD });
    const off = await client2.auth.mfa.enroll({ factorType: 'totp' });
    expect(off.error).toMatchObject({
      status: 422,
      code: 'mfa_totp_enroll_not_enabled',
      message: 'MFA enroll is disabled for TOTP',
    });
  });
});
