// GoTrue's per-IP limiters on /recover, /resend and /otp (api.go: one limiter per route, each at the
// sign_in_sign_ups rate of config.toml's [auth.rate_limit], 30 per 5 minutes here), through supabase-js
// with RATE_LIMITS on. The stack trusts a proxy on loopback, so each test speaks from its own address
// by sending X-Forwarded-For, the way clients behind a real proxy arrive.
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { raw, uniqueEmail } from '../../testing/auth-helpers.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ rateLimits: true, trustedProxies: '127.0.0.1', authOverrides: { emailMaxFrequency: 0 } });
});
afterAll(() => t?.stop());

/** supabase-js as a client whose requests reach the stack through the trusted proxy from `ip`. */
const from = (ip: string) =>
  createClient(t.url, t.config.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { 'X-Forwarded-For': ip } },
  });

const LIMIT = 30;
/** Each test makes 30 or more requests; on a busy machine that takes a while. */
const SLOW = 120_000;
const overLimit = { status: 429, code: 'over_request_rate_limit', message: 'Request rate limit reached' };

describe('per-IP limits of the email routes', () => {
  test(
    '/recover: the 31st request from one address in 5 minutes is 429; another address goes on',
    async () => {
      const client = from('198.51.100.31');
      // Unknown addresses: answered 200 {} as for known ones, and no mail is sent.
      for (let i = 0; i < LIMIT; i++) {
        expect((await client.auth.resetPasswordForEmail(uniqueEmail('nobody'))).error).toBeNull();
      }
      const { error } = await client.auth.resetPasswordForEmail(uniqueEmail('nobody'));
      expect(error).toMatchObject(overLimit);
      expect((await from('198.51.100.32').auth.resetPasswordForEmail(uniqueEmail('nobody'))).error).toBeNull();
    },
    SLOW,
  );

  test(
    '/resend and /otp have limiters of their own, and count malformed requests too',
    async () => {
      const client = from('198.51.100.33');
      for (let i = 0; i < LIMIT; i++) {
        const { error } = await client.auth.resend({ type: 'signup', email: uniqueEmail('nobody') });
        expect(error).toBeNull();
      }
      expect((await client.auth.resend({ type: 'signup', email: uniqueEmail('nobody') })).error).toMatchObject(
        overLimit,
      );

      // The same address may still ask for a one-time link: /otp is counted apart.
      for (let i = 0; i < LIMIT; i++) {
        const { error } = await client.auth.signInWithOtp({
          email: uniqueEmail('nobody'),
          options: { shouldCreateUser: false },
        });
        expect(error).toMatchObject({ status: 422, code: 'otp_disabled' });
      }
      const over = await client.auth.signInWithOtp({
        email: uniqueEmail('nobody'),
        options: { shouldCreateUser: false },
      });
      expect(over.error).toMatchObject(overLimit);

      // A body that is not JSON is refused by the limiter before it is read, once the address is over.
      const garbled = await raw(t, '/otp', {
        body: 'not json',
        headers: { 'X-Forwarded-For': '198.51.100.33', 'Content-Type': 'application/json' },
      });
      expect(garbled.status).toBe(429);
      expect(garbled.body).toEqual({ code: 'over_request_rate_limit', message: 'Request rate limit reached' });
    },
    SLOW,
  );

  test(
    'a refused request sends no mail',
    async () => {
      const client = from('198.51.100.34');
      const email = uniqueEmail('member');
      await t.admin().auth.admin.createUser({ email, password: 'Sup3r-secret!', email_confirm: true });
      for (let i = 0; i < LIMIT; i++) await client.auth.resetPasswordForEmail(uniqueEmail('nobody'));
      expect((await client.auth.resetPasswordForEmail(email)).error).toMatchObject(overLimit);
      // Each answer comes after its mail was stored (the catcher's 250 follows the store): the list is complete.
      const sent = (await t.mail.list()).filter((m) => m.To.some((a) => a.Address === email));
      expect(sent).toHaveLength(0);
    },
    SLOW,
  );

  test(
    'email_sent: past 30 mails an hour (whoever asks) the next one is 429 and is not sent',
    async () => {
      const email = uniqueEmail('budget');
      await t.admin().auth.admin.createUser({ email, password: 'Sup3r-secret!', email_confirm: true });
      // From many addresses, so the per-IP limit stays out of the way and the project's mail budget counts.
      for (let i = 0; i < 30; i++) {
        expect((await from(`203.0.113.${i + 1}`).auth.resetPasswordForEmail(email)).error).toBeNull();
      }
      const over = await from('203.0.113.99').auth.resetPasswordForEmail(email);
      expect(over.error).toMatchObject({
        status: 429,
        code: 'over_email_send_rate_limit',
        message: 'email rate limit exceeded',
      });
      // Each answer comes after its mail was stored (the catcher's 250 follows the store): the list is complete.
      const sent = (await t.mail.list()).filter((m) => m.To.some((a) => a.Address === email));
      expect(sent).toHaveLength(30);
    },
    SLOW,
  );
});
