// The database goes away under the stack: its PostgreSQL server is stopped, then started, then restarted
// (pg_ctl -m fast) while clients read and write through REST and auth. What a client sees: every request
// that fails is a 503 with a JSON error body (PostgREST's PGRST001, GoTrue's error shape) that names no
// host or port, the stack does not crash, and once the server is back requests succeed without restarting
// the stack. No assertion depends on how long anything takes: the test waits for conditions (load running,
// every kind of request succeeding again), each bounded by a generous deadline.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startThrowawayCluster, type ThrowawayCluster } from '../../testing/pg-cluster.ts';
import { startTestStack, type TestStack, until } from '../../testing/stack.ts';

const template = inject('template');
const PASSWORD = 'Sup3r-secret!';
/**
 * A request still unanswered after this is a hang: it ends as status 0, which no check accepts. Generous: a
 * request that meets the restart can take many seconds to be answered.
 */
const HANG_MS = 60_000;
/** How long the stack may take to serve again once the server accepts connections: a deadline, not a window. */
const RECOVERY_MS = 60_000;

interface Outcome {
  kind: string;
  status: number;
  body: unknown;
  /** The Retry-After header, when the answer has one. */
  retryAfter: string | null;
  /** When the request was sent (Date.now()), to tell requests sent after the restart from the others. */
  at: number;
}

