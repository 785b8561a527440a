// PostgreSQL ends connections of the stack's pools as they send their first statement: what a restart does
// to connections opened just before it. Each request that carried such a statement fails as a clean 503,
// nothing escapes as an uncaught rejection (which would end the stack's process, as it ends `npm start`), and
// once the server lets connections be, the very next requests succeed, even on the connections it ended. The
// server really ends them (pg_terminate_backend); a proxy between the stack and the server only holds the
// first statement back until it has.
import { randomUUID } from 'node:crypto';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { MAIN_POOL_SIZE, REST_POOL_SIZE } from '../../src/db/postgres.ts';
import { startThrowawayCluster, type ThrowawayCluster } from '../../testing/pg-cluster.ts';
import { startTestStack, type TestStack, until } from '../../testing/stack.ts';

const template = inject('template');
const PASSWORD = 'Sup3r-secret!';
/** Generous: a request that meets an ended connection is answered within milliseconds. */
const HANG_MS = 20_000;
/** The stack's own login (DATABASE_URL's user), which runs auth's statements, and REST's. */
const MAIN_USER = 'postgres';
const REST_USER = 'authenticator';

/** A TCP proxy in front of the cluster that has the server end chosen connections at their first statement. */
interface EndingProxy {
  port: number;
  /** The next `count` connections that log in as `user` are ended when their first statement arrives. */
  end(user: string, count: number): void;
  /** How many connections of each user were ended so. */
  ended: Record<string, number>;
  /** Failures of the proxy's own pg_terminate_backend calls. */
  errors: unknown[];
  close(): Promise<void>;
}

/** The parameters of a StartupMessage (length, protocol 3.0, then name/value pairs), or undefined. */
function startupParams(msg: Buffer): Record<string, string> | undefined {
  if (msg.length < 8 || msg.readInt32BE(4) !== 196608) return undefined;
  const parts = msg.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params[parts[i]] = parts[i + 1];
  return params;
}

