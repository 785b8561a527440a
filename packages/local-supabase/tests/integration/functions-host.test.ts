// The functions host over HTTP, on fixture functions: routing, verify_jwt, env, forwarded IP, relay errors.
import { resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseTrustedProxies } from '../../src/client-address.ts';
import { loadConfig, type StackConfig } from '../../src/config.ts';
import type { StackContext } from '../../src/context.ts';
import { functionsApp } from '../../src/functions/index.ts';
import { signJwt } from '../../src/jwt.ts';
import { readProjectToml } from '../../src/project.ts';
import { freePort } from '../../testing/free-port.ts';

let server: ServerType;
let base: string;
let config: StackConfig;

beforeAll(async () => {
  const api = await freePort();
  config = loadConfig(
    // FROM_SHELL is in the file and the environment: the environment wins. HOME is in the environment only.
    { FROM_SHELL: 'the shell value', HOME: '/home/someone' },
    {
      supabaseDir: resolve(import.meta.dirname, '../fixtures/functions-host'),
      ports: { api, db: 50001, mailWeb: 50002, smtp: 50003 },
      smtpUrl: 'smtp://127.0.0.1:50003',
      siteUrl: 'http://127.0.0.1:4321',
      rateLimits: false,
    },
  );
  // The host reads only the config and config.toml; no database or mailer is involved.
  const ctx = {
    config,
    project: readProjectToml(config.supabaseDir),
    trustedProxies: parseTrustedProxies(''),
  } as StackContext;
  const app = new Hono();
  app.route('/functions/v1', functionsApp(ctx));
  // The same host behind a proxy named in TRUSTED_PROXIES (here: loopback, where the test's requests come from).
  app.route('/behind-proxy/functions/v1', functionsApp({ ...ctx, trustedProxies: parseTrustedProxies('127.0.0.0/8') }));
  await new Promise<void>((done) => {
    server = serve({ fetch: app.fetch, port: api, hostname: '127.0.0.1' }, () => done());
  });
  base = `http://127.0.0.1:${api}/functions/v1`;
});
afterAll(() => new Promise<void>((done) => server?.close(() => done())));

const anon = () => ({ Authorization: `Bearer ${config.anonKey}`, apikey: config.anonKey });

describe('routing', () => {
  test.each(['nope', '_shared', '..%2F..%2Fpackage.json', 'echo%2F..%2F..'])(
    '%s is not a function: 404',
    async (name) => {
      const res = await fetch(`${base}/${name}`, { headers: anon() });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('Function not found');
    },
  );

  test('the function sees its path from /<name>, the query and the body', async () => {
    const res = await fetch(`${base}/echo/sub/path?x=1&y=2`, { method: 'POST', headers: anon(), body: 'hello' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      path: '/echo/sub/path',
      search: '?x=1&y=2',
      method: 'POST',
      body: 'hello',
    });
  });

  test('a module exporting a ready `handler` works too', async () => {
    const res = await fetch(`${base}/plain`, { method: 'PUT' });
    expect(await res.text()).toBe('plain PUT');
  });
});

describe('verify_jwt (default true)', () => {
  test('no Authorization header: 401 as the CLI relay answers', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ msg: 'Error: Missing authorization header' });
  });

  test.each([
    ['garbage', 'Bearer not-a-jwt'],
    ['another secret', 'other'],
    ['expired', 'expired'],
  ])('a bad token (%s): 401 Invalid JWT', async (_label, kind) => {
    let header = kind;
    if (kind === 'other') header = `Bearer ${await signJwt({ role: 'anon' }, 'x'.repeat(40))}`;
    if (kind === 'expired') {
      header = `Bearer ${await signJwt({ role: 'anon', exp: Math.floor(Date.now() / 1000) - 10 }, config.jwtSecret)}`;
    }
    const res = await fetch(`${base}/echo`, { headers: { Authorization: header } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ msg: 'Invalid JWT' });
  });

  test('a scheme other than Bearer: 401', async () => {
    const res = await fetch(`${base}/echo`, { headers: { Authorization: 'Basic dTpw' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ msg: "Error: Auth header is not 'Bearer {token}'" });
  });

  test('the anon key and a service_role key pass', async () => {
    expect((await fetch(`${base}/echo`, { headers: anon() })).status).toBe(200);
    const service = { Authorization: `Bearer ${config.serviceRoleKey}` };
    expect((await fetch(`${base}/echo`, { headers: service })).status).toBe(200);
  });

  test('OPTIONS skips the check: the function answers its own preflight', async () => {
    const res = await fetch(`${base}/echo`, { method: 'OPTIONS' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ method: 'OPTIONS' });
  });

  test('verify_jwt = false lets a request without a token through', async () => {
    expect((await fetch(`${base}/open`)).status).toBe(200);
  });
});

