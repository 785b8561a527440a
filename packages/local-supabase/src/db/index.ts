// One small interface over the two databases the stack runs on: PGlite (embedded) or any PostgreSQL.
import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import postgres from 'postgres';
import { isDatabaseUnavailable } from '../db-unavailable.ts';
import { WireConnection, wireTarget } from './pg-wire.ts';
import { type BatchReply, extendedBatch, PreparedStatements, readReplies, readReply, simpleQuery } from './wire.ts';

export type Row = Record<string, unknown>;

/** One statement of a batch: SQL with $1, $2, ... and its parameters as text. */
export interface BatchStatement {
  text: string;
  params?: readonly (string | null)[];
}

/**
 * How a batch's transaction ends: known before it runs, or decided from the statements' rows (a decision
 * that throws rolls back, and the error is the batch's).
 */
export type BatchEnd = 'commit' | 'rollback' | ((results: Row[][]) => 'commit' | 'rollback');

export interface Queryable {
  /** Runs one statement with bind parameters ($1, $2, ...) and returns its rows. */
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements, no parameters. */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `statements` in order in one transaction and returns each one's rows, in as few round trips as
   * the database allows (PGlite: one call when `end` is known before, two when it is decided from the
   * rows). A failing statement rolls everything back and its error is thrown. Numbers may come as text.
   */
  batch(statements: BatchStatement[], end: BatchEnd): Promise<Row[][]>;
  close(): Promise<void>;
  /** PostgreSQL: checks (and when needed sets the password of) the login REST uses; after the bootstrap. */
  prepareRestLogin?(): Promise<void>;
  /** The PGlite instance, for the wire-protocol socket; undefined on PostgreSQL. */
  pglite?: PGlite;
}

export async function openDb(options: { dataDir: string; databaseUrl?: string }): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir);
}

async function openPglite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir);
  const prepared = new PreparedStatements();
  // One lane: PGlite is one session, its calls under its own locks, as `transaction()` takes them.
  const lane: Lane = {
    prepared,
    call: (message) =>
      pg._runExclusiveTransaction(() =>
        pg._runExclusiveQuery(async () => {
          const answer = await pgliteCall(pg, message);
          await pg.syncToFs();
          return answer;
        }),
      ),
  };
  const committing = committingBatches([lane], (statements) => pgliteBatch(pg, prepared, statements, 'commit'));
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      return (await q.query<T>(sql, params)).rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    pglite: pg,
    ...wrap(pg),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    batch: (statements, end) =>
      end === 'commit' ? committing(statements) : pgliteBatch(pg, prepared, statements, end),
    close: () => pg.close(),
  };
}

/** One call into PGlite with `message`; the backend's bytes as they come (execProtocolRaw would also parse them). */
async function pgliteCall(pg: PGlite, message: Uint8Array): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await pg.execProtocolRawStream(message, { syncToFs: false, onRawData: (bytes) => chunks.push(bytes.slice()) });
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

/** The most batches that share one call. */
const MOST_BATCHES_PER_CALL = 32;

/**
 * Where committing batches run: a session with its prepared statements, and a call that sends messages
 * ending in `syncs` Syncs and answers the backend's bytes up to the last ReadyForQuery.
 */
interface Lane {
  prepared: PreparedStatements;
  call(message: Uint8Array, syncs: number): Promise<Uint8Array>;
}

/**
 * Batches that commit, run together: the batches waiting when a lane is free go in one call, each ended by
 * its own Sync, so each is still its own transaction (the protocol's implicit transaction: committed at its
 * Sync, or rolled back there if one of its statements failed, and the next batch starts afresh). One call
 * costs about as much as one short transaction, so under load this halves the database's work per request.
 * Between calls the event loop turns once, so requests that arrived meanwhile join the next call.
 * `alone` runs a batch by itself: after the session lost its prepared statements (26000).
 */
function committingBatches(lanes: Lane[], alone: (statements: BatchStatement[]) => Promise<Row[][]>) {
  interface Waiting {
    statements: BatchStatement[];
    resolve(rows: Row[][]): void;
    reject(err: unknown): void;
  }
  const queue: Waiting[] = [];
  const idle = [...lanes];
  let scheduled = false;

  async function runCall(lane: Lane, group: Waiting[]) {
    const inFlight = new Map<string, string>();
    const planned = group.map((w) => lane.prepared.plan(w.statements, inFlight));
    const close = lane.prepared.takeClosing();
    const messages = planned.map((p, i) => extendedBatch(p, i === 0 ? close : []));
    const message = messages.length === 1 ? (messages[0] as Uint8Array) : Buffer.concat(messages);
    const replies = readReplies(await lane.call(message, group.length));
    group.forEach((waiting, i) => {
      const reply = replies[i] as BatchReply | undefined;
      lane.prepared.record(planned[i] ?? [], reply?.parsed ?? 0);
      if (!reply) waiting.reject(new Error('The database answered fewer batches than it was sent'));
      else if (reply.error?.code === '26000') alone(waiting.statements).then(waiting.resolve, waiting.reject);
      else if (reply.error) waiting.reject(reply.error);
      else waiting.resolve(reply.results);
    });
  }

  function pump() {
    scheduled = false;
    while (idle.length && queue.length) {
      const lane = idle.shift() as Lane;
      const group = queue.splice(0, MOST_BATCHES_PER_CALL);
      runCall(lane, group)
        .catch((err) => {
          for (const waiting of group) waiting.reject(err);
        })
        .finally(() => {
          idle.push(lane);
          schedule();
        });
    }
  }

  function schedule() {
    if (scheduled || !queue.length || !idle.length) return;
    scheduled = true;
    setImmediate(pump);
  }

  return (statements: BatchStatement[]) =>
    new Promise<Row[][]>((resolve, reject) => {
      queue.push({ statements, resolve, reject });
      schedule();
    });
}

