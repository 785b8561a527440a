// Db on PGlite through its public API. query, exec and transaction are PGlite's own. batch, REST's path (a
// request's settings, then its statement), sends extended-protocol messages made by PGlite's serializer
// through execProtocolStream, for two things query() cannot do:
// - a statement parsed once per SQL text and kept as a named prepared statement: query() parses each time,
//   which for REST's statements costs several times their execution;
// - the committing batches that wait together sent in one call, each ending in its own Sync, so each is
//   still its own transaction (the protocol's implicit one: committed at its Sync, or rolled back there if
//   one of its statements failed, and the next batch starts afresh).
// (execProtocolStream rather than execProtocol: the latter reads nothing in the call after one of the
// wire-protocol socket's, whose execProtocolRawStream leaves its own data callback in place.)
import { mkdirSync } from 'node:fs';
import { Mutex, type messages, PGlite, parse, protocol, type Transaction } from '@electric-sql/pglite';
import type { BatchEnd, BatchStatement, Db, Queryable, Row } from './types.ts';

/** The most batches that share one call. */
const MOST_BATCHES_PER_CALL = 32;
/** The most prepared statements kept (the most recently used). */
const MOST_PREPARED = 256;

/** A statement as sent: parsed first under `name` ('' the unnamed statement) when `parse`, else bound to `name`. */
interface Planned {
  text: string;
  params: readonly (string | null)[];
  name: string;
  parse: boolean;
}

/** What the messages up to one Sync answered. */
interface Reply {
  /** The rows of each statement that completed, in order. */
  results: Row[][];
  /** How many Parse messages succeeded: the first ones sent (after an error the server skips the rest). */
  parsed: number;
  error?: messages.DatabaseError;
  /** ReadyForQuery's transaction status: I idle, T in a transaction block, E in a failed one. */
  status: string;
}

const plain = (text: string): Planned => ({ text, params: [], name: '', parse: true });

/**
 * The session's prepared statements by SQL text, so Postgres parses and analyses a request's shape once
 * (its plan cache re-plans them after a schema change or for another role).
 */
class PreparedStatements {
  /** Names by SQL text, the least recently used first. */
  readonly #names = new Map<string, string>();
  #closing: string[] = [];
  #counter = 0;

