// One small interface over the two databases the stack runs on: PGlite (embedded) or any PostgreSQL.
import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import postgres from 'postgres';
import { isDatabaseUnavailable } from '../db-unavailable.ts';

export type Row = Record<string, unknown>;

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
  close(): Promise<void>;
  /** The PGlite instance, for the wire-protocol socket; undefined on PostgreSQL. */
  pglite?: PGlite;
}

export async function openDb(options: { dataDir: string; databaseUrl?: string }): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir);
}

async function openPglite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir);
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
    close: () => pg.close(),
  };
}

async function openPostgres(url: string): Promise<Db> {
  const sql = postgres(url, {
    max: 10,
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
  // In a transaction, `lost` takes a lost connection's error instead of the statement (see `transaction`).
  const wrap = (q: postgres.Sql | postgres.TransactionSql, lost?: (err: unknown) => void): Queryable => {
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
  };
  await sql`select 1`;
  return {
    kind: 'postgres',
    ...wrap(sql),
    // When the connection is lost mid-transaction (the server stopped or restarted), the failed statement
    // stays pending instead of rejecting: postgres.js 3.4.9 answers a rejection in sql.begin with a ROLLBACK
    // on the closed connection, whose deferred write dereferences a null socket outside any promise and ends
    // the process (porsager/postgres#1208). sql.begin rejects by itself with CONNECTION_CLOSED when the
    // connection closes; should that never come, the transaction fails 10 s later with the statement's error.
    transaction: (fn) => {
      let lost: (err: unknown) => void = () => {};
      const fallback = new Promise<never>((_, reject) => {
        lost = (err) => setTimeout(() => reject(err), 10_000).unref();
      });
      return Promise.race([sql.begin((tx) => fn(wrap(tx, lost))) as Promise<Awaited<ReturnType<typeof fn>>>, fallback]);
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
