// Asymmetric access tokens: ES256 with a kid, the public key at /auth/v1/.well-known/jwks.json, and every
// verifier (auth, REST, the functions relay) taking ES256 by kid and HS256 with the secret.
import { resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { createClient } from '@supabase/supabase-js';
import { Hono } from 'hono';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { functionsApp } from '../../src/functions/index.ts';
import { signJwt } from '../../src/jwt.ts';
import { readProjectToml } from '../../src/project.ts';
import { freePort } from '../../testing/free-port.ts';
import { createMember, type Member } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
let member: Member;
let other: Member;
let functionsServer: ServerType;
let functionsBase: string;

const clientOptions = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  t = await startTestStack();
  member = await createMember(t, 'es256');
  other = await createMember(t, 'es256-other', { firstName: 'Grace', lastName: 'Hopper' });
  // The functions relay of this stack (its key set) over the host's fixture functions, where `echo` keeps
  // verify_jwt on.
  const fixtures = resolve(import.meta.dirname, '../fixtures/functions-host');
  const app = new Hono();
  app.route(
    '/functions/v1',
    functionsApp({
      ...t.stack.ctx,
      config: { ...t.stack.ctx.config, supabaseDir: fixtures },
      project: readProjectToml(fixtures),
    }),
  );
  const port = await freePort();
  await new Promise<void>((done) => {
    functionsServer = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => done());
  });
  functionsBase = `http://127.0.0.1:${port}/functions/v1`;
});
afterAll(async () => {
  await new Promise<void>((done) => (functionsServer ? functionsServer.close(() => done()) : done()));
  await t?.stop();
});

/** A token shaped like the stack's, signed by an EC key the stack never saw (same kid, to be sure). */
async function foreignEs256(claims: Record<string, unknown>, kid = t.stack.ctx.jwtKeys.kid) {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(privateKey);
}

const memberClaims = (m: Member) => ({
  sub: m.id,
  role: 'authenticated',
  aud: 'authenticated',
  email: m.email,
  iat: now(),
  exp: now() + 600,
});

