// The database goes away under the stack: its PostgreSQL server is stopped, then started, then restarted
// (pg_ctl -m fast) while clients read and write through REST and auth. During the outage every request
// is answered quickly with a 503 and a JSON error body (PostgREST's PGRST001, GoTrue's error shape), the
// stack does not crash, and once the server is back requests succeed without restarting the stack.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startThrowawayCluster, type ThrowawayCluster } from '../../testing/pg-cluster.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

const template = inject('template');
const PASSWORD = 'Sup3r-secret!';
/** Far above any answer the stack gives, so a hang shows as status 0 instead of a stuck test. */
const HANG_MS = 20_000;

interface Outcome {
  kind: string;
  status: number;
  body: unknown;
  ms: number;
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
    const started = Date.now();
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
      return { kind, status: res.status, body, ms: Date.now() - started, at: started } satisfies Outcome;
    } catch (err) {
      return { kind, status: 0, body: String(err), ms: Date.now() - started, at: started } satisfies Outcome;
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

  function expectClean(outage: Outcome) {
    expect(outage.status, `${outage.kind}: ${JSON.stringify(outage.body)}`).toBe(503);
    expect(outage.ms).toBeLessThan(HANG_MS);
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

  test('server stopped: REST and auth answer 503 with a JSON error at once; started again: they work', async () => {
    for (const ok of await everyKind()) expect(ok.status, ok.kind).toBe(okStatus[ok.kind]);

    await cluster.stopServer();
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
    // The same stack, no restart: the first requests after the server is back succeed.
    for (const ok of await everyKind())
      expect(ok.status, `${ok.kind}: ${JSON.stringify(ok.body)}`).toBe(okStatus[ok.kind]);
  }, 120_000);

  test('pg_ctl restart -m fast under load: failures are clean 503s, then everything succeeds again', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (offset: number) => {
      const kinds = Object.values(requests);
      for (let i = offset; running; i++) outcomes.push(await kinds[i % kinds.length]());
    };
    const workers = Array.from({ length: 6 }, (_, i) => worker(i));
    await new Promise((r) => setTimeout(r, 500));
    const restartAt = Date.now();
    await cluster.restart();
    const backAt = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await Promise.all(workers);

    expect(outcomes.length).toBeGreaterThan(8);
    for (const o of outcomes) {
      if (o.status === okStatus[o.kind]) continue;
      expectClean(o);
      // A failure belongs to the outage: it started before the server was back.
      const seen = `${o.kind} ${o.status} ${JSON.stringify(o.body)}`;
      expect(o.at, seen).toBeLessThan(backAt);
      expect(o.at + o.ms, seen).toBeGreaterThanOrEqual(restartAt);
    }
    // After the restart, without restarting the stack, every kind succeeds.
    for (const ok of await everyKind())
      expect(ok.status, `${ok.kind}: ${JSON.stringify(ok.body)}`).toBe(okStatus[ok.kind]);
    // And the contact form works end to end again: its function stores through REST and mails.
    const { data, error } = await t.anon().functions.invoke('send-contact-email', {
      body: { name: 'Back', email, subject: 'After the restart', message: 'Stored and sent' },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
  }, 120_000);
});
