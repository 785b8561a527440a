// A stack with a JWT secret of its own has no public credential left: it generates its own publishable and
// secret keys (kept beside the signing key, printed at start), the CLI's demo keys are refused, and HS256
// tokens forged with the secret are refused except its two API keys. On an address other machines reach
// it refuses to start while any demo value is in use, the newsletter's demo unsubscribe key included.
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { API_KEYS_FILE, loadApiKeys } from '../../src/api-keys.ts';
import { DEMO_PUBLISHABLE_KEY, DEMO_SECRET_KEY, loadConfig } from '../../src/config.ts';
import { signJwt } from '../../src/jwt.ts';
import { stackSummary } from '../../src/server.ts';
import { createMember } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const SECRET = 'a-secret-of-this-deployment-only-0123456789abcdef';
let t: TestStack;

beforeAll(async () => {
  t = await startTestStack({ jwtSecret: SECRET });
});
afterAll(() => t?.stop());

describe('custom JWT_SECRET', () => {
  test('the CLI demo sb_secret_ and sb_publishable_ keys are refused with 401', async () => {
    for (const key of [DEMO_SECRET_KEY, DEMO_PUBLISHABLE_KEY]) {
      const rest = await fetch(`${t.url}/rest/v1/contact_messages?select=id`, {
        headers: { apikey: key, Authorization: `Bearer ${key}` },
      });
      expect(rest.status).toBe(401);
      const admin = await fetch(`${t.url}/auth/v1/admin/users`, { headers: { apikey: key } });
      expect(admin.status).toBe(401);
    }
  });

  test('fresh keys are generated, kept beside the signing key (0600), printed, and act as their roles', async () => {
    const { publishableKey, secretKey } = t.config;
    expect(publishableKey).toMatch(/^sb_publishable_[\w-]{32}$/);
    expect(secretKey).toMatch(/^sb_secret_[\w-]{32}$/);
    const file = join(t.config.dataDir, API_KEYS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The next start of the same data folder reads the same pair.
    expect(loadApiKeys({ ...t.config, publishableKey: DEMO_PUBLISHABLE_KEY, secretKey: DEMO_SECRET_KEY })).toEqual({
      publishable: publishableKey,
      secret: secretKey,
      generated: true,
    });
    const summary = stackSummary(t.stack);
    expect(summary).toContain(secretKey);
    expect(summary).not.toContain(DEMO_SECRET_KEY);

    const admin = await fetch(`${t.url}/auth/v1/admin/users`, { headers: { apikey: secretKey } });
    expect(admin.status).toBe(200);
    const visitor = await fetch(`${t.url}/rest/v1/contact_messages?select=id`, { headers: { apikey: publishableKey } });
    expect(visitor.status).toBe(401);
  });

  test('an HS256 token forged with the secret is refused; the HS256 API keys still work', async () => {
    const member = await createMember(t, 'forged');
    const forged = await signJwt(
      { sub: member.id, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 },
      SECRET,
    );
    const user = await fetch(`${t.url}/auth/v1/user`, {
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${forged}` },
    });
    expect(user.status).toBe(403);
    const rest = await fetch(`${t.url}/rest/v1/profiles?select=email`, {
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${forged}` },
    });
    expect(rest.status).toBe(401);
    const admin = await signJwt({ role: 'service_role' }, SECRET);
    const adminCall = await fetch(`${t.url}/auth/v1/admin/users`, {
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${admin}` },
    });
    expect(adminCall.status).toBe(403);
    const serviceKey = await fetch(`${t.url}/auth/v1/admin/users`, {
      headers: { apikey: t.config.serviceRoleKey, Authorization: `Bearer ${t.config.serviceRoleKey}` },
    });
    expect(serviceKey.status).toBe(200);
  });
});

describe('bind address', () => {
  test('loopback by default; BIND_ADDRESS moves it', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ BIND_ADDRESS: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  test('another address with a demo secret: the start is refused, naming what to set', async () => {
    await expect(startTestStack({ host: '0.0.0.0' })).rejects.toThrow(
      /BIND_ADDRESS=0\.0\.0\.0 .*JWT_SECRET.*SUPABASE_SECRET_KEY/,
    );
    await expect(startTestStack({ host: '::', secretKey: DEMO_SECRET_KEY })).rejects.toThrow(
      /BIND_ADDRESS=:: .*JWT_SECRET/,
    );
  });

  test('a secret of its own but a function secret from supabase/functions/.env: refused, naming it alone', async () => {
    // The file is committed, so its values are public: with it anyone who knows a subscriber's row id signs
    // a working unsubscribe link.
    const refused = startTestStack({ host: '0.0.0.0', jwtSecret: SECRET });
    await expect(refused).rejects.toThrow(
      /public demo value of UNSUBSCRIBE_SECRET\. Set JWT_SECRET and UNSUBSCRIBE_SECRET/,
    );
    const committed = loadConfig({}).functionSecrets.UNSUBSCRIBE_SECRET;
    await expect(
      startTestStack({ host: '0.0.0.0', jwtSecret: SECRET, functionSecrets: { UNSUBSCRIBE_SECRET: committed } }),
    ).rejects.toThrow(/value of UNSUBSCRIBE_SECRET\./);
    // An empty variable does not replace the file's value.
    expect(loadConfig({ UNSUBSCRIBE_SECRET: '' }).functionSecrets.UNSUBSCRIBE_SECRET).toBe(committed);
    expect(loadConfig({ UNSUBSCRIBE_SECRET: `${SECRET}-own` }).functionSecrets.UNSUBSCRIBE_SECRET).toBe(
      `${SECRET}-own`,
    );
  });
});

/** An IPv4 address of this machine that is not loopback, if it has one. */
function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe.skipIf(!lanAddress())('BIND_ADDRESS with a secret of its own', () => {
  let exposed: TestStack;
  beforeAll(async () => {
    exposed = await startTestStack({
      host: '0.0.0.0',
      jwtSecret: SECRET,
      functionSecrets: { UNSUBSCRIBE_SECRET: `${SECRET}-unsubscribe` },
    });
  });
  afterAll(() => exposed?.stop());

  test('the API follows it; the mail catcher and the PGlite socket stay on loopback', async () => {
    const lan = lanAddress() as string;
    const { api, mailWeb, db, smtp } = exposed.config.ports;
    expect(await reachable(lan, api)).toBe(true);
    expect(await reachable(lan, mailWeb)).toBe(false);
    expect(await reachable(lan, smtp)).toBe(false);
    expect(await reachable(lan, db)).toBe(false);
    expect(await reachable('127.0.0.1', mailWeb)).toBe(true);
    // PGlite's socket exists only without DATABASE_URL.
    if (!exposed.config.databaseUrl) expect(await reachable('127.0.0.1', db)).toBe(true);
  });
});
