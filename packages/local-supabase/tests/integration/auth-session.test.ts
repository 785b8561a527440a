// Password sign-in, the access token, refresh rotation, /user, updateUser and signOut (WIRE.md §5,
// §6, §13, §14, §15, §26) through supabase-js, with raw calls where the client hides the wire.
import { AuthApiError, AuthSessionMissingError, AuthWeakPasswordError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { claimsOf, confirmedUser, GOOD_PASSWORD, raw, storedClient, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

async function signedIn(metadata: Record<string, unknown> = {}) {
  const account = await confirmedUser(t, uniqueEmail('session'), GOOD_PASSWORD, metadata);
  const client = t.anon();
  const { data, error } = await client.auth.signInWithPassword({ email: account.email, password: account.password });
  if (error) throw error;
  return { ...account, client, session: data.session! };
}

describe('signInWithPassword', () => {
  test('answers a session; the access token carries GoTrue claims', async () => {
    const account = await confirmedUser(t, uniqueEmail('signin'), GOOD_PASSWORD, { first_name: 'Ada' });
    const client = t.anon();
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const before = Math.floor(Date.now() / 1000);
    const { data, error } = await client.auth.signInWithPassword({ email: account.email, password: GOOD_PASSWORD });
    expect(error).toBeNull();
    const s = data.session!;
    expect(s.token_type).toBe('bearer');
    expect(s.expires_in).toBe(3600);
    expect(s.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(s.refresh_token).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(data.user).toMatchObject({ id: account.user.id, email: account.email, aud: 'authenticated' });
    expect(data.user?.last_sign_in_at).toBeTruthy();
    expect(data.user?.email_confirmed_at).toBeTruthy();
    expect(data.weakPassword).toBeUndefined();
    expect(events).toContain('SIGNED_IN');

    const header = JSON.parse(Buffer.from(s.access_token.split('.')[0], 'base64url').toString());
    // Signed with the stack's asymmetric key, as on new hosted projects (jwt-keys.test.ts covers HS256 mode).
    expect(header).toEqual({ alg: 'ES256', kid: t.stack.ctx.jwtKeys.kid, typ: 'JWT' });
    const claims = claimsOf(s.access_token);
    expect(Object.keys(claims)).toEqual([
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'email',
      'phone',
      'app_metadata',
      'user_metadata',
      'role',
      'aal',
      'amr',
      'session_id',
      'is_anonymous',
    ]);
    expect(claims).toMatchObject({
      iss: `${t.config.apiExternalUrl}/auth/v1`,
      sub: account.user.id,
      aud: 'authenticated',
      email: account.email,
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { first_name: 'Ada' },
      role: 'authenticated',
      aal: 'aal1',
      is_anonymous: false,
    });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }]);
    const sessions = await t.stack.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from auth.sessions where id = $1 and user_id = $2',
      [claims.session_id, account.user.id],
    );
    expect(sessions[0].n).toBe(1);
  });

  test('unknown email and wrong password are the same 400 invalid_credentials', async () => {
    const account = await confirmedUser(t);
    for (const attempt of [
      { email: uniqueEmail('nobody'), password: GOOD_PASSWORD },
      { email: account.email, password: 'Wrong-pass1' },
    ]) {
      const { data, error } = await t.anon().auth.signInWithPassword(attempt);
      expect(data.session).toBeNull();
      expect(error).toBeInstanceOf(AuthApiError);
      expect(error).toMatchObject({ name: 'AuthApiError', status: 400, code: 'invalid_credentials' });
      expect(error!.message).toBe('Invalid login credentials');
    }
  });

  test('an unconfirmed email is email_not_confirmed, but only after the password is right', async () => {
    const email = uniqueEmail('unconfirmed');
    await t.anon().auth.signUp({ email, password: GOOD_PASSWORD });
    const wrong = await t.anon().auth.signInWithPassword({ email, password: 'Wrong-pass1' });
    expect(wrong.error).toMatchObject({ code: 'invalid_credentials' });
    const right = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(right.error).toMatchObject({ name: 'AuthApiError', status: 400, code: 'email_not_confirmed' });
    expect(right.error!.message).toBe('Email not confirmed');
  });

  test('a correct password that breaks the policy signs in and says why it is weak', async () => {
    const email = uniqueEmail('weaksignin');
    await t.admin().auth.admin.createUser({ email, password: 'weakpassword', email_confirm: true });
    const { data, error } = await t.anon().auth.signInWithPassword({ email, password: 'weakpassword' });
    expect(error).toBeNull();
    expect(data.session).toBeTruthy();
    expect(data.weakPassword).toMatchObject({ reasons: ['characters'] });
    expect(data.weakPassword!.message).toMatch(/^Password should contain at least one character of each/);
  });

  test('wire: validation_failed without email or phone, unsupported grant, email and phone together', async () => {
    const none = await raw(t, '/token?grant_type=password', { body: { password: GOOD_PASSWORD } });
    expect(none).toMatchObject({ status: 400, body: { code: 'validation_failed', message: 'missing email or phone' } });
    const both = await raw(t, '/token?grant_type=password', {
      body: { email: uniqueEmail(), phone: '+15555550100', password: GOOD_PASSWORD },
    });
    expect(both.status).toBe(400);
    expect(both.body.message).toBe('Only an email address or phone number should be provided on login.');
    const grant = await raw(t, '/token?grant_type=magic', { body: {} });
    expect(grant).toMatchObject({
      status: 400,
      body: { code: 'invalid_credentials', message: 'unsupported_grant_type' },
    });
    const notJson = await raw(t, '/token?grant_type=password', { body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe('bad_json');
  });
});

describe('refresh tokens', () => {
  test('refreshSession rotates the token and keeps the session', async () => {
    const { client, session } = await signedIn();
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const { data, error } = await client.auth.refreshSession({ refresh_token: session.refresh_token });
    expect(error).toBeNull();
    expect(data.session!.refresh_token).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(data.session!.refresh_token).not.toBe(session.refresh_token);
    expect(claimsOf(data.session!.access_token).session_id).toBe(claimsOf(session.access_token).session_id);
    expect(claimsOf(data.session!.access_token).amr).toEqual(claimsOf(session.access_token).amr);
    expect(events).toContain('TOKEN_REFRESHED');
    const rows = await t.stack.ctx.db.query<{ token: string; revoked: boolean; parent: string | null }>(
      'select token, revoked, parent from auth.refresh_tokens where session_id = $1 order by id',
      [claimsOf(session.access_token).session_id],
    );
    expect(rows).toEqual([
      { token: session.refresh_token, revoked: true, parent: null },
      { token: data.session!.refresh_token, revoked: false, parent: session.refresh_token },
    ]);
  });

  test('the parent of the active token gets the active token back, not a new one', async () => {
    const { session } = await signedIn();
    const first = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(first.status).toBe(200);
    const again = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(first.body.refresh_token);
  });

  test('errors: unknown token, missing token (OAuth shape)', async () => {
    const unknown = await t.anon().auth.refreshSession({ refresh_token: 'abcdefghijkl' });
    expect(unknown.error).toMatchObject({ name: 'AuthApiError', status: 400, code: 'refresh_token_not_found' });
    expect(unknown.error!.message).toBe('Invalid Refresh Token: Refresh Token Not Found');
    const missing = await raw(t, '/token?grant_type=refresh_token', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'refresh_token required' });
    expect(missing.headers.get('x-sb-error-code')).toBeNull();
  });

  test('a signed-out session cannot be refreshed', async () => {
    const { client, session } = await signedIn();
    await client.auth.signOut();
    const res = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('refresh_token_not_found');
  });
});

