// A proxy on the same machine with TRUSTED_PROXIES left empty makes every visitor one address: the stack
// says so in its log, once, when X-Forwarded-For arrives from a loopback peer that is not the stack itself.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const run = promisify(execFile);
let t: TestStack;
const warnings: string[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
  });
  t = await startTestStack();
});
afterAll(async () => {
  await t?.stop();
  vi.restoreAllMocks();
});

/** One request from another process (curl), as a local proxy would send it. */
async function viaProxy(forwardedFor: string): Promise<number> {
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    `apikey: ${t.config.anonKey}`,
    '-H',
    `X-Forwarded-For: ${forwardedFor}`,
    `${t.url}/auth/v1/settings`,
  ]);
  return Number(stdout);
}

describe('X-Forwarded-For from a loopback peer with TRUSTED_PROXIES empty', () => {
  test("the stack's own calls with X-Forwarded-For (a function calling auth) do not warn", async () => {
    const { error } = await t.anon().functions.invoke('password-reset', {
      body: { email: 'nobody@example.com', redirectTo: 'http://127.0.0.1:4321/auth?tab=reset' },
    });
    expect(error).toBeNull();
    expect(warnings.filter((w) => w.includes('TRUSTED_PROXIES'))).toEqual([]);
  });

  test('two proxied requests: one warning naming TRUSTED_PROXIES and the nginx line', async () => {
    expect(await viaProxy('203.0.113.7')).toBe(200);
    expect(await viaProxy('198.51.100.9')).toBe(200);
    const lines = warnings.filter((w) => w.includes('TRUSTED_PROXIES'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('X-Forwarded-For (203.0.113.7)');
    expect(lines[0]).toContain('TRUSTED_PROXIES=127.0.0.1,::1');
    expect(lines[0]).toContain('$proxy_add_x_forwarded_for');
  });
});
