// Two-factor sign-in with an authenticator app (TOTP), through supabase-js as the site and hosted Supabase
// use it: enroll, challenge, verify, the levels (aal) in the access tokens, refresh, unenroll, the admin
// API, GoTrue's limits, and the profiles policy that asks aal2 of members who have a verified factor. Also
// what the project adds through config.toml: the MFA verification attempt hook (a migration's function)
// counting wrong codes per factor, and the factor notification mails; and the stack's own rules: a code is
// good once, and a refresh token from before the code step gets no aal2 tokens.
// Codes are computed from the secret the enrollment answers, as an authenticator app does; a test that
// needs a second code of one factor uses the next step's (codeFor(secret, 1)), never the one just used.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readProjectToml } from '../../src/project.ts';
import { raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';
import { codeFor, wrongCode } from '../../testing/totp.ts';

let t: TestStack;
const PASSWORD = 'Str0ng!Passw0rd';
const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

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
  const code = codeFor(enrolled.totp.secret);
  const verified = await client.auth.mfa.challengeAndVerify({ factorId: enrolled.id, code });
  if (verified.error) throw verified.error;
  return { account, client, factorId: enrolled.id, secret: enrolled.totp.secret, code };
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
    const asked = Math.floor(Date.now() / 1000);
    const { data: challenge, error: challengeError } = await client.auth.mfa.challenge({ factorId });
    const answered = Math.floor(Date.now() / 1000);
    expect(challengeError).toBeNull();
    expect(challenge?.type).toBe('totp');
    // Five minutes from when the server made it, which was between the request and its answer.
    expect(challenge?.expires_at).toBeGreaterThanOrEqual(asked + 300);
    expect(challenge?.expires_at).toBeLessThanOrEqual(answered + 300);

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

describe('wrong codes: the MFA verification attempt hook of config.toml counts them per factor', () => {
  const failures = async (factorId: string) =>
    (
      await t.stack.ctx.db.query<{ n: number }>(
        'select failed_attempts as n from private.mfa_failed_verification_attempts where factor_id = $1',
        [factorId],
      )
    )[0]?.n;

  test('a wrong code is refused and counted; after 10 in a row every code waits 5 minutes, sessions kept', async () => {
    const account = await newAccount('mfa-wrong');
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const secret = enrolled?.totp.secret ?? '';
    const { data, error } = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 422, code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' });
    expect(await failures(factorId)).toBe(1);
    expect((await claims(client)).aal).toBe('aal1');

    for (let i = 2; i <= 10; i++) {
      const r = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
      expect(r.error?.code).toBe('mfa_verification_failed');
    }
    expect(await failures(factorId)).toBe(10);
    // Now even the right code waits: the hook's error answer, 429 with its message and no code of GoTrue's.
    const locked = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) });
    expect(locked.error).toMatchObject({
      status: 429,
      message: 'Too many wrong codes for this factor, try again in a few minutes',
    });
    expect((await claims(client)).aal).toBe('aal1');
    // The refusal signs nobody out, and a refused attempt does not lengthen the wait.
    expect((await client.auth.refreshSession()).error).toBeNull();
    expect(await failures(factorId)).toBe(10);

    // Once the window has passed the right code is accepted and the count is gone.
    await t.stack.ctx.db.query(
      `update private.mfa_failed_verification_attempts set last_failed_at = now() - interval '301 seconds'
        where factor_id = $1`,
      [factorId],
    );
    const ok = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) });
    expect(ok.error).toBeNull();
    expect(await failures(factorId)).toBeUndefined();
  });

  test('14 wrong codes sent at once on one challenge: 10 are checked, 4 wait, and the right one waits too', async () => {
    const account = await newAccount('mfa-race');
    const client = await signIn(account);
    const { data: enrolled } = await client.auth.mfa.enroll({ factorType: 'totp' });
    const factorId = enrolled?.id ?? '';
    const secret = enrolled?.totp.secret ?? '';
    const { data: session } = await client.auth.getSession();
    const bearer = { Authorization: `Bearer ${session.session?.access_token}` };
    const { data: challenge } = await client.auth.mfa.challenge({ factorId });
    const near = new Set([-1, 0, 1].map((o) => codeFor(secret, o)));
    const guesses = Array.from({ length: 30 }, (_, i) => String(100000 + i * 7919)).filter((g) => !near.has(g));
    const answers = await Promise.all(
      guesses
        .slice(0, 14)
        .map((code) =>
          raw(t, `/factors/${factorId}/verify`, { body: { challenge_id: challenge?.id, code }, headers: bearer }),
        ),
    );
    const tally: Record<string, number> = {};
    for (const a of answers) tally[`${a.status} ${a.body.code}`] = (tally[`${a.status} ${a.body.code}`] ?? 0) + 1;
    expect(tally).toEqual({ '422 mfa_verification_failed': 10, '429 unknown': 4 });
    const right = await raw(t, `/factors/${factorId}/verify`, {
      body: { challenge_id: challenge?.id, code: codeFor(secret) },
      headers: bearer,
    });
    expect(right.status).toBe(429);
    expect(await failures(factorId)).toBe(10);
  });

  test('the hook and its counts are out of the API’s reach', async () => {
    const { client } = await memberWithFactor('mfa-hook-api');
    const call = await client.rpc('hook_mfa_verification_attempt', {
      event: { factor_id: crypto.randomUUID(), user_id: crypto.randomUUID(), valid: false },
    });
    expect(call.error).toMatchObject({ code: '42501' });
    const anon = await t.anon().rpc('hook_mfa_verification_attempt', { event: {} });
    expect(anon.error).toMatchObject({ code: '42501' });
    const service = await t.admin().rpc('hook_mfa_verification_attempt', { event: {} });
    expect(service.error).toMatchObject({ code: '42501' });
    // Besides its owner, only supabase_auth_admin holds rights on the table of counts.
    const grants = await t.stack.ctx.db.query<{ grantee: string }>(
      `select distinct grantee from information_schema.role_table_grants g
        where table_schema = 'private' and table_name = 'mfa_failed_verification_attempts'
          and grantee <> (select tableowner from pg_tables
                           where schemaname = 'private' and tablename = 'mfa_failed_verification_attempts')`,
    );
    expect(grants.map((g) => g.grantee)).toEqual(['supabase_auth_admin']);
  });
});

