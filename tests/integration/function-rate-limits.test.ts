// Per-IP limits of the functions, counted in Postgres (public.rate_limit_hit over private.rate_limit_hits):
// one limit across handler instances (as across hosted isolates), no escape by writing X-Forwarded-For or
// CF-Connecting-IP, 429 with a clear message, atomic under concurrent hits, only service_role may count, and
// each function's choice when the count cannot be checked (the database down or slow for the limiter).
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { functionEnv } from 'local-supabase';
import { createMember, startTestStack, type TestStack } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { Database } from '../../supabase/database.types.ts';
import { envFrom } from '../../supabase/functions/_shared/env.ts';
import { tooManyRequestsMessage, UNCHECKED_MESSAGE } from '../../supabase/functions/_shared/rate-limit.ts';
import { createHandler as accountHandler } from '../../supabase/functions/account/handler.ts';
import { createHandler as newsletterHandler } from '../../supabase/functions/newsletter-signup/handler.ts';
import { createHandler as resetHandler } from '../../supabase/functions/password-reset/handler.ts';
import { createHandler } from '../../supabase/functions/send-contact-email/handler.ts';
import { createHandler as signupHandler } from '../../supabase/functions/user-signup/handler.ts';

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
    // The window opens at the first hit, so its end is at most 600 s after this moment.
    const before = Date.now();
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? second : first)(robot(ip))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await counter('send-contact-email', ip)).toBe(5);

    for (const handler of [first, second]) {
      const res = await handler(robot(ip));
      expect(res.status).toBe(429);
      // What is left of the 10-minute window, however long the requests took: between 600 s less the time
      // since the first hit, and 600 s.
      const elapsedSeconds = (Date.now() - before + 1) / 1000;
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(600 - elapsedSeconds));
      expect(retryAfter).toBeLessThanOrEqual(600);
      // The sentence says that wait, and the code names the refusal.
      expect(await res.json()).toEqual({ error: tooManyRequestsMessage(retryAfter), code: 'rate_limited' });
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
    const { error } = await t.admin<Database>().from('contact_messages').select('id').limit(1);
    expect(error).toBeNull();
  });

  test('IPv6 callers are counted by their /64: new addresses in one /64 do not escape, the next /64 and a mapped IPv4 count apart', async () => {
    const handler = createHandler(envFrom(functionEnv(t.config)));
    const statuses: number[] = [];
    // Five addresses of one /64, in the forms an address can be written in, then a sixth.
    const sameNet = ['2001:db8:77:1::1', '2001:db8:77:1:a:b:c:d', '2001:DB8:77:1::FFFF', '2001:0db8:0077:0001::2'];
    for (const ip of [...sameNet, '2001:db8:77:1::5', '2001:db8:77:1:ffff::6']) {
      statuses.push((await handler(robot(ip))).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await counter('send-contact-email', '2001:db8:77:1::/64')).toBe(6);
    expect(await counter('send-contact-email', '2001:db8:77:1::1')).toBeUndefined();
    expect((await handler(robot('2001:db8:77:2::1'))).status).toBe(200);
    // An IPv4-mapped IPv6 address is its IPv4 address.
    expect((await handler(robot('::ffff:198.51.100.25'))).status).toBe(200);
    expect((await handler(robot('198.51.100.25'))).status).toBe(200);
    expect(await counter('send-contact-email', '198.51.100.25')).toBe(2);
  });

  test('RATE_LIMITS=off counts nothing', async () => {
    const handler = createHandler(envFrom({ ...functionEnv(t.config), RATE_LIMITS: 'off' }));
    for (let i = 0; i < 7; i++) expect((await handler(robot('198.51.100.24'))).status).toBe(200);
    expect(await counter('send-contact-email', '198.51.100.24')).toBeUndefined();
  });
});

/**
 * The stack's API behind a proxy that breaks only the limiter's call (POST /rest/v1/rpc/rate_limit_hit): 'down'
 * drops the connection, 'stall' never answers (the limiter gives up after its 5 s). Everything else, the
 * functions' own storing and the auth service, goes through untouched.
 */
async function limiterFault(mode: 'down' | 'stall'): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(t.url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/rest/v1/rpc/rate_limit_hit')) {
      if (mode === 'down') req.socket.destroy();
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

const post = (ip: string, body: unknown) =>
  new Request('http://functions.local/', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': ip },
    body: JSON.stringify(body),
  });

/** No internal address, port or driver wording in what a visitor reads. */
const INTERNAL = /127\.0\.0\.1|localhost|:\d{2,5}\b|ECONNREFUSED|fetch failed|socket|TypeError|AbortError|timed? ?out/i;

