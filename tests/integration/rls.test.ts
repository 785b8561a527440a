// Row-level security and privileges through /rest/v1 with two real members, a visitor and the service
// role, plus how the request's JWT picks (or refuses) the role.
import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { signJwt } from 'local-supabase';
import { createMember, type Member, rest, startTestStack, type TestStack, uniqueEmail } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database, Tables } from '../../supabase/database.types.ts';

let t: TestStack;
let a: Member;
let b: Member;

beforeAll(async () => {
  t = await startTestStack();
  a = await createMember(t, 'rls-a', { firstName: 'Ada', lastName: 'Lovelace' });
  b = await createMember(t, 'rls-b', { firstName: 'Grace', lastName: 'Hopper' });
});
afterAll(() => t?.stop());

async function storedProfile(id: string) {
  const rows = await t.stack.ctx.db.query<
    Pick<Tables<'profiles'>, 'user_id' | 'first_name' | 'last_name' | 'email' | 'email_verified'>
  >('select user_id, first_name, last_name, email, email_verified from public.profiles where user_id = $1::uuid', [id]);
  return rows[0];
}

const permissionDenied = (table: string) => ({
  code: '42501',
  details: null,
  hint: null,
  message: `permission denied for table ${table}`,
});

describe('profiles', () => {
  test('the sign-up trigger made a profile with the names and email', async () => {
    expect(await storedProfile(a.id)).toEqual({
      user_id: a.id,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: a.email,
      email_verified: true,
    });
  });

  test('a member reads their own profile as a bare object with .single()', async () => {
    const member: SupabaseClient<Database> = a.client;
    const { data, error, status } = await member.from('profiles').select('*').eq('user_id', a.id).single();
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data).toMatchObject({
      user_id: a.id,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: a.email,
      email_verified: true,
    });
    expect(Object.keys(data ?? {}).sort()).toEqual(
      ['created_at', 'email', 'email_verified', 'first_name', 'last_name', 'user_id'].sort(),
    );
    expect(Number.isNaN(Date.parse(data?.created_at ?? ''))).toBe(false);
  });

  test('a member updates their names: 204, null data, row changed', async () => {
    const res = await a.client
      .from('profiles')
      .update({ first_name: 'Augusta', last_name: 'King' })
      .eq('user_id', a.id);
    expect(res.error).toBeNull();
    expect(res.status).toBe(204);
    expect(res.data).toBeNull();
    expect(await storedProfile(a.id)).toMatchObject({ first_name: 'Augusta', last_name: 'King' });
    const read = await a.client.from('profiles').select('first_name,last_name').eq('user_id', a.id).single();
    expect(read.data).toEqual({ first_name: 'Augusta', last_name: 'King' });
  });

  test("another member can neither read nor change A's profile", async () => {
    const read = await b.client.from('profiles').select('*').eq('user_id', a.id).single();
    expect(read.status).toBe(406);
    expect(read.data).toBeNull();
    expect(read.error).toEqual({
      code: 'PGRST116',
      details: 'The result contains 0 rows',
      hint: null,
      message: 'Cannot coerce the result to a single JSON object',
    });

    const before = await storedProfile(a.id);
    const update = await b.client.from('profiles').update({ first_name: 'Mallory' }).eq('user_id', a.id);
    expect(update.status).toBe(204);
    expect(update.error).toBeNull();
    expect(await storedProfile(a.id)).toEqual(before);

    const all = await b.client.from('profiles').select('user_id');
    expect(all.data).toEqual([{ user_id: b.id }]);
    const counted = await b.client.from('profiles').select('*', { count: 'exact', head: true });
    expect(counted.count).toBe(1);
  });

  test('a member may not change email or email_verified (column privileges, 403 42501)', async () => {
    const before = await storedProfile(a.id);
    const email = await a.client.from('profiles').update({ email: 'evil@example.test' }).eq('user_id', a.id);
    expect(email.status).toBe(403);
    expect(email.error).toEqual(permissionDenied('profiles'));
    const verified = await a.client.from('profiles').update({ email_verified: false }).eq('user_id', a.id);
    expect(verified.status).toBe(403);
    expect(verified.error).toEqual(permissionDenied('profiles'));
    const mixed = await a.client
      .from('profiles')
      .update({ first_name: 'Sneaky', email_verified: false })
      .eq('user_id', a.id);
    expect(mixed.status).toBe(403);
    expect(await storedProfile(a.id)).toEqual(before);
  });

  test('a member may not insert or delete profiles', async () => {
    const insert = await a.client.from('profiles').insert({ user_id: randomUUID(), first_name: 'X' });
    expect(insert.status).toBe(403);
    expect(insert.error?.code).toBe('42501');
    const del = await a.client.from('profiles').delete().eq('user_id', a.id);
    expect(del.status).toBe(403);
    expect(await storedProfile(a.id)).toBeDefined();
  });

  test('a visitor gets nothing: reading and updating are refused with 401 42501', async () => {
    const anon = t.anon();
    const read = await anon.from('profiles').select('*');
    expect(read.status).toBe(401);
    expect(read.data).toBeNull();
    expect(read.error).toEqual(permissionDenied('profiles'));

    const before = await storedProfile(a.id);
    const update = await anon.from('profiles').update({ first_name: 'Anon' }).eq('user_id', a.id);
    expect(update.status).toBe(401);
    expect(update.error).toEqual(permissionDenied('profiles'));
    expect(await storedProfile(a.id)).toEqual(before);

    const raw = await rest(t, 'profiles?select=*');
    expect(raw.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('the service role reads and writes every profile', async () => {
    const admin = t.admin<Database>();
    const read = await admin
      .from('profiles')
      .select('user_id,first_name')
      .in('user_id', [a.id, b.id])
      .order('first_name');
    expect(read.error).toBeNull();
    expect(read.data).toEqual([
      { user_id: a.id, first_name: 'Augusta' },
      { user_id: b.id, first_name: 'Grace' },
    ]);
    const update = await admin.from('profiles').update({ email_verified: false }).eq('user_id', b.id);
    expect(update.status).toBe(204);
    expect((await storedProfile(b.id)).email_verified).toBe(false);
  });

  test('email and email_verified follow auth.users', async () => {
    const newEmail = uniqueEmail('rls-moved');
    await t.stack.ctx.db.query(
      'update auth.users set email = $1::text, email_confirmed_at = null where id = $2::uuid',
      [newEmail, b.id],
    );
    expect(await storedProfile(b.id)).toMatchObject({ email: newEmail, email_verified: false });
    await t.stack.ctx.db.query('update auth.users set email_confirmed_at = now() where id = $1::uuid', [b.id]);
    expect(await storedProfile(b.id)).toMatchObject({ email: newEmail, email_verified: true });
  });

  test('deleting the user deletes the profile', async () => {
    const c = await createMember(t, 'rls-c');
    expect(await storedProfile(c.id)).toBeDefined();
    await t.stack.ctx.db.query('delete from auth.users where id = $1::uuid', [c.id]);
    expect(await storedProfile(c.id)).toBeUndefined();
  });
});

describe('server-only tables', () => {
  test('newsletter_subscribers: closed to visitors and members, open to the service role', async () => {
    const email = uniqueEmail('news');
    const anonInsert = await t.anon().from('newsletter_subscribers').insert({ email });
    expect(anonInsert.status).toBe(401);
    expect(anonInsert.error).toEqual(permissionDenied('newsletter_subscribers'));

    const admin = t.admin<Database>();
    const created = await admin
      .from('newsletter_subscribers')
      .insert({ email, ip: '203.0.113.9' })
      .select('email,status')
      .single();
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ email, status: 'pending' });

    const anonRead = await t.anon().from('newsletter_subscribers').select('*');
    expect(anonRead.status).toBe(401);
    expect(anonRead.error).toEqual(permissionDenied('newsletter_subscribers'));
    const memberRead = await a.client.from('newsletter_subscribers').select('*');
    expect(memberRead.status).toBe(403);
    expect(memberRead.error).toEqual(permissionDenied('newsletter_subscribers'));
    const memberUpdate = await a.client
      .from('newsletter_subscribers')
      .update({ status: 'verified' })
      .eq('email', email);
    expect(memberUpdate.status).toBe(403);

    const adminRead = await admin.from('newsletter_subscribers').select('email,status,ip').eq('email', email).single();
    expect(adminRead.data).toEqual({ email, status: 'pending', ip: '203.0.113.9' });

    const dup = await admin.from('newsletter_subscribers').insert({ email: email.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.error?.code).toBe('23505');
  });

  test('contact_messages: closed to visitors and members, open to the service role', async () => {
    const subject = `RLS check ${randomUUID()}`;
    const admin = t.admin<Database>();
    const created = await admin
      .from('contact_messages')
      .insert({ name: 'Tester', email: 'tester@example.test', subject, message: 'Hello' })
      .select('subject,delivery_status')
      .single();
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ subject, delivery_status: 'pending' });

    const anonRead = await t.anon().from('contact_messages').select('*');
    expect(anonRead.status).toBe(401);
    expect(anonRead.error).toEqual(permissionDenied('contact_messages'));
    const anonInsert = await t
      .anon()
      .from('contact_messages')
      .insert({ name: 'x', email: 'x@example.test', subject: 's', message: 'm' });
    expect(anonInsert.status).toBe(401);
    const memberRead = await a.client.from('contact_messages').select('*');
    expect(memberRead.status).toBe(403);
    expect(memberRead.error).toEqual(permissionDenied('contact_messages'));

    const adminRead = await admin.from('contact_messages').select('subject').eq('subject', subject);
    expect(adminRead.data).toEqual([{ subject }]);
  });
});