describe('a code is good once (RFC 6238 §5.2; hosted GoTrue accepts it again on a new challenge)', () => {
  test('the code just used is refused on a new challenge, from any session; the next step’s code is accepted', async () => {
    const { account, secret, factorId, code: used } = await memberWithFactor('mfa-replay');
    const other = await signIn(account);
    const replay = await other.auth.mfa.challengeAndVerify({ factorId, code: used });
    expect(replay.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    expect((await claims(other)).aal).toBe('aal1');
    // A replay counts as a wrong code.
    const counted = await t.stack.ctx.db.query<{ n: number }>(
      'select failed_attempts as n from private.mfa_failed_verification_attempts where factor_id = $1',
      [factorId],
    );
    expect(counted[0]?.n).toBe(1);
    // The previous step's code is older still; the next step's code is new.
    const older = await other.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, -1) });
    expect(older.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    const next = await other.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) });
    expect(next.error).toBeNull();
    expect((await claims(other)).aal).toBe('aal2');
  });

  test('one code sent twice at once on two challenges: one is accepted, the other refused', async () => {
    const { account, secret, factorId } = await memberWithFactor('mfa-replay-race');
    const client = await signIn(account);
    const { data: session } = await client.auth.getSession();
    const bearer = { Authorization: `Bearer ${session.session?.access_token}` };
    const challenges = await Promise.all([1, 2].map(() => client.auth.mfa.challenge({ factorId })));
    const code = codeFor(secret, 1);
    const answers = await Promise.all(
      challenges.map(({ data }) =>
        raw(t, `/factors/${factorId}/verify`, { body: { challenge_id: data?.id, code }, headers: bearer }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    expect(answers.find((a) => a.status === 422)?.body.code).toBe('mfa_verification_failed');
  });
});

describe('a refresh token from before the code step (N10)', () => {
  test('gets no aal2 tokens afterwards; the token the code step answered keeps refreshing', async () => {
    const { account, secret, factorId } = await memberWithFactor('mfa-rt');
    const client = await signIn(account);
    const { data: before } = await client.auth.getSession();
    const stolen = before.session?.refresh_token ?? '';
    const up = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) });
    expect(up.error).toBeNull();

    const thief = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: stolen } });
    expect(thief.status).toBe(400);
    expect(thief.body).toMatchObject({
      code: 'refresh_token_already_used',
      message: 'Invalid Refresh Token: Already Used',
    });
    const owner = await client.auth.refreshSession();
    expect(owner.error).toBeNull();
    expect(decodeJwt(owner.data.session?.access_token ?? '').aal).toBe('aal2');
    // A token of after the step that the client lost still gets the active one (GoTrue's parent rule).
    const lost = up.data?.refresh_token ?? '';
    const again = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: lost } });
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(owner.data.session?.refresh_token);
    expect(decodeJwt(again.body.access_token).aal).toBe('aal2');
  });

  test('used after the reuse interval it ends the whole session, as other reuse does', async () => {
    const { account, secret, factorId } = await memberWithFactor('mfa-rt-late');
    const client = await signIn(account);
    const { data: before } = await client.auth.getSession();
    const up = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) });
    expect(up.error).toBeNull();
    await t.stack.ctx.db.query(
      `update auth.refresh_tokens set updated_at = now() - interval '11 seconds' where token = $1`,
      [before.session?.refresh_token],
    );
    const thief = await raw(t, '/token?grant_type=refresh_token', {
      body: { refresh_token: before.session?.refresh_token },
    });
    expect(thief.body.code).toBe('refresh_token_already_used');
    // Every token of the session is revoked: past the reuse interval none refreshes any more.
    const live = await t.stack.ctx.db.query(
      'select 1 from auth.refresh_tokens where session_id = (select session_id from auth.refresh_tokens where token = $1) and not revoked',
      [before.session?.refresh_token],
    );
    expect(live).toEqual([]);
  });
});