describe('reuse interval (10 minutes for the test; the clock moved by back-dating the revocations)', () => {
  const INTERVAL = 600;
  let short: TestStack;
  beforeAll(async () => {
    short = await startTestStack({ authOverrides: { refreshTokenReuseInterval: INTERVAL } });
  });
  afterAll(() => short?.stop());

  /** Moves every revocation of the session past the reuse interval, as if that much time had gone by. */
  const pastInterval = (sessionId: string) =>
    short.stack.ctx.db.query(
      `update auth.refresh_tokens set updated_at = updated_at - make_interval(secs => $2::int + 1)
        where session_id = $1::uuid and revoked`,
      [sessionId, INTERVAL],
    );

  test('inside the interval an older token still refreshes; past it the whole family is revoked', async () => {
    const account = await confirmedUser(short, uniqueEmail('reuse'));
    const login = await raw(short, '/token?grant_type=password', {
      body: { email: account.email, password: account.password },
    });
    const sessionId = claimsOf(login.body.access_token).session_id as string;
    const a = login.body.refresh_token;
    const refresh = (token: string) =>
      raw(short, '/token?grant_type=refresh_token', { body: { refresh_token: token } });
    const b = (await refresh(a)).body.refresh_token;
    const c = (await refresh(b)).body.refresh_token;
    // A is neither active nor the parent of the active token, but was revoked within the interval.
    const within = await refresh(a);
    expect(within.status).toBe(200);
    expect(within.body.refresh_token).not.toBe(c);

    await pastInterval(sessionId);
    const late = await refresh(b);
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used' });
    expect(late.headers.get('x-sb-error-code')).toBe('refresh_token_already_used');
    const rows = await short.stack.ctx.db.query<{ n: number }>(
      'select count(*)::int as n from auth.refresh_tokens where session_id = $1 and revoked = false',
      [sessionId],
    );
    expect(rows[0].n).toBe(0);
    await pastInterval(sessionId);
    expect((await refresh(within.body.refresh_token)).body.code).toBe('refresh_token_already_used');
  });
});