describe('signing keys', () => {
  test('jwks.json lists the public P-256 key, with CORS, without an API key', async () => {
    const res = await fetch(`${t.url}/auth/v1/.well-known/jwks.json`, { headers: { Origin: 'http://127.0.0.1:4321' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4321');
    const body = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(body.keys).toHaveLength(1);
    const [key] = body.keys;
    expect(Object.keys(key ?? {}).sort()).toEqual(['alg', 'crv', 'key_ops', 'kid', 'kty', 'use', 'x', 'y']);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', key_ops: ['verify'] });
    expect(key?.kid).toBe(t.stack.ctx.jwtKeys.kid);
    expect(key).not.toHaveProperty('d');
  });

  test('sign-in issues an ES256 access token whose kid is in the key set', () => {
    const header = decodeProtectedHeader(member.accessToken);
    expect(header).toEqual({ alg: 'ES256', kid: t.stack.ctx.jwtKeys.kid, typ: 'JWT' });
  });

  test('getClaims() verifies the token with the JWKS, without asking /user', async () => {
    const paths: string[] = [];
    const client = createClient(t.url, t.config.anonKey, {
      ...clientOptions,
      global: {
        fetch: (input, init) => {
          paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
          return fetch(input, init);
        },
      },
    });
    // A fresh storage key, so no JWKS cached by another client in this process is reused.
    const { data, error } = await client.auth.getClaims(member.accessToken);
    expect(error).toBeNull();
    expect(data?.claims.sub).toBe(member.id);
    expect(data?.header.alg).toBe('ES256');
    expect(paths).not.toContain('/auth/v1/user');
    expect(paths.every((p) => p === '/auth/v1/.well-known/jwks.json')).toBe(true);
  });

  test('getClaims() refuses a token signed by another EC key', async () => {
    const client = createClient(t.url, t.config.anonKey, clientOptions);
    const { data, error } = await client.auth.getClaims(await foreignEs256(memberClaims(member)));
    expect(data).toBeNull();
    expect(error?.message).toBe('Invalid JWT signature');
  });

  test('the key survives a restart of the stack on the same DATA_DIR', async () => {
    const { loadJwtKeys } = await import('../../src/jwt.ts');
    const again = await loadJwtKeys(t.config.jwtSecret, 'ES256', t.config.dataDir);
    expect(again.publicJwk).toEqual(t.stack.ctx.jwtKeys.publicJwk);
  });
});

describe('REST under RLS', () => {
  test('an ES256 access token reads only its own profile', async () => {
    const { data, error } = await member.client.from('profiles').select('user_id, first_name');
    expect(error).toBeNull();
    expect(data).toEqual([{ user_id: member.id, first_name: 'Ada' }]);
  });

  test('an HS256 token signed with the JWT secret still works', async () => {
    const token = await signJwt(memberClaims(other), t.config.jwtSecret);
    const client = createClient(t.url, t.config.anonKey, {
      ...clientOptions,
      global: { headers: { Authorization: `Bearer ${token}` } },
    });
    const { data, error } = await client.from('profiles').select('user_id, first_name');
    expect(error).toBeNull();
    expect(data).toEqual([{ user_id: other.id, first_name: 'Grace' }]);
    // And the auth service takes it too.
    const user = await client.auth.getUser(token);
    expect(user.error).toBeNull();
    expect(user.data.user?.id).toBe(other.id);
  });

  test('a token signed by another EC key is refused with 401 and reads nothing', async () => {
    const token = await foreignEs256(memberClaims(member));
    const client = createClient(t.url, t.config.anonKey, {
      ...clientOptions,
      global: { headers: { Authorization: `Bearer ${token}` } },
    });
    const { data, error, status } = await client.from('profiles').select('user_id');
    expect(status).toBe(401);
    expect(data).toBeNull();
    expect(error?.code).toBe('PGRST301');
    expect(error?.message).toBe('JWT cryptographic operation failed');
  });

  test('an ES256 token naming an unknown kid is refused with 401', async () => {
    const token = await foreignEs256(memberClaims(member), 'not-our-key');
    const res = await fetch(`${t.url}/rest/v1/profiles?select=user_id`, {
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'PGRST301', message: 'No suitable key or wrong key type' });
  });
});

describe('auth service', () => {
  test('getUser() takes the ES256 access token', async () => {
    const { data, error } = await member.client.auth.getUser();
    expect(error).toBeNull();
    expect(data.user?.id).toBe(member.id);
  });

  test('getUser() refuses an ES256 token with a kid not in the key set', async () => {
    const client = createClient(t.url, t.config.anonKey, clientOptions);
    const { error } = await client.auth.getUser(await foreignEs256(memberClaims(member), 'not-our-key'));
    expect(error?.status).toBe(403);
    expect(error?.message).toBe(
      'invalid JWT: unable to parse or verify signature, token is unverifiable: error while executing keyfunc: unrecognized JWT kid not-our-key for algorithm ES256',
    );
  });

  test('getUser() refuses a token signed by another EC key as an invalid JWT', async () => {
    const client = createClient(t.url, t.config.anonKey, clientOptions);
    const { data, error } = await client.auth.getUser(await foreignEs256(memberClaims(member)));
    expect(data.user).toBeNull();
    expect(error?.status).toBe(403);
    expect(error?.code).toBe('bad_jwt');
    expect(error?.message).toBe(
      'invalid JWT: unable to parse or verify signature, token signature is invalid: signature is invalid',
    );
  });
});

describe('functions relay with verify_jwt', () => {
  const invoke = (token: string) =>
    createClient(functionsBase.replace(/\/functions\/v1$/, ''), t.config.anonKey, {
      ...clientOptions,
      global: { headers: { Authorization: `Bearer ${token}` } },
    }).functions.invoke('echo', { body: { hello: 'world' } });

  test('an ES256 access token runs the function', async () => {
    const { error } = await invoke(member.accessToken);
    expect(error).toBeNull();
  });

  test('an HS256 token signed with the secret runs the function', async () => {
    const { error } = await invoke(await signJwt(memberClaims(member), t.config.jwtSecret));
    expect(error).toBeNull();
  });

  test('a token signed by another EC key gets 401 Invalid JWT', async () => {
    const { error } = await invoke(await foreignEs256(memberClaims(member)));
    const res = (error as { context?: Response } | null)?.context;
    expect(res?.status).toBe(401);
    expect(await res?.json()).toEqual({ msg: 'Invalid JWT' });
  });
});

describe('legacy mode', () => {
  test('JWT_SIGNING=hs256 issues HS256 access tokens and publishes no keys', async () => {
    const legacy = await startTestStack({ jwtSigning: 'HS256' });
    try {
      const m = await createMember(legacy, 'hs256');
      expect(decodeProtectedHeader(m.accessToken)).toEqual({ alg: 'HS256', typ: 'JWT' });
      const { data } = await m.client.from('profiles').select('user_id');
      expect(data).toEqual([{ user_id: m.id }]);
      const jwks = await (await fetch(`${legacy.url}/auth/v1/.well-known/jwks.json`)).json();
      expect(jwks).toEqual({ keys: [] });
    } finally {
      await legacy.stop();
    }
  });
});