describe('factor notifications ([auth.email.notification.*] of config.toml)', () => {
  const toml = readProjectToml(resolve('supabase'));
  const notification = (kind: string) =>
    (toml.auth as { email: { notification: Record<string, { subject: string; content_path: string }> } }).email
      .notification[kind];

  test('a verified new factor mails "factor enrolled"; the member’s removal mails "factor removed"', async () => {
    const { account, client, factorId } = await memberWithFactor('mfa-mail');
    const enrolled = await t.mail.waitFor(account.email);
    expect(enrolled.Subject).toBe(notification('mfa_factor_enrolled').subject);
    // The body is the file with its variables filled in.
    const file = readFileSync(resolve('supabase', notification('mfa_factor_enrolled').content_path), 'utf8');
    expect(enrolled.HTML.trim()).toBe(
      file.replaceAll('{{ .Email }}', account.email).replaceAll('{{ .SiteURL }}', t.config.siteUrl).trim(),
    );
    expect(enrolled.Text).toContain(`${t.config.siteUrl}/contact-us`);
    expect(enrolled.Text).not.toContain('{{');

    await t.mail.clear();
    expect((await client.auth.mfa.unenroll({ factorId })).error).toBeNull();
    const removed = await t.mail.waitFor(account.email);
    expect(removed.Subject).toBe(notification('mfa_factor_unenrolled').subject);
    expect(removed.Text).toContain(account.email);
  });

  test('a second verification of the same factor, and the admin API’s removal, mail nothing', async () => {
    const { account, secret, factorId } = await memberWithFactor('mfa-mail-quiet');
    await t.mail.waitFor(account.email);
    await t.mail.clear();
    const again = await signIn(account);
    expect((await again.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret, 1) })).error).toBeNull();
    const removed = await t.admin().auth.admin.mfa.deleteFactor({ userId: account.id, id: factorId });
    expect(removed.error).toBeNull();
    // A mail to another member sent afterwards arrives alone: none to this member came before it.
    const other = await memberWithFactor('mfa-mail-marker');
    await t.mail.waitFor(other.account.email);
    expect((await t.mail.list()).map((m) => m.To[0].Address)).toEqual([other.account.email]);
  });
});

