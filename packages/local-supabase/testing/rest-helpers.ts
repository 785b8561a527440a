// Members for the REST and RLS tests: real users in auth.users with a supabase-js client signed in as each.
import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { signJwt } from '../src/jwt.ts';
import { uniqueEmail } from './auth-helpers.ts';
import type { TestStack } from './stack.ts';

export interface Member {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  /** A supabase-js client (anon key) whose requests carry this member's access token. */
  client: SupabaseClient;
  accessToken: string;
}

/** How members were made: through the auth service's admin API and sign-in, or directly in the database. */
export let memberSource: 'auth-api' | 'database' | undefined;

const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };

async function viaAuthApi(t: TestStack, email: string, password: string, firstName: string, lastName: string) {
  const { data, error } = await t.admin().auth.admin.createUser({
    email,
    password,
    email_confirm: true,
    user_metadata: { first_name: firstName, last_name: lastName },
  });
  if (error || !data.user) return undefined;
  const client = createClient(t.url, t.config.anonKey, clientOptions);
  const signIn = await client.auth.signInWithPassword({ email, password });
  if (signIn.error || !signIn.data.session) {
    throw new Error(`auth admin API created ${email} but sign-in failed: ${signIn.error?.message}`);
  }
  return { id: data.user.id, client, accessToken: signIn.data.session.access_token };
}

async function viaDatabase(t: TestStack, email: string, firstName: string, lastName: string) {
  const id = randomUUID();
  await t.stack.ctx.db.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', $1::uuid, 'authenticated', 'authenticated', $2::text, '',
       now(), '{"provider":"email","providers":["email"]}', $3::text::jsonb, now(), now())`,
    [id, email, JSON.stringify({ first_name: firstName, last_name: lastName })],
  );
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await signJwt(
    {
      sub: id,
      role: 'authenticated',
      aud: 'authenticated',
      email,
      session_id: randomUUID(),
      iat: now,
      exp: now + 3600,
    },
    t.config.jwtSecret,
  );
  const client = createClient(t.url, t.config.anonKey, {
    ...clientOptions,
    global: { headers: { Authorization: `Bearer ${accessToken}` } },
  });
  return { id, client, accessToken };
}

/**
 * A confirmed member with first and last name. Uses the auth service (admin createUser, then
 * signInWithPassword) when it answers; otherwise inserts into auth.users and mints the access token
 * GoTrue would issue. Either way the profile row comes from the migration's trigger.
 */
export async function createMember(
  t: TestStack,
  prefix: string,
  names = { firstName: 'Ada', lastName: 'Lovelace' },
): Promise<Member> {
  const email = uniqueEmail(prefix);
  const password = `Pw-${randomUUID()}-Aa1!`;
  if (memberSource !== 'database') {
    const made = await viaAuthApi(t, email, password, names.firstName, names.lastName);
    if (made) {
      memberSource = 'auth-api';
      return { ...made, email, ...names };
    }
    memberSource = 'database';
  }
  const made = await viaDatabase(t, email, names.firstName, names.lastName);
  return { ...made, email, ...names };
}

/** A raw REST request with the stack's anon key unless headers say otherwise. */
export function rest(t: TestStack, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return fetch(`${t.url}/rest/v1/${path}`, {
    ...init,
    headers: { apikey: t.config.anonKey, Authorization: `Bearer ${t.config.anonKey}`, ...init.headers },
  });
}