/**
 * A batch on PGlite on its own: its statements go to Postgres as one extended-protocol message sequence
 * ending in Sync, as named prepared statements (parsed once per SQL text). One that commits runs as the
 * protocol's implicit transaction (committed at the Sync, rolled back there if a statement failed); one that
 * rolls back, or whose end is decided from its rows, runs in an explicit block: BEGIN first, then ROLLBACK
 * in the same call, or COMMIT / ROLLBACK in a second one. Holds PGlite's transaction and query locks
 * throughout, as `transaction()` does.
 */
async function pgliteBatch(
  pg: PGlite,
  prepared: PreparedStatements,
  statements: BatchStatement[],
  end: BatchEnd,
  retry = true,
): Promise<Row[][]> {
  const implicit = end === 'commit';
  const first = implicit ? 0 : 1;
  const call = async (message: Uint8Array) => readReply(await pgliteCall(pg, message));
  const outcome = await pg._runExclusiveTransaction(() =>
    pg._runExclusiveQuery(async () => {
      const planned = prepared.plan(statements);
      if (!implicit) planned.unshift({ text: 'BEGIN' });
      if (end === 'rollback') planned.push({ text: 'ROLLBACK' });
      const reply = await call(extendedBatch(planned, prepared.takeClosing()));
      prepared.record(planned, reply.parsed);
      // After an error the server skipped the rest up to Sync; an explicit block is left failed (E).
      let failure: unknown = reply.error;
      let finish: 'commit' | 'rollback' = 'rollback';
      if (typeof end === 'function' && !failure) {
        try {
          finish = end(reply.results.slice(first));
        } catch (err) {
          failure = err;
        }
      }
      if (reply.status !== 'I') {
        const closing = await call(simpleQuery(finish === 'commit' && !failure ? 'COMMIT' : 'ROLLBACK'));
        if (closing.error && !failure) failure = closing.error;
      }
      await pg.syncToFs();
      return { failure, results: reply.results.slice(first, first + statements.length) };
    }),
  );
  if (outcome.failure) {
    // Another client of the session (the wire-protocol socket) dropped our prepared statements.
    if (retry && (outcome.failure as { code?: string }).code === '26000') {
      prepared.clear();
      return pgliteBatch(pg, prepared, statements, end, false);
    }
    throw outcome.failure;
  }
  return outcome.results;
}

/** The login REST uses on PostgreSQL, as PostgREST's: a member of anon, authenticated and service_role only. */
export const REST_LOGIN = 'authenticator';

/** `url` with the REST login as its user, same password, host and database. */
export function restLoginUrl(url: string): string {
  const parsed = new URL(url);
  const database =
    decodeURIComponent(parsed.pathname.slice(1)) ||
    decodeURIComponent(parsed.username) ||
    process.env.PGUSER ||
    'postgres';
  parsed.username = REST_LOGIN;
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

function postgresClient(url: string, max: number): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: {
      // A string bound to a json/jsonb parameter is JSON text already, as PGlite takes it
      // (postgres.js would otherwise store it as a JSON string literal).
      jsonText: {
        to: 114,
        from: [114, 3802],
        serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
        parse: (x: string) => JSON.parse(x),
      },
    },
  });
}

// In a transaction, `lost` takes a lost connection's error instead of the statement (see `transactionOn`).
function wrapPostgres(q: postgres.Sql | postgres.TransactionSql, lost?: (err: unknown) => void): Queryable {
  const run = async <T>(text: string, params?: unknown[]): Promise<T> => {
    try {
      return (await q.unsafe(text, params as postgres.ParameterOrJSON<never>[] | undefined)) as T;
    } catch (err) {
      if (!lost || !isDatabaseUnavailable(err)) throw err;
      lost(err);
      return new Promise<never>(() => {});
    }
  };
  return {
    query: <T>(text: string, params: unknown[] = []) => run<T[]>(text, params),
    async exec(text: string) {
      await run(text);
    },
  };
}