describe('session bounds ([auth.sessions] of config.toml: timebox 168h, inactivity_timeout 72h)', () => {
  const age = (sessionId: string, column: 'created_at' | 'refreshed_at', hours: number) =>
    t.stack.ctx.db.query(
      column === 'created_at'
        ? `update auth.sessions set created_at = now() - make_interval(hours => $2) where id = $1`
        : `update auth.sessions set refreshed_at = (now() - make_interval(hours => $2)) at time zone 'UTC'
            where id = $1`,
      [sessionId, hours],
    );

  test('a session older than the timebox refreshes no more; its access token works until it expires', async () => {
    const { client, session } = await signedIn();
    const sessionId = claimsOf(session.access_token).session_id;
    await age(sessionId, 'created_at', 167);
    expect((await client.auth.refreshSession()).error).toBeNull();
    await age(sessionId, 'created_at', 169);
    const { data } = await client.auth.getSession();
    const late = await raw(t, '/token?grant_type=refresh_token', {
      body: { refresh_token: data.session?.refresh_token },
    });
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ code: 'session_expired', message: 'Invalid Refresh Token: Session Expired' });
    const user = await raw(t, '/user', { headers: { Authorization: `Bearer ${data.session?.access_token}` } });
    expect(user.status).toBe(200);
  });

  test('a session not refreshed for longer than inactivity_timeout refreshes no more', async () => {
    const { session } = await signedIn();
    const sessionId = claimsOf(session.access_token).session_id;
    // Never refreshed: its last activity is its refresh token's, or its creation.
    await age(sessionId, 'created_at', 73);
    await t.stack.ctx.db.query(
      `update auth.refresh_tokens set updated_at = now() - interval '73 hours' where session_id = $1`,
      [sessionId],
    );
    const idle = await raw(t, '/token?grant_type=refresh_token', { body: { refresh_token: session.refresh_token } });
    expect(idle.body).toEqual({
      code: 'session_expired',
      message: 'Invalid Refresh Token: Session Expired (Inactivity)',
    });

    const other = await signedIn();
    const otherId = claimsOf(other.session.access_token).session_id;
    expect((await other.client.auth.refreshSession()).error).toBeNull();
    await age(otherId, 'created_at', 100);
    await age(otherId, 'refreshed_at', 71);
    expect((await other.client.auth.refreshSession()).error).toBeNull();
    await age(otherId, 'refreshed_at', 73);
    const { error } = await other.client.auth.refreshSession();
    expect(error).toMatchObject({ status: 400, code: 'session_expired' });
  });
});