describe('the JWT decides the role', () => {
  const clientWith = (token: string) =>
    createClient<Database>(t.url, t.config.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { Authorization: `Bearer ${token}` } },
    });
  const now = () => Math.floor(Date.now() / 1000);

  test('an expired token is 401 PGRST303 with WWW-Authenticate', async () => {
    const token = await signJwt(
      { sub: a.id, role: 'authenticated', aud: 'authenticated', exp: now() - 60 },
      t.config.jwtSecret,
    );
    const { data, error, status } = await clientWith(token).from('profiles').select('*');
    expect(status).toBe(401);
    expect(data).toBeNull();
    expect(error).toEqual({ code: 'PGRST303', details: null, hint: null, message: 'JWT expired' });
    const raw = await rest(t, 'profiles', { headers: { Authorization: `Bearer ${token}` } });
    expect(raw.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="JWT expired"');
  });

  test('a token signed with another secret, or not a JWT at all, is 401 PGRST301', async () => {
    const forged = await signJwt(
      { sub: a.id, role: 'service_role', exp: now() + 600 },
      'another-secret-that-is-at-least-32-characters-long',
    );
    const res = await clientWith(forged).from('profiles').select('*');
    expect(res.status).toBe(401);
    expect(res.error?.code).toBe('PGRST301');
    const garbage = await clientWith('garbage').from('profiles').select('*');
    expect(garbage.status).toBe(401);
    expect(garbage.error).toEqual({
      code: 'PGRST301',
      details: null,
      hint: null,
      message: 'Expected 3 parts in JWT; got 1',
    });
  });

  test('only the API roles are accepted', async () => {
    const superuser = await signJwt({ role: 'postgres', exp: now() + 600 }, t.config.jwtSecret);
    const res = await clientWith(superuser).from('profiles').select('*');
    expect(res.status).toBe(403);
    expect(res.error).toEqual({
      code: '42501',
      details: null,
      hint: null,
      message: 'permission denied to set role "postgres"',
    });
    const unknown = await signJwt({ role: 'nobody', exp: now() + 600 }, t.config.jwtSecret);
    const res2 = await clientWith(unknown).from('profiles').select('*');
    expect(res2.status).toBe(401);
    expect(res2.error).toEqual({ code: '22023', details: null, hint: null, message: 'role "nobody" does not exist' });
  });

  test('a valid token without a role claim runs as anon', async () => {
    const token = await signJwt({ sub: a.id, exp: now() + 600 }, t.config.jwtSecret);
    const res = await clientWith(token).from('profiles').select('*');
    expect(res.status).toBe(401);
    expect(res.error).toEqual(permissionDenied('profiles'));
  });

  test("a member token for A reads only A's row even when asking for everything", async () => {
    const res = await a.client.from('profiles').select('user_id');
    expect(res.data).toEqual([{ user_id: a.id }]);
  });
});
