// Db on PostgreSQL through postgres.js: a pool as DATABASE_URL's user for the stack's own queries, and a
// smaller one as the REST login for Db.batch.
import postgres from 'postgres';
import { isDatabaseUnavailable } from '../db-unavailable.ts';
import type { BatchEnd, BatchStatement, Db, Queryable, Row } from './types.ts';

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

/**
 * How long postgres.js waits before reopening a connection that failed, in seconds. Its default grows with each
 * failed attempt across the pool, to 10-20 s after seven (a restart under load makes a dozen), and a request
 * given such a connection waited that long (13-17 s seen) for its 503 or its answer. Short and fixed, a request
 * during an outage gets its 503 at once, and the first one after it reconnects.
 */
const RECONNECT_DELAY_S = 0.1;

function postgresClient(url: string, max: number, fetchTypes = true): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    fetch_types: fetchTypes,
    backoff: () => RECONNECT_DELAY_S,
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

/** Connections of the pool for the stack's own queries, and of REST's. */
export const MAIN_POOL_SIZE = 10;
export const REST_POOL_SIZE = 8;

/**
 * Whether `err` is an earlier statement's error, replayed onto one that was never sent. When the server ends a
 * connection during a statement (57P01 on a restart, 57P02), postgres.js 3.4.9 keeps that error and rejects
 * the first statement of the connection's next session with it, unsent (porsager/postgres#1223): after a
 * restart, whichever request next used such a connection got a 503 from a healthy database. Sending it again
 * is safe: the driver hands such a FATAL error only to statements not yet sent (one under way when the
 * connection ends gets CONNECTION_CLOSED instead), and the replay leaves that connection clean.
 */
function replayed(err: unknown): boolean {
  return err instanceof postgres.PostgresError && (err.code === '57P01' || err.code === '57P02');
}

/**
 * Statements on `q`. On a pool, one rejected with a replayed error is sent again, `tries` times at most (one
 * per connection the pool has, plus one). In a transaction, `lost` takes a lost connection's error instead of
 * the statement (see `transactionOn`).
 */
function wrap(q: postgres.Sql | postgres.TransactionSql, tries: number, lost?: (err: unknown) => void): Queryable {
  const run = async <T>(text: string, params?: unknown[]): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await q.unsafe(text, params as postgres.ParameterOrJSON<never>[] | undefined)) as T;
      } catch (err) {
        if (attempt < tries && replayed(err)) continue;
        if (!lost || !isDatabaseUnavailable(err)) throw err;
        lost(err);
        return new Promise<never>(() => {});
      }
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
 * Transactions on `sql` (sql.begin). Works around porsager/postgres#1208 (postgres.js 3.4.9): a statement
 * that rejects because the connection was lost makes sql.begin send a ROLLBACK on the closed connection,
 * whose deferred write dereferences a null socket outside any promise and ends the process. So such a
 * statement stays pending instead: sql.begin rejects by itself with CONNECTION_CLOSED when the connection
 * closes, and should that never come, the transaction fails 10 s later with the statement's error.
 * A transaction whose BEGIN got a replayed error (see `replayed`) is tried again, `tries` times at most:
 * `fn` has not run yet.
 */
function transactionOn(sql: postgres.Sql, tries: number): Db['transaction'] {
  return async (fn) => {
    for (let attempt = 1; ; attempt++) {
      let started = false;
      let lost: (err: unknown) => void = () => {};
      const fallback = new Promise<never>((_, reject) => {
        lost = (err) => setTimeout(() => reject(err), 10_000).unref();
      });
      const run = sql.begin((tx) => {
        started = true;
        return fn(wrap(tx, 1, lost));
      }) as Promise<Awaited<ReturnType<typeof fn>>>;
      try {
        return await Promise.race([run, fallback]);
      } catch (err) {
        if (started || attempt >= tries || !replayed(err)) throw err;
      }
    }
  };
}

const ROLLBACK = new Error('rollback requested');

/** The statements of a batch in one transaction, sent together (postgres.js pipelines them) and answered in order. */
async function batchOn(transaction: Db['transaction'], statements: BatchStatement[], end: BatchEnd): Promise<Row[][]> {
  let kept: Row[][] | undefined;
  try {
    return await transaction(async (tx) => {
      const results = await Promise.all(statements.map((s) => tx.query(s.text, [...(s.params ?? [])])));
      if ((typeof end === 'string' ? end : end(results)) === 'rollback') {
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

export async function openPostgres(url: string): Promise<Db> {
  const sql = postgresClient(url, MAIN_POOL_SIZE);
  // postgres.js reads the server's array types (pg_type) on a new connection before its first query. If the
  // server goes away during that read, the rejection is one nobody can catch and it ends the process
  // (porsager/postgres#1192, #1223). So it reads them once, here, on the first connection, whose failure
  // fails the start; the driver keeps them for every later connection, which skips the read.
  await sql`select 1`;
  sql.options.fetch_types = false;
  // REST's batches run under the REST login (authenticator), not the DATABASE_URL user: SQL a request
  // reaches can become only the API roles, never the owner (checked by Postgres against the session user).
  // They bind and read no arrays: that pool never reads the types.
  const restSql = postgresClient(restLoginUrl(url), REST_POOL_SIZE, false);
  const restTransaction = transactionOn(restSql, REST_POOL_SIZE + 1);
  return {
    kind: 'postgres',
    ...wrap(sql, MAIN_POOL_SIZE + 1),
    transaction: transactionOn(sql, MAIN_POOL_SIZE + 1),
    batch: (statements, end) => batchOn(restTransaction, statements, end),
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
    close: () => Promise.all([sql.end({ timeout: 5 }), restSql.end({ timeout: 5 })]).then(() => {}),
  };
}