describe('GET /user', () => {
  test('getUser answers the user; without a session the client does not ask', async () => {
    const { client, user } = await signedIn({ first_name: 'Lin' });
    const { data, error } = await client.auth.getUser();
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: user.id, user_metadata: { first_name: 'Lin' } });
    const empty = await t.anon().auth.getUser();
    expect(empty.error).toBeInstanceOf(AuthSessionMissingError);
  });

  test('wire: no bearer is 401 no_authorization; a bad token 403 bad_jwt; the anon key has no sub', async () => {
    const none = await raw(t, '/user', { headers: { Authorization: undefined } });
    expect(none).toMatchObject({
      status: 401,
      body: { code: 'no_authorization', message: 'This endpoint requires a valid Bearer token' },
    });
    const bad = await raw(t, '/user', { headers: { Authorization: 'Bearer not.a.jwt' } });
    expect(bad.status).toBe(403);
    expect(bad.body.code).toBe('bad_jwt');
    expect(bad.body.message).toMatch(/^invalid JWT: unable to parse or verify signature, /);
    const anon = await raw(t, '/user');
    expect(anon).toMatchObject({ status: 403, body: { code: 'bad_jwt', message: 'invalid claim: missing sub claim' } });
    const { signJwt } = await import('../../src/jwt.ts');
    const expired = await signJwt(
      { sub: '00000000-0000-4000-8000-000000000000', exp: Math.floor(Date.now() / 1000) - 10, role: 'authenticated' },
      t.config.jwtSecret,
    );
    const old = await raw(t, '/user', { headers: { Authorization: `Bearer ${expired}` } });
    expect(old.body.message).toBe(
      'invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired',
    );
  });

  test('after sign-out the old access token is session_not_found, which the client reads as a missing session', async () => {
    const { session } = await signedIn();
    const other = t.anon();
    await other.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token });
    await t.anon().auth.admin.signOut(session.access_token, 'local');
    const res = await raw(t, '/user', { headers: { Authorization: `Bearer ${session.access_token}` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      code: 'session_not_found',
      message: 'Session from session_id claim in JWT does not exist',
    });
    const { error } = await other.auth.getUser();
    expect(error).toBeInstanceOf(AuthSessionMissingError);
    expect(error).toMatchObject({ message: 'Auth session missing!', status: 400 });
  });

  test('a deleted user is 403 user_not_found', async () => {
    const { session, user } = await signedIn();
    await t.admin().auth.admin.deleteUser(user.id);
    const res = await raw(t, '/user', { headers: { Authorization: `Bearer ${session.access_token}` } });
    expect(res).toMatchObject({
      status: 403,
      body: { code: 'user_not_found', message: 'User from sub claim in JWT does not exist' },
    });
  });

  test('setSession checks the token with GET /user and stores the session', async () => {
    const { session, user } = await signedIn();
    const { client, storage } = storedClient(t);
    const { data, error } = await client.auth.setSession({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
    });
    expect(error).toBeNull();
    expect(data.user!.id).toBe(user.id);
    expect(JSON.parse(storage.items.get('sb-127-auth-token')!)).toMatchObject({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      token_type: 'bearer',
      user: { id: user.id },
    });
  });
});

describe('session storage key', () => {
  test('http://127.0.0.1:<port> stores the session under sb-127-auth-token', async () => {
    const account = await confirmedUser(t);
    const { client, storage } = storedClient(t);
    await client.auth.signInWithPassword({ email: account.email, password: account.password });
    expect([...storage.items.keys()]).toEqual(['sb-127-auth-token']);
    const stored = JSON.parse(storage.items.get('sb-127-auth-token')!);
    expect(Object.keys(stored).sort()).toEqual(
      ['access_token', 'expires_at', 'expires_in', 'refresh_token', 'token_type', 'user'].sort(),
    );
    expect(stored.expires_at * 1000).toBeGreaterThan(Date.now());
  });
});

