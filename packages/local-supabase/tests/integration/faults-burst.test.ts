// A burst of 200 password sign-ins from one address, with the stack's rate limits on (config.toml
// [auth.rate_limit] sign_in_sign_ups = 30 per 5 minutes per address, shared with sign-up, as GoTrue's
// router counts them). The client's address comes from X-Forwarded-For through a trusted proxy on
// loopback, as behind nginx. Past the limit: 429 over_request_rate_limit; the stack stays up; another
// address signs in as usual.
import { readFileSync } from 'node:fs';
import { createClient } from '@supabase/supabase-js';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const LIMIT = (parse(readFileSync('supabase/config.toml', 'utf8')) as { auth: { rate_limit: Record<string, number> } })
  .auth.rate_limit.sign_in_sign_ups;
const BURST = 200;
/** Requests in flight at once: a burst, not a queue. */
const CONCURRENCY = 25;
const PASSWORD = 'Sup3r-secret!';

let t: TestStack;
const email = uniqueEmail('burst');

beforeAll(async () => {
  t = await startTestStack({ rateLimits: true, trustedProxies: '127.0.0.1' });
  const { error } = await t.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
  expect(error).toBeNull();
});
afterAll(() => t?.stop());

/**
 * fetch that sends a request once more when it failed before any answer came (`fetch failed`: a kept-alive
 * connection the server had just closed), as browsers do; Node's fetch does not retry a POST. Had the first
 * try reached the server, it would have been counted, and the tally below would show it.
 */
const fetchOnceMore: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch {
    return fetch(input, init);
  }
};

const from = (ip: string) =>
  createClient(t.url, t.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { 'X-Forwarded-For': ip }, fetch: fetchOnceMore },
  });

test(`${BURST} sign-ins from one address: ${LIMIT} answered, the rest 429; the stack stays up; another address signs in`, async () => {
  expect(LIMIT).toBeGreaterThan(0);
  expect(LIMIT).toBeLessThan(BURST);
  const attacker = from('198.51.100.77');
  const outcomes: { name?: string; status?: number; code?: string; message?: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < BURST) {
      next += 1;
      // A wrong password: each answered attempt costs the server a bcrypt comparison.
      const { data, error } = await attacker.auth.signInWithPassword({ email, password: 'Wrong-password-1!' });
      expect(data.session).toBeNull();
      outcomes.push({ name: error?.name, status: error?.status, code: error?.code, message: error?.message });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  // How many of each answer: 30 wrong-password answers, the rest refused by the limiter, nothing else.
  const tally: Record<string, number> = {};
  for (const o of outcomes) {
    const key = `${o.status} ${o.code} ${o.message}${o.name === 'AuthApiError' ? '' : ` (${o.name})`}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  expect(tally).toEqual({
    '400 invalid_credentials Invalid login credentials': LIMIT,
    '429 over_request_rate_limit Request rate limit reached': BURST - LIMIT,
  });

  // Still over the limit: even the right password is refused for this address.
  const blocked = await attacker.auth.signInWithPassword({ email, password: PASSWORD });
  expect(blocked.error).toMatchObject({ status: 429, code: 'over_request_rate_limit' });

  // The stack is up, and another address is not affected.
  expect((await fetch(`${t.url}/auth/v1/health`)).status).toBe(200);
  const other = await from('198.51.100.78').auth.signInWithPassword({ email, password: PASSWORD });
  expect(other.error).toBeNull();
  expect(other.data.session?.user.email).toBe(email);
}, 120_000);

test("rotating a forged X-Forwarded-For entry in front of the proxy's own does not escape the limit", async () => {
  // The proxy appends the real peer (198.51.100.90) after whatever the client sent: only that entry counts.
  const forged = (i: number) =>
    createClient(t.url, t.config.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { headers: { 'X-Forwarded-For': `203.0.113.${i % 250}, 198.51.100.90` }, fetch: fetchOnceMore },
    });
  const statuses: (number | undefined)[] = [];
  for (let i = 0; i < LIMIT + 5; i++) {
    const { error } = await forged(i).auth.signInWithPassword({ email, password: 'Wrong-password-1!' });
    statuses.push(error?.status);
  }
  expect(statuses.filter((s) => s === 400)).toHaveLength(LIMIT);
  expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);
}, 120_000);
