// Per-IP limits of the functions, counted in Postgres (public.rate_limit_hit over private.rate_limit_hits):
// one limit across handler instances (as across hosted isolates), no escape by writing X-Forwarded-For,
// 429 with a clear message, atomic under concurrent hits, only service_role may count, and failing open.
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { envFrom } from '../../supabase/functions/_shared/env.ts';
import { createHandler } from '../../supabase/functions/send-contact-email/handler.ts';
import { functionEnv } from '../../supabase/local/functions/settings.ts';
import { createMember } from './rest-helpers.ts';
import { startTestStack, type TestStack } from './stack.ts';

let t: TestStack;

beforeAll(async () => {
  t = await startTestStack({ rateLimits: true });
});
afterAll(() => t?.stop());

/** A honeypot submission: passes the limiter like any other, and stores and mails nothing. */
const robot = (ip: string) =>
  new Request('http://functions.local/send-contact-email', {
    method: 'POST',
    // As the gateway delivers it: the caller's address in CF-Connecting-IP.
    headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip },
    body: JSON.stringify({ name: 'Bot', email: 'bot@example.com', message: 'x', website: 'filled' }),
  });

async function counter(bucket: string, key: string) {
  const rows = await t.stack.ctx.db.query<{ hits: number }>(
    'select hits from private.rate_limit_hits where bucket = $1::text and key = $2::text',
    [bucket, key],
  );
  return rows[0]?.hits;
}

describe('send-contact-email limits held in Postgres', () => {
  test('two handler instances share one limit: the sixth request from an IP is refused by either', async () => {
    const env = envFrom(functionEnv(t.config));
    const first = createHandler(env);
    const second = createHandler(env);
    const ip = '198.51.100.21';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? second : first)(robot(ip))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await counter('send-contact-email', ip)).toBe(5);

    for (const handler of [first, second]) {
      const res = await handler(robot(ip));
      expect(res.status).toBe(429);
      const body = (await res.json()) as { error: string };
      expect(body.error).toMatch(
        /^Too many requests from your address\. Please try again in (10 minutes|\d+ seconds?)\.$/,
      );
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(590);
      expect(retryAfter).toBeLessThanOrEqual(600);
    }
    // Another address has its own count.
    expect((await second(robot('198.51.100.22'))).status).toBe(200);
  });

  test('through the stack, a client writing its own X-Forwarded-For and CF-Connecting-IP is still counted by its socket address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${t.url}/functions/v1/send-contact-email`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${t.config.anonKey}`,
          apikey: t.config.anonKey,
          'X-Forwarded-For': `203.0.113.${i + 1}`,
          'CF-Connecting-IP': `203.0.113.${i + 101}`,
        },
        body: JSON.stringify({ name: 'Bot', email: 'bot@example.com', message: 'x', website: 'filled' }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(((await res.json()) as { error: string }).error).toMatch(/^Too many requests from your address\./);
      } else await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await counter('send-contact-email', '127.0.0.1')).toBe(6);
    for (let i = 1; i <= 6; i++) {
      expect(await counter('send-contact-email', `203.0.113.${i}`)).toBeUndefined();
      expect(await counter('send-contact-email', `203.0.113.${i + 100}`)).toBeUndefined();
    }

    // The stack is still up and answering everything else.
    expect((await fetch(`${t.url}/auth/v1/health`)).status).toBe(200);
    const { error } = await t.admin().from('contact_messages').select('id').limit(1);
    expect(error).toBeNull();
  });

  test('the limiter fails open, with a logged error, when the database cannot be reached', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const env = envFrom({ ...functionEnv(t.config), SUPABASE_URL: 'http://127.0.0.1:9' });
      const handler = createHandler(env);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await handler(robot('198.51.100.23'))).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
      expect(logged.mock.calls.some((c) => String(c[0]).includes('rate limit not checked'))).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  test('RATE_LIMITS=off counts nothing', async () => {
    const handler = createHandler(envFrom({ ...functionEnv(t.config), RATE_LIMITS: 'off' }));
    for (let i = 0; i < 7; i++) expect((await handler(robot('198.51.100.24'))).status).toBe(200);
    expect(await counter('send-contact-email', '198.51.100.24')).toBeUndefined();
  });
});

describe('public.rate_limit_hit', () => {
  test('concurrent hits are counted exactly: 5 of 20 allowed', async () => {
    const admin = t.admin();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        admin.rpc('rate_limit_hit', { bucket: 'race', key: 'k', max_hits: 5, window_seconds: 60 }),
      ),
    );
    expect(answers.every((a) => a.error === null)).toBe(true);
    const allowed = answers.filter((a) => (a.data as { allowed: boolean }).allowed);
    expect(allowed).toHaveLength(5);
    expect(await counter('race', 'k')).toBe(20);
  });

  test('a window that has ended starts again at one and old windows of the bucket are removed', async () => {
    const admin = t.admin();
    await t.stack.ctx.db.query(
      `insert into private.rate_limit_hits (bucket, key, window_start, hits)
       values ('sweep', 'old', now() - interval '2 minutes', 9), ('sweep', 'again', now() - interval '2 minutes', 9)`,
    );
    const again = await admin.rpc('rate_limit_hit', { bucket: 'sweep', key: 'again', max_hits: 2, window_seconds: 60 });
    expect(again.data).toMatchObject({ allowed: true, hits: 1, remaining: 1 });
    expect(await counter('sweep', 'old')).toBeUndefined();
  });

  test('only service_role may call it; the counters are out of the API reach', async () => {
    const args = { bucket: 'x', key: 'y', max_hits: 1, window_seconds: 1 };
    const visitor = await t.anon().rpc('rate_limit_hit', args);
    expect(visitor.status).toBe(401);
    expect(visitor.error).toMatchObject({ code: '42501', message: 'permission denied for function rate_limit_hit' });
    const member = await createMember(t, 'limits');
    const signedIn = await member.client.rpc('rate_limit_hit', args);
    expect(signedIn.status).toBe(403);
    expect(signedIn.error?.code).toBe('42501');
    expect(await counter('x', 'y')).toBeUndefined();
    const table = await t.admin().schema('private').from('rate_limit_hits').select('*');
    expect(table.status).toBe(406);
    expect(table.error?.code).toBe('PGRST106');
  });

  test('bad limits are refused with a clear message', async () => {
    const res = await t.admin().rpc('rate_limit_hit', { bucket: 'b', key: 'k', max_hits: 0, window_seconds: 60 });
    expect(res.status).toBe(400);
    expect(res.error?.message).toBe('rate_limit_hit: max_hits and window_seconds must be at least 1');
  });
});
