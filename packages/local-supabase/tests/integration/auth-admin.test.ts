// The admin API with the service_role key (WIRE.md §16, GoTrue admin.go): users,
// pagination headers, generate_link, and who may call it.
import { AuthApiError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fragment, GOOD_PASSWORD, openLink, raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t?.stop());

const asAdmin = () => ({ apikey: t.config.serviceRoleKey, Authorization: `Bearer ${t.config.serviceRoleKey}` });

describe('createUser', () => {
  test('email_confirm, metadata and password: a user who can sign in at once', async () => {
    const email = uniqueEmail('admin');
    const { data, error } = await t.admin().auth.admin.createUser({
      email,
      password: GOOD_PASSWORD,
      email_confirm: true,
      user_metadata: { first_name: 'Katherine', last_name: 'Johnson' },
      app_metadata: { plan: 'free' },
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({
      email,
      role: 'authenticated',
      aud: 'authenticated',
      app_metadata: { provider: 'email', providers: ['email'], plan: 'free' },
      user_metadata: { first_name: 'Katherine', last_name: 'Johnson' },
    });
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect(data.user!.identities![0]).toMatchObject({
      provider: 'email',
      identity_data: { email, sub: data.user!.id },
    });
    const profile = await t.stack.ctx.db.query<Record<string, unknown>>(
      'select first_name, last_name, email, email_verified from public.profiles where user_id = $1',
      [data.user!.id],
    );
    expect(profile).toEqual([{ first_name: 'Katherine', last_name: 'Johnson', email, email_verified: true }]);
    const signIn = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(signIn.error).toBeNull();
    // No mail goes out for admin-created users.
    expect((await t.mail.list()).some((m) => m.To.some((a) => a.Address === email))).toBe(false);
  });

  test('a taken address is 422 email_exists; no address is 400 validation_failed', async () => {
    const email = uniqueEmail('dup');
    await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const { data, error } = await t
      .admin()
      .auth.admin.createUser({ email: email.toUpperCase(), password: GOOD_PASSWORD });
    expect(data.user).toBeNull();
    expect(error).toBeInstanceOf(AuthApiError);
    expect(error).toMatchObject({ status: 422, code: 'email_exists' });
    expect(error!.message).toBe('A user with this email address has already been registered');
    const none = await t.admin().auth.admin.createUser({ password: GOOD_PASSWORD });
    expect(none.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(none.error!.message).toBe('Cannot create a user without either an email or phone');
  });

  test('without email_confirm the user exists but cannot sign in yet', async () => {
    const email = uniqueEmail('pending');
    const { data } = await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD });
    expect(data.user!.email_confirmed_at).toBeUndefined();
    const signIn = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(signIn.error).toMatchObject({ code: 'email_not_confirmed' });
  });
});

describe('who may call the admin API', () => {
  test('the anon key is 403 not_admin "User not allowed"', async () => {
    const { error } = await t.anon().auth.admin.createUser({ email: uniqueEmail(), password: GOOD_PASSWORD });
    expect(error).toMatchObject({ name: 'AuthApiError', status: 403, code: 'not_admin', message: 'User not allowed' });
    const list = await t.anon().auth.admin.listUsers();
    expect(list.error).toMatchObject({ status: 403, code: 'not_admin' });
  });

  test('a user access token is not_admin; no bearer is 401; a forged token is 403 bad_jwt', async () => {
    const email = uniqueEmail('notadmin');
    await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const { data } = await t.anon().auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    const userToken = await raw(t, '/admin/users', {
      headers: { Authorization: `Bearer ${data.session!.access_token}` },
    });
    expect(userToken).toMatchObject({ status: 403, body: { code: 'not_admin' } });
    const none = await raw(t, '/admin/users', { headers: { Authorization: undefined } });
    expect(none).toMatchObject({ status: 401, body: { code: 'no_authorization' } });
    const { signJwt } = await import('../../src/jwt.ts');
    const forged = await signJwt({ role: 'service_role' }, 'another-secret-another-secret-another-secret');
    const bad = await raw(t, '/admin/users', { headers: { Authorization: `Bearer ${forged}` } });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual({
      code: 'bad_jwt',
      message: 'invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid',
    });
  });
});

describe('listUsers, getUserById, updateUserById, deleteUser', () => {
  test('pages with per_page, newest first, with Link and X-Total-Count as GoTrue sends them', async () => {
    const fresh = await startTestStack();
    try {
      const emails: string[] = [];
      for (let i = 0; i < 5; i++) {
        const email = uniqueEmail(`list${i}`);
        emails.push(email);
        await fresh.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
      }
      const page1 = await fresh.admin().auth.admin.listUsers({ page: 1, perPage: 2 });
      expect(page1.error).toBeNull();
      expect(page1.data).toMatchObject({ aud: 'authenticated', total: 5, nextPage: 2, lastPage: 3 });
      expect(page1.data.users.map((u) => u.email)).toEqual([emails[4], emails[3]]);
      const page3 = await fresh.admin().auth.admin.listUsers({ page: 3, perPage: 2 });
      expect(page3.data.users.map((u) => u.email)).toEqual([emails[0]]);
      expect(page3.data).toMatchObject({ nextPage: null, lastPage: 3, total: 5 });

      const wire = await raw(fresh, '/admin/users?page=2&per_page=2', { headers: asAdmin() });
      expect(wire.headers.get('x-total-count')).toBe('5');
      expect(wire.headers.get('link')).toBe(
        '</admin/users?page=3&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last"',
      );
      expect(Object.keys(wire.body)).toEqual(['users', 'aud']);
      const bad = await raw(fresh, '/admin/users?per_page=0', { headers: asAdmin() });
      expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    } finally {
      await fresh.stop();
    }
  });

  test('get, update (metadata, password, ban) and delete one user', async () => {
    const email = uniqueEmail('one');
    const { data: created } = await t.admin().auth.admin.createUser({
      email,
      password: GOOD_PASSWORD,
      email_confirm: true,
      user_metadata: { first_name: 'A' },
    });
    const id = created.user!.id;
    const got = await t.admin().auth.admin.getUserById(id);
    expect(got.data.user).toMatchObject({ id, email });

    const updated = await t.admin().auth.admin.updateUserById(id, {
      user_metadata: { last_name: 'B' },
      password: 'Changed-pass1',
    });
    expect(updated.error).toBeNull();
    expect(updated.data.user!.user_metadata).toEqual({ first_name: 'A', last_name: 'B' });
    expect((await t.anon().auth.signInWithPassword({ email, password: 'Changed-pass1' })).error).toBeNull();
    const weak = await t.admin().auth.admin.updateUserById(id, { password: 'weak' });
    expect(weak.error).toMatchObject({ name: 'AuthWeakPasswordError', status: 422 });

    await t.admin().auth.admin.updateUserById(id, { ban_duration: '24h' });
    const banned = await t.anon().auth.signInWithPassword({ email, password: 'Changed-pass1' });
    expect(banned.error).toMatchObject({ status: 400, code: 'user_banned', message: 'User is banned' });
    await t.admin().auth.admin.updateUserById(id, { ban_duration: 'none' });
    expect((await t.anon().auth.signInWithPassword({ email, password: 'Changed-pass1' })).error).toBeNull();

    const deleted = await t.admin().auth.admin.deleteUser(id);
    expect(deleted.error).toBeNull();
    const gone = await t.admin().auth.admin.getUserById(id);
    expect(gone.error).toMatchObject({ status: 404, code: 'user_not_found', message: 'User not found' });
    const rows = await t.stack.ctx.db.query('select 1 from public.profiles where user_id = $1', [id]);
    expect(rows).toHaveLength(0);
    const notUuid = await raw(t, '/admin/users/not-a-uuid', { headers: asAdmin() });
    expect(notUuid).toMatchObject({
      status: 404,
      body: { code: 'validation_failed', message: 'user_id must be an UUID' },
    });
  });
});

describe('generateLink', () => {
  test('signup creates the user and answers the link properties; the link confirms', async () => {
    const email = uniqueEmail('gensignup');
    const { data, error } = await t.admin().auth.admin.generateLink({
      type: 'signup',
      email,
      password: GOOD_PASSWORD,
      options: { data: { first_name: 'Gen' }, redirectTo: 'http://127.0.0.1:4321/welcome' },
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, user_metadata: { first_name: 'Gen' } });
    const p = data.properties!;
    expect(p.verification_type).toBe('signup');
    expect(p.redirect_to).toBe('http://127.0.0.1:4321/welcome');
    expect(p.email_otp).toMatch(/^\d{6}$/);
    const { createHash } = await import('node:crypto');
    expect(p.hashed_token).toBe(
      createHash('sha224')
        .update(email + p.email_otp)
        .digest('hex'),
    );
    expect(p.action_link).toBe(
      `${t.url}/auth/v1/verify?token=${p.hashed_token}&type=signup&redirect_to=http://127.0.0.1:4321/welcome`,
    );
    const { location } = await openLink(p.action_link);
    expect(location.startsWith('http://127.0.0.1:4321/welcome#access_token=')).toBe(true);
    expect(fragment(location).type).toBe('signup');
    // generate_link sends no mail.
    expect((await t.mail.list()).some((m) => m.To.some((a) => a.Address === email))).toBe(false);
  });

  test('recovery and magiclink for an existing user; recovery for a stranger is 404', async () => {
    const email = uniqueEmail('genrec');
    await t.admin().auth.admin.createUser({ email, password: GOOD_PASSWORD, email_confirm: true });
    const rec = await t.admin().auth.admin.generateLink({ type: 'recovery', email });
    expect(rec.data.properties!.verification_type).toBe('recovery');
    expect(rec.data.properties!.redirect_to).toBe('http://127.0.0.1:4321');
    expect(fragment((await openLink(rec.data.properties!.action_link)).location).type).toBe('recovery');
    const magic = await t.admin().auth.admin.generateLink({ type: 'magiclink', email });
    expect(magic.data.properties!.verification_type).toBe('magiclink');
    expect(fragment((await openLink(magic.data.properties!.action_link)).location).type).toBe('magiclink');
    const stranger = await t.admin().auth.admin.generateLink({ type: 'recovery', email: uniqueEmail('stranger') });
    expect(stranger.error).toMatchObject({ status: 404, code: 'user_not_found' });
    expect(stranger.data).toEqual({ properties: null, user: null });
  });

  test('magiclink for a new address signs the user up; signup for a confirmed one is email_exists', async () => {
    const email = uniqueEmail('genmagic');
    const magic = await t.admin().auth.admin.generateLink({ type: 'magiclink', email });
    expect(magic.error).toBeNull();
    expect(magic.data.properties!.verification_type).toBe('signup');
    expect(magic.data.user!.email).toBe(email);
    const taken = uniqueEmail('gentaken');
    await t.admin().auth.admin.createUser({ email: taken, password: GOOD_PASSWORD, email_confirm: true });
    const again = await t.admin().auth.admin.generateLink({ type: 'signup', email: taken, password: GOOD_PASSWORD });
    expect(again.error).toMatchObject({ status: 422, code: 'email_exists' });
  });
});
