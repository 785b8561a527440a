// Db on PostgreSQL through postgres.js: a pool as DATABASE_URL's user for the stack's own queries, and a
// smaller one as the REST login for Db.batch.
import postgres from 'postgres';
import { isDatabaseUnavailable } from '../db-unavailable.ts';
import type { BatchEnd, BatchStatement, Db, Queryable, Row } from './index.ts';

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

function postgresClient(url: string, max: number, fetchTypes = true): postgres.Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    fetch_types: fetchTypes,
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
function wrap(q: postgres.Sql | postgres.TransactionSql, lost?: (err: unknown) => void): Queryable {
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
 * Transactions on `sql` (sql.begin). Works around porsager/postgres#1208 (postgres.js 3.4.9): a statement
 * that rejects because the connection was lost makes sql.begin send a ROLLBACK on the closed connection,
 * whose deferred write dereferences a null socket outside any promise and ends the process. So such a
 * statement stays pending instead: sql.begin rejects by itself with CONNECTION_CLOSED when the connection
 * closes, and should that never come, the transaction fails 10 s later with the statement's error.
 */
function transactionOn(sql: postgres.Sql): Db['transaction'] {
  return (fn) => {
    let lost: (err: unknown) => void = () => {};
    const fallback = new Promise<never>((_, reject) => {
      lost = (err) => setTimeout(() => reject(err), 10_000).unref();
    });
    return Promise.race([sql.begin((tx) => fn(wrap(tx, lost))) as Promise<Awaited<ReturnType<typeof fn>>>, fallback]);
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
  const sql = postgresClient(url, 10);
  await sql`select 1`;
  // REST's batches run under the REST login (authenticator), not the DATABASE_URL user: SQL a request
  // reaches can become only the API roles, never the owner (checked by Postgres against the session user).
  // Without postgres.js's array-type query on each new connection: if the server goes away while it runs,
  // its rejection is unhandled and ends the process (porsager/postgres#1192), and REST's batches bind and
  // read no arrays. The other pool, whose queries do, keeps it.
  const restSql = postgresClient(restLoginUrl(url), 8, false);
  const restTransaction = transactionOn(restSql);
  return {
    kind: 'postgres',
    ...wrap(sql),
    transaction: transactionOn(sql),
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
