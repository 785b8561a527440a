// The interface both databases answer (pglite.ts, postgres.ts) and the rest of the stack uses.
import type { PGlite } from '@electric-sql/pglite';

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
   * Runs `statements` in order in one transaction and returns each one's rows. A failing statement rolls
   * everything back and its error is thrown. Numbers may come as text. REST's path: on PGlite as prepared
   * statements, several batches per call; on PostgreSQL under the REST login (postgres.ts).
   */
  batch(statements: BatchStatement[], end: BatchEnd): Promise<Row[][]>;
  close(): Promise<void>;
  /** PostgreSQL: checks (and when needed sets the password of) the login REST uses; after the bootstrap. */
  prepareRestLogin?(): Promise<void>;
  /** The PGlite instance, for the wire-protocol socket; undefined on PostgreSQL. */
  pglite?: PGlite;
}