  /**
   * `statements` as sent: bound to a prepared statement, or parsed under a new name. `inCall` holds the texts
   * that an earlier batch of the same call parses under a new name: a later batch parses such a text again
   * as the unnamed statement, since the earlier Parse is skipped when that batch fails before it.
   */
  plan(statements: BatchStatement[], inCall = new Set<string>()): Planned[] {
    const fresh = new Map<string, string>();
    return statements.map(({ text, params = [] }) => {
      const name = fresh.get(text) ?? this.#names.get(text);
      if (name !== undefined) {
        if (this.#names.delete(text)) this.#names.set(text, name);
        return { text, params, name, parse: false };
      }
      if (inCall.has(text)) return { text, params, name: '', parse: true };
      const created = `signals_${++this.#counter}`;
      fresh.set(text, created);
      inCall.add(text);
      return { text, params, name: created, parse: true };
    });
  }

  /** Keeps the named statements whose Parse succeeded: the first `parsed` of those sent with one. */
  record(planned: Planned[], parsed: number): void {
    let left = parsed;
    for (const s of planned) {
      if (!s.parse) continue;
      if (left-- <= 0) break;
      if (s.name) this.#names.set(s.text, s.name);
    }
    while (this.#names.size > MOST_PREPARED) {
      const [text, name] = this.#names.entries().next().value as [string, string];
      this.#names.delete(text);
      this.#closing.push(name);
    }
  }

  /** The statements evicted since the last call, to Close at the start of the next. */
  takeClosing(): string[] {
    const closing = this.#closing;
    this.#closing = [];
    return closing;
  }

  /** Forgets every statement: the session lost them (DEALLOCATE ALL from a client of the wire-protocol socket). */
  clear(): void {
    this.#names.clear();
    this.#closing = [];
  }
}

const { serialize } = protocol;
const DESCRIBE = serialize.describe({ type: 'P' });
const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

/** Parse (when new), Bind with text parameters, Describe and Execute for each statement, then Sync. */
function encode(planned: Planned[], out: Uint8Array[]): void {
  for (const s of planned) {
    if (s.parse) out.push(serialize.parse({ name: s.name, text: s.text }));
    out.push(serialize.bind({ statement: s.name, values: s.params as (string | null)[] }), DESCRIBE, EXECUTE);
  }
  out.push(SYNC);
}

/** The backend's messages of a call, one Reply per ReadyForQuery; rows typed by PGlite's parsers, as query() types them. */
function repliesOf(backend: messages.BackendMessage[], parsers: PGlite['parsers']): Reply[] {
  const replies: Reply[] = [];
  let part: messages.BackendMessage[] = [];
  let parsed = 0;
  let error: messages.DatabaseError | undefined;
  for (const message of backend) {
    if (message.name === 'parseComplete') parsed += 1;
    else if (message.name === 'error') error ??= message as messages.DatabaseError;
    else if (message.name === 'readyForQuery') {
      const results = error ? [] : parse.parseResults(part, parsers).map((r) => r.rows as Row[]);
      replies.push({ results, parsed, error, status: (message as messages.ReadyForQueryMessage).status });
      part = [];
      parsed = 0;
      error = undefined;
    } else part.push(message);
  }
  return replies;
}

export async function openPglite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir);
  const prepared = new PreparedStatements();
  // A call holds PGlite's query lock (runExclusive), which does not keep it out of an open transaction():
  // between two of its statements, a call would run inside its BEGIN. So transactions and calls take turns.
  const turns = new Mutex();
  const exclusive = <T>(fn: () => Promise<T>) => turns.runExclusive(() => pg.runExclusive(fn));

  /** Sends the batches, each ending in its own Sync, in one call; under `exclusive`. */
  async function call(batches: Planned[][]): Promise<Reply[]> {
    const out = prepared.takeClosing().map((name) => serialize.close({ type: 'S', name }));
    for (const planned of batches) encode(planned, out);
    const backend = await pg.execProtocolStream(Buffer.concat(out), { throwOnError: false });
    const replies = repliesOf(backend, pg.parsers);
    for (const [i, planned] of batches.entries()) prepared.record(planned, replies[i]?.parsed ?? 0);
    return replies;
  }

  /**
   * One batch in a call of its own. One that commits runs as the implicit transaction; one that rolls back,
   * or whose end is decided from its rows, in an explicit block: BEGIN first, then ROLLBACK in the same
   * call, or COMMIT / ROLLBACK in a second one.
   */
  async function alone(statements: BatchStatement[], end: BatchEnd, retry = true): Promise<Row[][]> {
    const first = end === 'commit' ? 0 : 1;
    const { failure, results } = await exclusive(async () => {
      const planned = prepared.plan(statements);
      if (first) planned.unshift(plain('BEGIN'));
      if (end === 'rollback') planned.push(plain('ROLLBACK'));
      const [reply] = await call([planned]);
      if (!reply) throw new Error('PGlite did not answer the batch');
      const results = reply.results.slice(first, first + statements.length);
      let failure: unknown = reply.error;
      let finish: 'commit' | 'rollback' = 'rollback';
      if (typeof end === 'function' && !failure) {
        try {
          finish = end(results);
        } catch (err) {
          failure = err;
        }
      }
      // After an error the server skipped the rest up to Sync; an explicit block is left failed (E).
      if (reply.status !== 'I') {
        const closing = serialize.query(finish === 'commit' && !failure ? 'COMMIT' : 'ROLLBACK');
        const [closed] = repliesOf(await pg.execProtocolStream(closing, { throwOnError: false }), pg.parsers);
        failure ??= closed?.error;
      }
      return { failure, results };
    });
    if (!failure) return results;
    // Another client of the session (the wire-protocol socket) dropped the prepared statements.
    if (retry && (failure as { code?: string }).code === '26000') {
      prepared.clear();
      return alone(statements, end, false);
    }
    throw failure;
  }

  const waiting: { statements: BatchStatement[]; resolve(rows: Row[][]): void; reject(err: unknown): void }[] = [];
  let pumping = false;
  /** Runs the committing batches that wait, up to MOST_BATCHES_PER_CALL a call, until none waits. */
  function pump() {
    if (pumping || !waiting.length) return;
    pumping = true;
    // The event loop turns once first, so the requests that arrive meanwhile join the call.
    setImmediate(() => {
      exclusive(async () => {
        const group = waiting.splice(0, MOST_BATCHES_PER_CALL);
        const inCall = new Set<string>();
        try {
          const replies = await call(group.map((w) => prepared.plan(w.statements, inCall)));
          group.forEach((w, i) => {
            const reply = replies[i];
            if (!reply) w.reject(new Error('PGlite answered fewer batches than it was sent'));
            else if (reply.error?.code === '26000') alone(w.statements, 'commit').then(w.resolve, w.reject);
            else if (reply.error) w.reject(reply.error);
            else w.resolve(reply.results);
          });
        } catch (err) {
          for (const w of group) w.reject(err);
        }
      }).finally(() => {
        pumping = false;
        pump();
      });
    });
  }

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
    transaction: (fn) => turns.runExclusive(() => pg.transaction((tx) => fn(wrap(tx)))),
    batch: (statements, end) =>
      end === 'commit'
        ? new Promise<Row[][]>((resolve, reject) => {
            waiting.push({ statements, resolve, reject });
            pump();
          })
        : alone(statements, end),
    close: () => pg.close(),
  };
}