describe('updateUser', () => {
  test('changes the password: the old one stops working, other sessions end, this one stays', async () => {
    const { client, email, session } = await signedIn();
    const second = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    // current_password: the stack requires it, as the hosted project does (auth-password-change.test.ts).
    const { data, error } = await client.auth.updateUser({
      password: 'N3w-password!',
      current_password: GOOD_PASSWORD,
    });
    expect(error).toBeNull();
    expect(data.user!.email).toBe(email);
    expect(events).toContain('USER_UPDATED');
    expect((await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error?.code).toBe(
      'invalid_credentials',
    );
    expect((await t.anon().auth.signInWithPassword({ email, password: 'N3w-password!' })).error).toBeNull();
    const mine = await raw(t, '/user', { headers: { Authorization: `Bearer ${session.access_token}` } });
    expect(mine.status).toBe(200);
    const theirs = await raw(t, '/user', {
      headers: { Authorization: `Bearer ${second.data.session!.access_token}` },
    });
    expect(theirs.body.code).toBe('session_not_found');
  });

  test('weak, same and too long passwords are refused and change nothing', async () => {
    const { client, email } = await signedIn();
    const weak = await client.auth.updateUser({ password: 'short' });
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError);
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password', reasons: ['length', 'characters'] });
    const same = await client.auth.updateUser({ password: GOOD_PASSWORD, current_password: GOOD_PASSWORD });
    expect(same.error).toMatchObject({ name: 'AuthApiError', status: 422, code: 'same_password' });
    expect(same.error!.message).toBe('New password should be different from the old password.');
    const long = await client.auth.updateUser({ password: `Aa1!${'y'.repeat(69)}` });
    expect(long.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).error).toBeNull();
  });

  test('data merges into user_metadata; null removes a key', async () => {
    const { client, user } = await signedIn({ first_name: 'Old', keep: 'yes', drop: 'x' });
    const { data, error } = await client.auth.updateUser({ data: { first_name: 'New', drop: null } });
    expect(error).toBeNull();
    expect(data.user!.user_metadata).toEqual({ first_name: 'New', keep: 'yes' });
    const stored = await t.stack.ctx.db.query<{ m: unknown }>(
      'select raw_user_meta_data as m from auth.users where id = $1',
      [user.id],
    );
    expect(stored[0].m).toEqual({ first_name: 'New', keep: 'yes' });
  });

  test('app_metadata needs an admin; changing the email is refused', async () => {
    const { session } = await signedIn();
    const app = await raw(t, '/user', {
      method: 'PUT',
      body: { app_metadata: { plan: 'pro' } },
      headers: { Authorization: `Bearer ${session.access_token}` },
    });
    expect(app).toMatchObject({ status: 403, body: { code: 'not_admin' } });
    const email = await raw(t, '/user', {
      method: 'PUT',
      body: { email: uniqueEmail('new') },
      headers: { Authorization: `Bearer ${session.access_token}` },
    });
    expect(email.status).toBe(422);
  });
});

describe('signOut', () => {
  test('global ends every session of the user; the client forgets its own', async () => {
    const { client, email, session } = await signedIn();
    const other = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    const events: string[] = [];
    client.auth.onAuthStateChange((event) => events.push(event));
    const { error } = await client.auth.signOut();
    expect(error).toBeNull();
    expect(events).toContain('SIGNED_OUT');
    for (const token of [session.access_token, other.data.session!.access_token]) {
      expect((await raw(t, '/user', { headers: { Authorization: `Bearer ${token}` } })).body.code).toBe(
        'session_not_found',
      );
    }
  });

  test('local ends only this session, others all but this one', async () => {
    const { email, session } = await signedIn();
    const b = (await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).data.session!;
    const c = (await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD })).data.session!;
    const status = async (token: string) =>
      (await raw(t, '/user', { headers: { Authorization: `Bearer ${token}` } })).status;
    const local = await raw(t, '/logout?scope=local', {
      method: 'POST',
      headers: { Authorization: `Bearer ${b.access_token}` },
    });
    expect(local.status).toBe(204);
    expect(local.body).toBeNull();
    expect([await status(session.access_token), await status(b.access_token), await status(c.access_token)]).toEqual([
      200, 403, 200,
    ]);
    await raw(t, '/logout?scope=others', { method: 'POST', headers: { Authorization: `Bearer ${c.access_token}` } });
    expect([await status(session.access_token), await status(c.access_token)]).toEqual([403, 200]);
  });

  test('an unknown scope is 400 validation_failed; signing out twice is fine for the client', async () => {
    const { client, session } = await signedIn();
    const bad = await raw(t, '/logout?scope=everything', {
      method: 'POST',
      headers: { Authorization: `Bearer ${session.access_token}` },
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', message: 'Unsupported logout scope "everything"' },
    });
    await t.anon().auth.admin.signOut(session.access_token);
    const again = await client.auth.signOut();
    expect(again.error).toBeNull();
  });
});