describe('malformed codes', () => {
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

describe('other config.toml: [auth.mfa], and hooks as GoTrue calls them', () => {
  const roots: string[] = [];
  let other: TestStack | undefined;

  /** A project whose config.toml is the project's own with `edit` applied. */
  async function projectWith(edit: (toml: string) => string): Promise<TestStack> {
    await other?.stop();
    other = undefined;
    const root = mkdtempSync(join(tmpdir(), 'signals-mfa-'));
    roots.push(root);
    const supabaseDir = join(root, 'supabase');
    mkdirSync(supabaseDir, { recursive: true });
    symlinkSync(resolve('supabase/migrations'), join(supabaseDir, 'migrations'));
    symlinkSync(resolve('supabase/templates'), join(supabaseDir, 'templates'));
    const original = readFileSync(resolve('supabase/config.toml'), 'utf8');
    const toml = edit(original);
    expect(toml).not.toBe(original);
    writeFileSync(join(supabaseDir, 'config.toml'), toml);
    other = await startTestStack({ supabaseDir });
    return other;
  }
  const mfaTables = /\[auth\.mfa\][^[]*\[auth\.mfa\.totp\][^[]*/;
  const hookTable = /\[auth\.hook\.mfa_verification_attempt\][^[]*/;
  const withHook = (uri: string) => (toml: string) =>
    toml.replace(hookTable, `[auth.hook.mfa_verification_attempt]\nenabled = true\nuri = "${uri}"\n\n`);

  /** A member of `s` signed in with an enrolled (unverified) factor, and that factor's secret. */
  async function enrolled(s: TestStack, prefix: string) {
    const email = uniqueEmail(prefix);
    await s.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const client = createClient(s.url, s.config.anonKey, clientOptions);
    await client.auth.signInWithPassword({ email, password: PASSWORD });
    const { data } = await client.auth.mfa.enroll({ factorType: 'totp' });
    return { email, client, factorId: data?.id ?? '', secret: data?.totp.secret ?? '' };
  }

  afterAll(async () => {
    await other?.stop();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  test('max_enrolled_factors and [auth.mfa.totp] enroll_enabled / verify_enabled', async () => {
    // The project's own file turns TOTP on with 10 factors; this one allows 2 and no verification.
    const limited = await projectWith((toml) =>
      toml.replace(
        mfaTables,
        '[auth.mfa]\nmax_enrolled_factors = 2\n\n[auth.mfa.totp]\nenroll_enabled = true\nverify_enabled = false\n\n',
      ),
    );
    const email = uniqueEmail('mfa-config');
    await limited.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const client = createClient(limited.url, limited.config.anonKey, clientOptions);
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

    const off = await projectWith((toml) =>
      toml.replace(mfaTables, '[auth.mfa.totp]\nenroll_enabled = false\nverify_enabled = true\n\n'),
    );
    const email2 = uniqueEmail('mfa-config-off');
    await off.admin().auth.admin.createUser({ email: email2, password: PASSWORD, email_confirm: true });
    const client2 = createClient(off.url, off.config.anonKey, clientOptions);
    await client2.auth.signInWithPassword({ email: email2, password: PASSWORD });
    const refused = await client2.auth.mfa.enroll({ factorType: 'totp' });
    expect(refused.error).toMatchObject({
      status: 422,
      code: 'mfa_totp_enroll_not_enabled',
      message: 'MFA enroll is disabled for TOTP',
    });
  });

  test('without the hook there is no count per factor, as on a hosted project without it', async () => {
    const plain = await projectWith((toml) => toml.replace(hookTable, ''));
    const { client, factorId, secret } = await enrolled(plain, 'mfa-nohook');
    for (let i = 1; i <= 12; i++) {
      const r = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
      expect(r.error?.code).toBe('mfa_verification_failed');
    }
    expect((await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) })).error).toBeNull();
  });

  test('a hook that answers reject: 403 mfa_verification_rejected, and every session of the member ends', async () => {
    const s = await projectWith(withHook('pg-functions://postgres/public/test_reject'));
    await s.stack.ctx.db.exec(`
      create function public.test_reject(event jsonb) returns jsonb language sql as $$
        select jsonb_build_object('decision', case when (event ->> 'valid')::boolean then 'continue' else 'reject' end,
                                  'message', 'No more tries for ' || (event ->> 'factor_type'))
      $$;
      grant execute on function public.test_reject(jsonb) to supabase_auth_admin;`);
    const { email, client, factorId, secret } = await enrolled(s, 'mfa-reject');
    const elsewhere = createClient(s.url, s.config.anonKey, clientOptions);
    await elsewhere.auth.signInWithPassword({ email, password: PASSWORD });
    const r = await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    expect(r.error).toMatchObject({
      status: 403,
      code: 'mfa_verification_rejected',
      message: 'No more tries for totp',
    });
    expect((await elsewhere.auth.refreshSession()).error).toMatchObject({ code: 'refresh_token_not_found' });
    const sessions = await s.stack.ctx.db.query(
      'select 1 from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1',
      [email],
    );
    expect(sessions).toEqual([]);
  });

  test('what the hook was sent, and a hook supabase_auth_admin may not run: 500, the code not checked', async () => {
    const s = await projectWith(withHook('pg-functions://postgres/public/test_record'));
    await s.stack.ctx.db.exec(`
      create table public.test_hook_events (event jsonb);
      grant insert on public.test_hook_events to supabase_auth_admin;
      create function public.test_record(event jsonb) returns jsonb language plpgsql as $$
      begin
        insert into public.test_hook_events values (event);
        return jsonb_build_object('decision', 'continue');
      end $$;
      grant execute on function public.test_record(jsonb) to supabase_auth_admin;`);
    const { client, factorId, secret } = await enrolled(s, 'mfa-record');
    await client.auth.mfa.challengeAndVerify({ factorId, code: wrongCode(secret) });
    const [row] = await s.stack.ctx.db.query<{ event: unknown }>('select event from public.test_hook_events');
    const event = (typeof row.event === 'string' ? JSON.parse(row.event) : row.event) as Record<string, unknown>;
    const { data: user } = await client.auth.getUser();
    expect(event).toMatchObject({
      user_id: user.user?.id,
      factor_id: factorId,
      factor_type: 'totp',
      valid: false,
      metadata: { name: 'mfa-verification', uuid: expect.any(String), time: expect.any(String) },
    });

    await s.stack.ctx.db.exec('revoke execute on function public.test_record(jsonb) from public, supabase_auth_admin');
    const denied = await client.auth.mfa.challengeAndVerify({ factorId, code: codeFor(secret) });
    expect(denied.error).toMatchObject({
      status: 500,
      message: 'Error running hook URI: pg-functions://postgres/public/test_record',
    });
    expect((await claims(client)).aal).toBe('aal1');
  });

  test('a hook the stack cannot run stops the start, naming it', async () => {
    await expect(projectWith(withHook('https://hooks.example/mfa'))).rejects.toThrow(
      /\[auth\.hook\.mfa_verification_attempt\]: the local stack runs pg-functions/,
    );
    await expect(
      projectWith(
        (toml) =>
          `${toml}\n[auth.hook.custom_access_token]\nenabled = true\nuri = "pg-functions://postgres/public/x"\n`,
      ),
    ).rejects.toThrow(/\[auth\.hook\.custom_access_token\] is enabled, but the local stack runs only/);
  });
});