// PGlite runs inside the stack's own process: there is no server to restart. This is PostgreSQL's case.
describe.skipIf(template.kind !== 'postgres')('PostgreSQL restarted under the stack', () => {
  let cluster: ThrowawayCluster;
  let t: TestStack;
  const email = `restart-${randomUUID().slice(0, 8)}@example.com`;
  let accessToken = '';

  beforeAll(async () => {
    // A cluster of its own: restarting the run's shared server would break the test files beside this one.
    cluster = await startThrowawayCluster();
    t = await startTestStack({ databaseUrl: cluster.url });
    const { error } = await t.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    expect(error).toBeNull();
    const { data, error: signInError } = await t.anon().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signInError).toBeNull();
    accessToken = data.session?.access_token ?? '';
  }, 120_000);

  afterAll(async () => {
    await t?.stop();
    await cluster?.stop();
  });

  async function call(kind: string, path: string, init: RequestInit & { key?: string; token?: string } = {}) {
    const key = init.key ?? t.config.anonKey;
    const at = Date.now();
    try {
      const res = await fetch(`${t.url}${path}`, {
        ...init,
        headers: {
          apikey: key,
          Authorization: `Bearer ${init.token ?? key}`,
          'Content-Type': 'application/json',
          ...init.headers,
        },
        signal: AbortSignal.timeout(HANG_MS),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Not JSON: kept as text, which the checks below refuse for an error.
      }
      return { kind, status: res.status, body, retryAfter: res.headers.get('retry-after'), at } satisfies Outcome;
    } catch (err) {
      return { kind, status: 0, body: String(err), retryAfter: null, at } satisfies Outcome;
    }
  }

  /** One request of each kind the site makes: a member's REST read, a REST write, a sign-in, a user read. */
  const requests = {
    restRead: () => call('restRead', `/rest/v1/profiles?select=email`, { token: accessToken }),
    restWrite: () =>
      call('restWrite', '/rest/v1/contact_messages', {
        method: 'POST',
        key: t.config.serviceRoleKey,
        headers: { Prefer: 'return=minimal' },
        body: JSON.stringify({ name: 'Restart', email, subject: 'Outage', message: `row ${randomUUID()}` }),
      }),
    signIn: () =>
      call('signIn', '/auth/v1/token?grant_type=password', {
        method: 'POST',
        headers: { 'X-Supabase-Api-Version': '2024-01-01' },
        body: JSON.stringify({ email, password: PASSWORD }),
      }),
    getUser: () =>
      call('getUser', '/auth/v1/user', { token: accessToken, headers: { 'X-Supabase-Api-Version': '2024-01-01' } }),
  };
  const okStatus: Record<string, number> = { restRead: 200, restWrite: 201, signIn: 200, getUser: 200 };

  const everyKind = () => Promise.all(Object.values(requests).map((r) => r()));
  const succeeded = (o: Outcome) => o.status === okStatus[o.kind];
  const seen = (o: Outcome) => `${o.kind}: ${o.status} ${JSON.stringify(o.body)}`;

  /** A failure as a client should see it: 503, a JSON error in the service's shape, nothing about the server. */
  function expectClean(outage: Outcome) {
    expect(outage.status, seen(outage)).toBe(503);
    // supabase-js waits Retry-After seconds before its retry, so when present it must be delta-seconds.
    if (outage.retryAfter !== null) expect(outage.retryAfter, seen(outage)).toMatch(/^\d+$/);
    if (outage.kind.startsWith('rest')) {
      expect(outage.body).toMatchObject({ code: expect.stringMatching(/^(PGRST00[0-2]|57P0[1-3])$/) });
      expect(outage.body).toHaveProperty('message', expect.any(String));
      expect(outage.body).toHaveProperty('details');
      expect(outage.body).toHaveProperty('hint');
      // The driver's message (`connect ECONNREFUSED 127.0.0.1:<port>`) goes to the log, not to the client.
      const port = new URL(cluster.url).port;
      expect(JSON.stringify(outage.body)).not.toMatch(new RegExp(`ECONN|127\\.0\\.0\\.1|localhost|${port}`));
    } else {
      expect(outage.body).toEqual({ code: 'unexpected_failure', message: expect.any(String) });
    }
  }

  /**
   * Once the server is back: sends a round of every kind until one round succeeds whole, each failure on
   * the way a clean 503 (a pooled connection the restart ended can fail one request), then checks that the
   * next round succeeds too.
   */
  async function expectRecovered(): Promise<void> {
    await until(
      'every kind of request to succeed after the server came back',
      async () => {
        const round = await everyKind();
        for (const o of round.filter((o) => !succeeded(o))) expectClean(o);
        return round.every(succeeded) ? true : undefined;
      },
      RECOVERY_MS,
      50,
    );
    for (const ok of await everyKind()) expect(ok.status, seen(ok)).toBe(okStatus[ok.kind]);
  }

  test('server stopped: REST and auth answer clean 503s; started again: they work, the stack unrestarted', async () => {
    for (const ok of await everyKind()) expect(ok.status, seen(ok)).toBe(okStatus[ok.kind]);

    await cluster.stopServer();
    // The server is down (pg_ctl waited for it): every request fails, each cleanly, none hangs.
    const during = await everyKind();
    for (const outage of during) expectClean(outage);
    // PostgREST's own words for a database it cannot reach.
    expect(during[0].body).toMatchObject({
      code: 'PGRST001',
      message: 'Database client error. Retrying the connection.',
      details: 'no connection to the server',
      hint: null,
    });
    expect((await fetch(`${t.url}/auth/v1/health`)).status).toBe(200);

    await cluster.startServer();
    await expectRecovered();
  }, 240_000);

  test('pg_ctl restart -m fast under load: failures are clean 503s, then everything succeeds again', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (offset: number) => {
      const kinds = Object.values(requests);
      for (let i = offset; running; i++) outcomes.push(await kinds[i % kinds.length]());
    };
    const workers = Array.from({ length: 6 }, (_, i) => worker(i));
    try {
      // Load is running: every kind has been answered with success at least once before the restart.
      await until(
        'every kind of request to succeed under load',
        async () =>
          Object.keys(okStatus).every((k) => outcomes.some((o) => o.kind === k && succeeded(o))) ? true : undefined,
        RECOVERY_MS,
        20,
      );
      await cluster.restart();
      const backAt = Date.now();
      // The workers keep going until each kind, sent after pg_ctl said the server was back, has succeeded.
      await until(
        'every kind of request sent after the restart to succeed',
        async () =>
          Object.keys(okStatus).every((k) => outcomes.some((o) => o.kind === k && o.at >= backAt && succeeded(o)))
            ? true
            : undefined,
        RECOVERY_MS,
        20,
      );
    } finally {
      running = false;
      await Promise.all(workers);
    }

    // What the clients saw: success, or a clean 503; and the restart did cut some requests off.
    const failures = outcomes.filter((o) => !succeeded(o));
    for (const o of failures) expectClean(o);
    expect(failures.length, 'requests that met the restart').toBeGreaterThan(0);
    // After the restart, without restarting the stack, every kind succeeds.
    await expectRecovered();
    // And the contact form works end to end again: its function stores through REST and mails.
    const { data, error } = await t.anon().functions.invoke('send-contact-email', {
      body: { name: 'Back', email, subject: 'After the restart', message: 'Stored and sent' },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
  }, 240_000);
});