/**
 * Transactions on `sql`. When the connection is lost mid-transaction (the server stopped or restarted), the
 * failed statement stays pending instead of rejecting: postgres.js 3.4.9 answers a rejection in sql.begin
 * with a ROLLBACK on the closed connection, whose deferred write dereferences a null socket outside any
 * promise and ends the process (porsager/postgres#1208). sql.begin rejects by itself with CONNECTION_CLOSED
 * when the connection closes; should that never come, the transaction fails 10 s later with the statement's
 * error.
 */
function transactionOn(sql: postgres.Sql): Db['transaction'] {
  return (fn) => {
    let lost: (err: unknown) => void = () => {};
    const fallback = new Promise<never>((_, reject) => {
      lost = (err) => setTimeout(() => reject(err), 10_000).unref();
    });
    return Promise.race([
      sql.begin((tx) => fn(wrapPostgres(tx, lost))) as Promise<Awaited<ReturnType<typeof fn>>>,
      fallback,
    ]);
  };
}

async function openPostgres(url: string): Promise<Db> {
  const sql = postgresClient(url, 10);
  await sql`select 1`;
  const transaction = transactionOn(sql);
  // REST's batches run under the REST login (authenticator), not the DATABASE_URL user: SQL a request
  // reaches can become only the API roles, never the owner (checked by Postgres against the session user).
  const restUrl = restLoginUrl(url);
  const restSql = postgresClient(restUrl, 4);
  const restTransaction = transactionOn(restSql);
  // Batches that commit go over connections of their own that speak the protocol directly (pg-wire.ts), as
  // on PGlite: each batch one message sequence under one Sync, the batches waiting together in one write.
  const target = wireTarget(restUrl);
  const connections = target ? Array.from({ length: WIRE_CONNECTIONS }, () => new WireConnection(target)) : [];
  const lanes: Lane[] = connections.map((connection) => {
    const prepared = new PreparedStatements();
    // A new connection is a new session: none of the statements prepared on the old one exist there.
    connection.onLost = () => prepared.clear();
    return { prepared, call: (message, syncs) => connection.call(message, syncs) };
  });
  const committing = lanes.length
    ? committingBatches(lanes, (statements) => postgresBatch(restTransaction, statements, 'commit'))
    : undefined;
  return {
    kind: 'postgres',
    ...wrapPostgres(sql),
    transaction,
    batch: (statements, end) =>
      end === 'commit' && committing ? committing(statements) : postgresBatch(restTransaction, statements, end),
    async prepareRestLogin() {
      // After the bootstrap made the role a login: it signs in with DATABASE_URL's password (as the CLI's
      // authenticator shares the postgres password), set here when the server asks for one.
      try {
        await restSql`select 1`;
      } catch (err) {
        const password = new URL(url).password;
        if ((err as { code?: string }).code !== '28P01' || !password) {
          throw new Error(
            `REST signs in to PostgreSQL as "${REST_LOGIN}" (a login that can become only anon, authenticated and service_role): ${(err as Error).message}`,
          );
        }
        const [{ statement }] = await sql<{ statement: string }[]>`
          select format('alter role %I password %L', ${REST_LOGIN}::text, ${decodeURIComponent(password)}::text) as statement`;
        await sql.unsafe(statement);
        await restSql`select 1`;
      }
    },
    close: async () => {
      for (const connection of connections) connection.close();
      await Promise.all([sql.end({ timeout: 5 }), restSql.end({ timeout: 5 })]);
    },
  };
}

const ROLLBACK = new Error('rollback requested');

/** Connections for committing batches on PostgreSQL, beside postgres.js's pool of 10. */
const WIRE_CONNECTIONS = 4;

/**
 * The statements pipelined in one transaction (sent together, answered in order), under `transaction`'s guard:
 * on PostgreSQL, the batches that do not simply commit (and every batch when pg-wire.ts cannot connect the way
 * the URL asks). A faster form through postgres.js was measured and left: BEGIN … COMMIT pipelined on a
 * reserved connection as prepared statements (1,150 instead of 680 profile reads a second) loses requests when
 * the server restarts, since
 * postgres.js 3.4.9 keeps a reserved connection's not-yet-sent queries in a queue its close never rejects,
 * and a released closed connection can be written to; and a pipelined prepared statement dropped by
 * DEALLOCATE is retried by it without ever answering.
 */
async function postgresBatch(
  transaction: Db['transaction'],
  statements: BatchStatement[],
  end: BatchEnd,
): Promise<Row[][]> {
  let kept: Row[][] | undefined;
  try {
    return await transaction(async (tx) => {
      const results = await Promise.all(statements.map((s) => tx.query(s.text, [...(s.params ?? [])])));
      const finish = typeof end === 'string' ? end : end(results);
      if (finish === 'rollback') {
        kept = results;
        throw ROLLBACK;
      }
      return results;
    });
  } catch (err) {
    if (err === ROLLBACK && kept) return kept;
    throw err;
  }
}
