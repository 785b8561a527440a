import { isDatabaseUnavailable, loadConfig } from 'local-supabase';
import { expect, test } from 'vitest';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import { hasServiceRole } from '../../../supabase/functions/_shared/service-role.ts';
import { nextAttemptAt, RETRY } from '../../../supabase/functions/send-contact-email/contact.ts';
import { isRetryPath } from '../../../supabase/functions/send-contact-email/retry.ts';

test('a failed message waits 1 s, 2 s, 4 s ... before its next attempt, never more than an hour', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const waits = [1, 2, 3, 4, 12, 13, RETRY.maxAttempts].map(
    (n) => (nextAttemptAt(n, now).getTime() - now.getTime()) / 1000,
  );
  expect(waits).toEqual([1, 2, 4, 8, 2048, 3600, 3600]);
});

test('the retry entry is /<function>/retry, with or without a trailing slash', () => {
  expect(isRetryPath(new Request('http://x/send-contact-email/retry', { method: 'POST' }))).toBe(true);
  expect(isRetryPath(new Request('http://x/send-contact-email/retry/', { method: 'POST' }))).toBe(true);
  expect(isRetryPath(new Request('http://x/send-contact-email', { method: 'POST' }))).toBe(false);
  expect(isRetryPath(new Request('http://x/send-contact-email?retry', { method: 'POST' }))).toBe(false);
});

test('only the service-role key or a secret key opens the retry entry', () => {
  const env = envFrom({
    SUPABASE_SERVICE_ROLE_KEY: 'service-jwt',
    SUPABASE_ANON_KEY: 'anon-jwt',
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: 'sb_secret_abc' }),
  });
  const req = (headers: Record<string, string>) => new Request('http://x/send-contact-email/retry', { headers });
  expect(hasServiceRole(req({ Authorization: 'Bearer service-jwt' }), env)).toBe(true);
  expect(hasServiceRole(req({ apikey: 'sb_secret_abc' }), env)).toBe(true);
  expect(hasServiceRole(req({ Authorization: 'Bearer anon-jwt', apikey: 'anon-jwt' }), env)).toBe(false);
  expect(hasServiceRole(req({ Authorization: 'Bearer service-jw' }), env)).toBe(false);
  expect(hasServiceRole(req({ Authorization: 'Bearer service-jwtx' }), env)).toBe(false);
  expect(hasServiceRole(req({}), env)).toBe(false);
  // With no service key configured, nothing matches (an empty key never opens it).
  expect(hasServiceRole(req({ Authorization: 'Bearer ' }), envFrom({}))).toBe(false);
});

test('CRON_SECONDS: a pg_cron job by name runs every N seconds locally, 0 turns it off, garbage is ignored', () => {
  expect(loadConfig({}).cron).toEqual({});
  expect(loadConfig({ CRON_SECONDS: 'contact-mail-retry=0' }).cron).toEqual({ 'contact-mail-retry': 0 });
  expect(loadConfig({ CRON_SECONDS: 'contact-mail-retry=2.5, *=0' }).cron).toEqual({
    'contact-mail-retry': 2.5,
    '*': 0,
  });
  expect(loadConfig({ CRON_SECONDS: 'contact-mail-retry=soon,x=-1,=3' }).cron).toEqual({});
});

test('connection errors count as the database being unavailable; query errors do not', () => {
  for (const code of [
    'ECONNREFUSED',
    'ECONNRESET',
    'CONNECTION_CLOSED',
    'CONNECT_TIMEOUT',
    '57P01',
    '57P03',
    '08006',
  ]) {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
  }
  for (const code of ['23505', '42501', '57014', 'P0001', undefined]) {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), String(code)).toBe(false);
  }
  expect(isDatabaseUnavailable(null)).toBe(false);
});