async function startEndingProxy(upstreamPort: number, admin: postgres.Sql): Promise<EndingProxy> {
  const toEnd: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let user: string | undefined;
    let pid = 0;
    let ready = false;
    let doomed = false;
    let startup: Buffer | undefined = Buffer.alloc(0);
    let fromServer = Buffer.alloc(0);
    client.on('data', (chunk) => {
      if (startup) {
        // The StartupMessage, which names the user, comes first and has no type byte.
        startup = Buffer.concat([startup, chunk]);
        if (startup.length >= 4 && startup.length >= startup.readInt32BE(0)) {
          user = startupParams(startup)?.user;
          if (user && toEnd[user] > 0) {
            toEnd[user]--;
            doomed = true;
          }
          startup = undefined;
        }
        upstream.write(chunk);
        return;
      }
      if (!doomed || !ready) {
        upstream.write(chunk);
        return;
      }
      // The connection's first statement: held back while the server ends the connection, then dropped.
      doomed = false;
      proxy.ended[user ?? ''] = (proxy.ended[user ?? ''] ?? 0) + 1;
      admin`select pg_catalog.pg_terminate_backend(${pid})`.then(
        () => {},
        (err) => proxy.errors.push(err),
      );
    });
    upstream.on('data', (chunk) => {
      // Server messages: a type byte and a length; BackendKeyData (K) names the backend, ReadyForQuery (Z)
      // ends the login.
      if (!ready) {
        fromServer = Buffer.concat([fromServer, chunk]);
        while (fromServer.length >= 5 && fromServer.length >= 1 + fromServer.readInt32BE(1)) {
          const type = String.fromCharCode(fromServer[0]);
          if (type === 'K') pid = fromServer.readInt32BE(5);
          if (type === 'Z') ready = true;
          fromServer = fromServer.subarray(1 + fromServer.readInt32BE(1));
        }
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on('close', close).on('error', close);
    client.on('close', close).on('error', close);
  });
  const proxy: EndingProxy = {
    port: 0,
    ended: {},
    errors: [],
    end(user, count) {
      toEnd[user] = count;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as { port: number }).port;
  return proxy;
}

interface Outcome {
  kind: string;
  status: number;
  body: unknown;
}

// PGlite runs inside the stack's own process: no server can end its connections. This is PostgreSQL's case.
describe.skipIf(template.kind !== 'postgres')('PostgreSQL ends new pooled connections at their first statement', () => {
  let cluster: ThrowawayCluster;
  let admin: postgres.Sql;
  let proxy: EndingProxy;
  let t: TestStack;
  const email = `pool-${randomUUID().slice(0, 8)}@example.com`;
  let accessToken = '';
  const uncaught: unknown[] = [];
  const onUnhandled = (reason: unknown) => uncaught.push(reason);

  beforeAll(async () => {
    // A cluster of its own: ending its connections would break the test files beside this one.
    cluster = await startThrowawayCluster();
    admin = postgres(cluster.url, { max: 1, fetch_types: false, onnotice: () => {} });
    proxy = await startEndingProxy(Number(new URL(cluster.url).port), admin);
    const url = new URL(cluster.url);
    url.port = String(proxy.port);
    // Without the timers and Realtime's LISTEN connection (which reconnects by itself when ended), only this test's
    // requests open connections as the stack's users. Realtime over a restart: realtime.test.ts.
    t = await startTestStack({ databaseUrl: url.toString(), cron: { '*': 0 }, realtime: false });
    const { error } = await t.admin().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    expect(error).toBeNull();
    const { data, error: signInError } = await t.anon().auth.signInWithPassword({ email, password: PASSWORD });
    expect(signInError).toBeNull();
    accessToken = data.session?.access_token ?? '';
    process.on('unhandledRejection', onUnhandled);
  }, 120_000);

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await t?.stop();
    await proxy?.close();
    await admin?.end();
    await cluster?.stop();
  });

  async function call(kind: string, path: string): Promise<Outcome> {
    const res = await fetch(`${t.url}${path}`, {
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${accessToken}` },
      // A request unanswered after this is a hang, and fails the test.
      signal: AbortSignal.timeout(HANG_MS),
    });
    return { kind, status: res.status, body: (await res.json()) as unknown };
  }
  /** A user read (auth, on the stack's own pool) and a member's REST read (on REST's pool). */
  const getUser = () => call('getUser', '/auth/v1/user');
  const restRead = () => call('restRead', '/rest/v1/profiles?select=email');

  /** A failure as a client should see it: 503, in GoTrue's or PostgREST's shape. */
  function expectClean(o: Outcome) {
    if (o.status === 200) return;
    expect(o, JSON.stringify(o)).toEqual(
      o.kind === 'getUser'
        ? {
            kind: 'getUser',
            status: 503,
            body: { code: 503, error_code: 'unexpected_failure', msg: expect.any(String) },
          }
        : {
            kind: 'restRead',
            status: 503,
            body: { code: 'PGRST001', message: expect.any(String), details: expect.any(String), hint: null },
          },
    );
  }

  /** The server ends every connection the stack holds, so the next requests need new ones. */
  async function endEveryConnection() {
    await admin`
      select pg_catalog.pg_terminate_backend(pid) from pg_catalog.pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_catalog.pg_backend_pid()`;
  }

  test('a new connection ended at its first statement: a clean 503, nothing left uncaught', async () => {
    expect(await getUser()).toMatchObject({ status: 200, body: { email } });

    proxy.end(MAIN_USER, 1);
    await endEveryConnection();
    const seen: Outcome[] = [];
    // A request can still meet a connection the stack has not yet seen closed: it fails, and the next opens one.
    await until('a new connection of the stack to be ended at its first statement', async () => {
      seen.push(await getUser());
      return proxy.ended[MAIN_USER] === 1 ? true : undefined;
    });
    for (const o of seen) expectClean(o);
    expect(proxy.errors).toEqual([]);
    expect(seen.at(-1)?.status, 'the request whose connection was ended').toBe(503);

    await until('a user read to succeed again', async () => ((await getUser()).status === 200 ? true : undefined));
    const { error } = await t.anon().auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(uncaught, 'rejections nothing caught').toEqual([]);
  }, 60_000);

  /**
   * Has the server end each of the pool's connections once, during its first statement, sending `request`
   * one at a time: each takes the connection closed longest, so none is ended twice.
   */
  async function endEveryConnectionOf(user: string, poolSize: number, request: () => Promise<Outcome>) {
    await endEveryConnection();
    proxy.ended[user] = 0;
    proxy.end(user, poolSize);
    const seen: Outcome[] = [];
    await until(
      `every connection of ${user}'s pool to be ended at its first statement`,
      async () => {
        if (proxy.ended[user] >= poolSize) return true;
        seen.push(await request());
        return undefined;
      },
      30_000,
      0,
    );
    for (const o of seen) expectClean(o);
    expect(proxy.errors).toEqual([]);
  }

  test('every connection of both pools ended during a statement: the next requests succeed at once', async () => {
    // REST's pool first: its requests use the stack's own pool too, which the user read then leaves alone.
    await endEveryConnectionOf(REST_USER, REST_POOL_SIZE, restRead);
    await endEveryConnectionOf(MAIN_USER, MAIN_POOL_SIZE, getUser);

    // The server lets connections be now: the first requests on those connections succeed.
    expect(await getUser()).toMatchObject({ status: 200, body: { email } });
    expect(await restRead()).toMatchObject({ status: 200, body: [{ email }] });
    const { error } = await t.anon().auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(uncaught, 'rejections nothing caught').toEqual([]);
  }, 60_000);
});
