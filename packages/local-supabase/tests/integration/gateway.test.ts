// The gateway as the CLI's Kong does it: Authorization built from a new-format apikey, and early answers
// (413, 401 before the body is read) that leave a keep-alive connection usable for the next request.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PUBLISHABLE_KEY, DEMO_SECRET_KEY } from '../../src/config.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack();
  await t.stack.ctx.db.exec(`
    create function public.gateway_role() returns text language sql stable
      as $$ select current_setting('request.jwt.claims', true)::json ->> 'role' $$;`);
});
afterAll(() => t?.stop());

describe('new-format apikey without Authorization', () => {
  test('apikey: sb_secret_… alone reaches the admin API, REST and functions as service_role', async () => {
    const admin = await fetch(`${t.url}/auth/v1/admin/users`, { headers: { apikey: DEMO_SECRET_KEY } });
    expect(admin.status).toBe(200);
    expect(Array.isArray(((await admin.json()) as { users: unknown[] }).users)).toBe(true);

    const rest = await fetch(`${t.url}/rest/v1/rpc/gateway_role`, { headers: { apikey: DEMO_SECRET_KEY } });
    expect(await rest.json()).toBe('service_role');

    const fn = await fetch(`${t.url}/functions/v1/send-contact-email`, {
      method: 'POST',
      headers: { apikey: DEMO_PUBLISHABLE_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bot', email: 'bot@example.com', message: 'x', website: 'filled' }),
    });
    expect(fn.status).toBe(200);
    expect(await fn.json()).toEqual({ success: true });
  });

  test('Authorization: Bearer sb_… is replaced by the JWT of the apikey, as the CLI gateway does', async () => {
    const admin = await fetch(`${t.url}/auth/v1/admin/users`, {
      headers: { apikey: DEMO_SECRET_KEY, Authorization: `Bearer ${DEMO_SECRET_KEY}` },
    });
    expect(admin.status).toBe(200);
    const rest = await fetch(`${t.url}/rest/v1/rpc/gateway_role`, {
      headers: { apikey: DEMO_PUBLISHABLE_KEY, Authorization: `Bearer ${DEMO_PUBLISHABLE_KEY}` },
    });
    expect(await rest.json()).toBe('anon');
    const visitor = await fetch(`${t.url}/auth/v1/admin/users`, { headers: { apikey: DEMO_PUBLISHABLE_KEY } });
    expect(visitor.status).toBe(403);
  });
});

/** Sends one request over `agent` and answers its status, body and the local port of the socket used. */
function send(agent: Agent, path: string, method: string, headers: Record<string, string>, body?: Buffer) {
  return new Promise<{ status: number; body: string; port: number }>((resolve, reject) => {
    const url = new URL(path, t.url);
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString(),
          port: req.socket?.localPort ?? 0,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('early answers on a keep-alive connection', () => {
  const body = (size: number) => Buffer.from(JSON.stringify({ first_name: 'x'.repeat(size) }));

  test.each([
    ['413 for a body over 64 KB', true, 2_000_000, 413],
    ['401 without an apikey, before the body is read', false, 60_000, 401],
  ])('%s: the next request on the same agent is answered', async (_name, withKey, size, status) => {
    const big = body(size);
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (withKey) headers.apikey = t.config.anonKey;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(
        agent,
        '/rest/v1/profiles',
        'POST',
        { ...headers, 'Content-Length': String(big.length) },
        big,
      );
      expect(first.status).toBe(status);
      const second = await send(agent, '/rest/v1/rpc/gateway_role', 'GET', { apikey: t.config.anonKey });
      expect(second.status).toBe(200);
      expect(second.body).toBe('"anon"');
    } finally {
      agent.destroy();
    }
  });
});

describe('early answers through fetch (undici keeps the connection)', () => {
  test.each([
    ['413', true, 2_000_000, 413],
    ['401', false, 60_000, 401],
  ])('%s, then a request that succeeds', async (_name, withKey, size, status) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (withKey) headers.apikey = t.config.anonKey;
    const first = await fetch(`${t.url}/rest/v1/profiles`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ first_name: 'x'.repeat(size) }),
    });
    expect(first.status).toBe(status);
    await first.text();
    const second = await fetch(`${t.url}/rest/v1/rpc/gateway_role`, { headers: { apikey: t.config.anonKey } });
    expect(await second.json()).toBe('anon');
  });
});