describe('when the limiter cannot count: user-signup, password-reset, newsletter sign-up and account deletion refuse, contact and opening a newsletter link go on', () => {
  test('the database call drops: 503 with Retry-After and nothing done by the closed ones; the contact message is stored', async () => {
    const fault = await limiterFault('down');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const env = envFrom({ ...functionEnv(t.config), SUPABASE_URL: fault.url });
      const id = randomUUID().slice(0, 8);
      const member = `closed-${id}@example.com`;
      const reader = `reader-${id}@example.com`;
      const ip = '198.51.100.31';
      const signup = await signupHandler(env)(
        post(ip, { email: member, password: 'Sup3r-secret!', firstName: 'Ada', lastName: 'Lee' }),
      );
      const reset = await resetHandler(env)(post(ip, { email: member }));
      const newsletter = await newsletterHandler(env)(post(ip, { email: reader }));
      // A member's deletion attempt: each one would try a password, so it is refused too.
      const owner = await createMember(t, 'closed-account');
      const attempt = post(ip, { password: 'Guess-passw0rd!' });
      attempt.headers.set('Authorization', `Bearer ${owner.accessToken}`);
      const deletion = await accountHandler(env)(attempt);
      for (const res of [signup, reset, newsletter, deletion]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('60');
        expect(await res.json()).toEqual({ error: UNCHECKED_MESSAGE, code: 'temporarily_unavailable' });
      }
      // Nothing was created, stored or mailed for the refused requests.
      const { data: users } = await t.admin().auth.admin.listUsers();
      expect(users.users.map((u) => u.email)).not.toContain(member);
      const { data: rows } = await t.admin<Database>().from('newsletter_subscribers').select('id').eq('email', reader);
      expect(rows).toEqual([]);
      expect((await t.admin().auth.admin.getUserById(owner.id)).data.user?.id).toBe(owner.id);
      expect((await t.mail.list()).filter((m) => m.To.some((to) => [member, reader].includes(to.Address)))).toEqual([]);

      // Contact fails open: the message is stored and mailed.
      const email = `open-${id}@example.com`;
      const contact = await createHandler(env)(post(ip, { name: 'Ann Lee', email, message: 'Still there?' }));
      expect(contact.status).toBe(200);
      const { data: stored } = await t.admin<Database>().from('contact_messages').select('ip').eq('email', email);
      expect(stored).toEqual([{ ip }]);
      // Opening a newsletter link fails open: the reader lands on the site's page (an unknown token here).
      const link = await newsletterHandler(env)(
        new Request('http://functions.local/newsletter-signup?token=unknown', { headers: { 'CF-Connecting-IP': ip } }),
      );
      expect(link.status).toBe(303);

      const said = logged.mock.calls.map((c) => String(c[0]));
      for (const name of ['user-signup', 'password-reset', 'newsletter-signup', 'account-delete']) {
        expect(said).toContain(`${name}: rate limit not checked, request refused:`);
      }
      expect(said).toContain('send-contact-email: rate limit not checked, request let through:');
      expect(said).toContain('newsletter-verify: rate limit not checked, request let through:');
    } finally {
      logged.mockRestore();
      await fault.close();
    }
  });

  test('the database call stalls: after the limiter’s 5 s, user-signup refuses and contact goes on', async () => {
    const fault = await limiterFault('stall');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const env = envFrom({ ...functionEnv(t.config), SUPABASE_URL: fault.url });
      const id = randomUUID().slice(0, 8);
      const started = Date.now();
      const [signup, contact] = await Promise.all([
        signupHandler(env)(
          post('198.51.100.32', {
            email: `slow-${id}@example.com`,
            password: 'Sup3r-secret!',
            firstName: 'A',
            lastName: 'B',
          }),
        ),
        createHandler(env)(post('198.51.100.32', { name: 'Ann', email: `slow-${id}@example.com`, message: 'Hi' })),
      ]);
      const elapsed = Date.now() - started;
      expect(signup.status).toBe(503);
      expect(await signup.json()).toEqual({ error: UNCHECKED_MESSAGE, code: 'temporarily_unavailable' });
      expect(contact.status).toBe(200);
      expect(elapsed).toBeGreaterThanOrEqual(4900);
      expect(elapsed).toBeLessThan(20_000);
    } finally {
      logged.mockRestore();
      await fault.close();
    }
  }, 30_000);

  test('with the whole database unreachable, the contact form answers its own sentence: no address, port or driver text', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const env = envFrom({ ...functionEnv(t.config), SUPABASE_URL: 'http://127.0.0.1:9' });
      const res = await createHandler(env)(
        post('198.51.100.33', { name: 'Ann', email: 'ann@example.com', message: 'Hi' }),
      );
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({
        error: 'Failed to send message. Please try again.',
        code: 'unexpected_failure',
      });
      expect(text).not.toMatch(INTERNAL);
      // The detail is in the function's log, where the operator reads it.
      expect(logged.mock.calls.map((c) => c.map(String).join(' ')).join('\n')).toMatch(/127\.0\.0\.1:9|fetch failed/);
    } finally {
      logged.mockRestore();
    }
  });
});

describe('public.rate_limit_hit', () => {
  test('concurrent hits are counted exactly: 5 of 20 allowed', async () => {
    const admin = t.admin<Database>();
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
    const admin = t.admin<Database>();
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
    const res = await t
      .admin<Database>()
      .rpc('rate_limit_hit', { bucket: 'b', key: 'k', max_hits: 0, window_seconds: 60 });
    expect(res.status).toBe(400);
    expect(res.error?.message).toBe('rate_limit_hit: max_hits and window_seconds must be at least 1');
  });
});
