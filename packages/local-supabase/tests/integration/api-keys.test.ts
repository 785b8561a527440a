// The CLI's new-format keys beside the legacy JWTs, through supabase-js: the publishable key acts as anon
// and the secret key as service_role on auth, REST and functions; a signed-in member keeps their own role;
// an unknown new-format key is refused as the hosted gateway refuses it.
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PUBLISHABLE_KEY, DEMO_SECRET_KEY } from '../../src/config.ts';
import { GOOD_PASSWORD, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };
const client = (key: string) => createClient(t.url, key, options);

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create function public.request_role() returns text language sql stable
      as $$ select current_setting('request.jwt.claims', true)::json ->> 'role' $$;
    create function public.request_key() returns text language sql stable
      as $$ select current_setting('request.headers', true)::json ->> 'apikey' $$;`);
});
afterAll(() => t?.stop());

describe('new-format keys', () => {
  test('the publishable key is anon and the secret key is service_role on REST', async () => {
    expect((await client(DEMO_PUBLISHABLE_KEY).rpc('request_role')).data).toBe('anon');
    expect((await client(DEMO_SECRET_KEY).rpc('request_role')).data).toBe('service_role');
    const visitor = await client(DEMO_PUBLISHABLE_KEY).from('contact_messages').select('id');
    expect(visitor.status).toBe(401);
    const server = await client(DEMO_SECRET_KEY).from('contact_messages').select('id');
    expect(server.error).toBeNull();
  });

  test("REST sees the gateway's legacy JWT in request.headers, as PostgREST behind the hosted gateway does", async () => {
    expect((await client(DEMO_PUBLISHABLE_KEY).rpc('request_key')).data).toBe(t.config.anonKey);
    expect((await client(DEMO_SECRET_KEY).rpc('request_key')).data).toBe(t.config.serviceRoleKey);
  });

  test('auth: the secret key reaches the admin API; a member signs in with the publishable key and stays themselves', async () => {
    const email = uniqueEmail('newkeys');
    const created = await client(DEMO_SECRET_KEY).auth.admin.createUser({
      email,
      password: GOOD_PASSWORD,
      email_confirm: true,
    });
    expect(created.error).toBeNull();
    const member = client(DEMO_PUBLISHABLE_KEY);
    const signIn = await member.auth.signInWithPassword({ email, password: GOOD_PASSWORD });
    expect(signIn.error).toBeNull();
    expect((await member.rpc('request_role')).data).toBe('authenticated');
    expect((await member.auth.getUser()).data.user?.email).toBe(email);
    const admin = await client(DEMO_PUBLISHABLE_KEY).auth.admin.listUsers();
    expect(admin.error).toMatchObject({ status: 403, code: 'not_admin' });
  });

  test('functions take the publishable key in apikey alone', async () => {
    const { data, error } = await client(DEMO_PUBLISHABLE_KEY).functions.invoke('send-contact-email', {
      body: { name: 'Bot', email: 'bot@example.com', message: 'x', website: 'filled' },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
  });

  test('an unknown new-format key: 401 Invalid API key', async () => {
    const res = await fetch(`${t.url}/rest/v1/profiles`, {
      headers: { apikey: 'sb_publishable_not-a-key', Authorization: 'Bearer sb_publishable_not-a-key' },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      message: 'Invalid API key',
      hint: 'Double check your Supabase `anon` or `service_role` API key.',
    });
    const auth = await client('sb_secret_wrong').auth.admin.listUsers();
    expect(auth.error?.status).toBe(401);
  });
});