describe('what a function is given', () => {
  test('Supabase’s variables, and the project’s from its functions/.env with the environment winning', async () => {
    const { env } = (await (await fetch(`${base}/open`)).json()) as { env: Record<string, string | null> };
    expect(env).toEqual({
      SUPABASE_URL: `http://127.0.0.1:${config.ports.api}`,
      SUPABASE_ANON_KEY: config.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
      SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"}',
      SUPABASE_SECRET_KEYS: '{"default":"sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"}',
      SUPABASE_DB_URL: `postgresql://postgres:postgres@127.0.0.1:${config.ports.db}/postgres`,
      SMTP_URL: 'smtp://127.0.0.1:50003',
      SITE_URL: 'http://127.0.0.1:4321',
      RATE_LIMITS: 'off',
      GREETING: 'hello from the file',
      QUOTED: 'two words # not a comment',
      FROM_SHELL: 'the shell value',
      DECLARED_ONLY: null,
      HOME: null,
      PATH: null,
    });
  });

  type Seen = { forwardedFor: string | null; connectingIp: string | null };
  const seen = async (url: string, headers: Record<string, string> = {}): Promise<Seen> => {
    const { forwardedFor, connectingIp } = (await (await fetch(url, { headers })).json()) as Seen;
    return { forwardedFor, connectingIp };
  };

  test('CF-Connecting-IP is the address the socket saw, whatever the client writes; X-Forwarded-For is appended to, as Cloudflare does', async () => {
    expect(await seen(`${base}/open`)).toEqual({ forwardedFor: '127.0.0.1', connectingIp: '127.0.0.1' });
    const spoofed = await seen(`${base}/open`, { 'X-Forwarded-For': '203.0.113.9', 'CF-Connecting-IP': '203.0.113.8' });
    expect(spoofed).toEqual({ forwardedFor: '203.0.113.9, 127.0.0.1', connectingIp: '127.0.0.1' });
  });

  test('behind a trusted proxy: CF-Connecting-IP is the entry that proxy added, not what the client wrote before it', async () => {
    const proxied = `http://127.0.0.1:${new URL(base).port}/behind-proxy/functions/v1`;
    const res = await seen(`${proxied}/open`, {
      'X-Forwarded-For': '6.6.6.6, 203.0.113.9',
      'CF-Connecting-IP': '6.6.6.6',
    });
    expect(res).toEqual({ forwardedFor: '6.6.6.6, 203.0.113.9, 127.0.0.1', connectingIp: '203.0.113.9' });
    expect(await seen(`${proxied}/open`)).toEqual({ forwardedFor: '127.0.0.1', connectingIp: '127.0.0.1' });
  });

  test('each function is loaded once and keeps its state between requests', async () => {
    const first = (await (await fetch(`${base}/open?n=1`)).json()) as { created: number; calls: number };
    const second = (await (await fetch(`${base}/open?n=2`)).json()) as { created: number; calls: number };
    expect(second.created).toBe(first.created);
    expect(second.calls).toBe(first.calls + 1);
  });
});

describe('relay errors', () => {
  test('a handler that throws: 500 WORKER_ERROR', async () => {
    const res = await fetch(`${base}/boom`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      code: 'WORKER_ERROR',
      message: 'Function exited due to an error (please check logs)',
    });
  });

  test('a module that fails to load: 503 BOOT_ERROR', async () => {
    const res = await fetch(`${base}/broken`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' });
  });
});
