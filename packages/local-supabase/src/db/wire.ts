// The few frontend and backend messages of Postgres's extended query protocol that `Db.batch` sends to
// PGlite in one call: Parse, Bind, Describe, Execute, Sync (and a simple Query), and the answers to them.
// Parameters and results travel as text, as PGlite's own `query` sends strings.
import type { Row } from './index.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A growable byte buffer for frontend messages; strings are encoded straight into it. */
class Writer {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  byte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }
  int16(n: number): void {
    this.reserve(2);
    this.view.setInt16(this.length, n);
    this.length += 2;
  }
  int32(n: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, n);
    this.length += 4;
  }
  /** `s` as UTF-8 (at most 3 bytes per UTF-16 unit); returns its byte length. */
  utf8(s: string): number {
    this.reserve(s.length * 3);
    const { written } = encoder.encodeInto(s, this.buf.subarray(this.length));
    this.length += written;
    return written;
  }
  cstring(s: string): void {
    this.utf8(s);
    this.byte(0);
  }
  /** A parameter: its byte length, then its bytes. */
  sized(s: string): void {
    const at = this.length;
    this.int32(0);
    const written = this.utf8(s); // may move the buffer: `this.view` is read after it
    this.view.setInt32(at, written);
  }
  /** Starts a message of `type`; returns the offset of its length field, for `end`. */
  begin(type: string): number {
    this.byte(type.charCodeAt(0));
    const at = this.length;
    this.int32(0);
    return at;
  }
  end(at: number): void {
    this.view.setInt32(at, this.length - at);
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** A statement of a batch, with the name of its server-side prepared statement if it has one. */
export interface WireStatement {
  text: string;
  params?: readonly (string | null)[];
  /** Execute this prepared statement ('' the unnamed one). */
  name?: string;
  /** Parse `text` first (under `name`); false when `name` is prepared already. */
  parse?: boolean;
}

/**
 * Frontend messages: Close for each of `close` (prepared statements to forget), then for each statement
 * Parse (unless prepared) / Bind (text parameters) / Describe portal / Execute, then one Sync.
 */
export function extendedBatch(statements: WireStatement[], close: string[] = []): Uint8Array {
  const w = new Writer();
  for (const name of close) {
    const at = w.begin('C');
    w.byte('S'.charCodeAt(0));
    w.cstring(name);
    w.end(at);
  }
  for (const { text, params = [], name = '', parse = true } of statements) {
    let at: number;
    if (parse) {
      at = w.begin('P');
      w.cstring(name);
      w.cstring(text);
      w.int16(0); // parameter types inferred by the server
      w.end(at);
    }

    at = w.begin('B');
    w.cstring(''); // unnamed portal
    w.cstring(name);
    w.int16(0); // every parameter in text format
    w.int16(params.length);
    for (const p of params) {
      if (p === null) w.int32(-1);
      else w.sized(p);
    }
    w.int16(0); // every result column in text format
    w.end(at);

    at = w.begin('D');
    w.byte('P'.charCodeAt(0));
    w.cstring('');
    w.end(at);

    at = w.begin('E');
    w.cstring('');
    w.int32(0); // all rows
    w.end(at);
  }
  w.end(w.begin('S'));
  return w.result();
}

/** A simple Query message (no parameters), e.g. COMMIT. */
export function simpleQuery(text: string): Uint8Array {
  const w = new Writer();
  const at = w.begin('Q');
  w.cstring(text);
  w.end(at);
  return w.result();
}

/** An ErrorResponse, with the field names node-postgres and PGlite give their errors. */
export class PgError extends Error {
  severity?: string;
  code?: string;
  detail?: string;
  hint?: string;
  position?: string;
  where?: string;
  schema?: string;
  table?: string;
  column?: string;
  dataType?: string;
  constraint?: string;
}

const ERROR_FIELDS: Record<string, keyof PgError> = {
  S: 'severity',
  C: 'code',
  D: 'detail',
  H: 'hint',
  P: 'position',
  W: 'where',
  s: 'schema',
  t: 'table',
  c: 'column',
  d: 'dataType',
  n: 'constraint',
};

export interface BatchReply {
  /** Rows of each statement that completed, in order. */
  results: Row[][];
  /** How many Parse messages succeeded (ParseComplete), in order. */
  parsed: number;
  /** The first error, if a statement failed (the rest were skipped by the server). */
  error?: PgError;
  /** ReadyForQuery's transaction status: I idle, T in a transaction block, E in a failed one. */
  status: string;
}

// Text results parsed as PGlite's `query` parses these types; everything else stays text.
const BOOL = 16;
const NUMBERS = new Set([21, 23, 26, 700, 701]);

/** Reads the backend messages of a batch: each statement's rows (by its RowDescription), errors, status. */
export function readReply(data: Uint8Array): BatchReply {
  const replies = readReplies(data);
  return replies[0] ?? { results: [], parsed: 0, status: 'I' };
}

/**
 * Reads the backend messages of several batches sent in one call, each ended by its Sync: one reply per
 * ReadyForQuery, in order.
 */
export function readReplies(data: Uint8Array): BatchReply[] {
  const replies: BatchReply[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let results: Row[][] = [];
  let error: PgError | undefined;
  let status = 'I';
  let parsed = 0;
  let names: string[] = [];
  let types: number[] = [];
  let rows: Row[] = [];
  let pos = 0;
  const cstring = (): string => {
    const endAt = data.indexOf(0, pos);
    const s = decoder.decode(data.subarray(pos, endAt));
    pos = endAt + 1;
    return s;
  };
  while (pos + 5 <= data.length) {
    const type = String.fromCharCode(data[pos]);
    const length = view.getInt32(pos + 1);
    const next = pos + 1 + length;
    pos += 5;
    switch (type) {
      case 'T': {
        const n = view.getInt16(pos);
        pos += 2;
        names = [];
        types = [];
        for (let i = 0; i < n; i++) {
          names.push(cstring());
          types.push(view.getInt32(pos + 6));
          pos += 18;
        }
        break;
      }
      case 'n':
        names = [];
        types = [];
        break;
      case 'D': {
        const n = view.getInt16(pos);
        pos += 2;
        const row: Row = {};
        for (let i = 0; i < n; i++) {
          const len = view.getInt32(pos);
          pos += 4;
          if (len < 0) {
            row[names[i]] = null;
            continue;
          }
          const text = decoder.decode(data.subarray(pos, pos + len));
          pos += len;
          row[names[i]] = types[i] === BOOL ? text === 't' : NUMBERS.has(types[i]) ? Number(text) : text;
        }
        rows.push(row);
        break;
      }
      case 'C':
      case 'I':
        results.push(rows);
        rows = [];
        break;
      case 'E': {
        const fields: Partial<Record<keyof PgError, string>> = {};
        let message = '';
        while (data[pos] !== 0) {
          const code = String.fromCharCode(data[pos]);
          pos += 1;
          const value = cstring();
          if (code === 'M') message = value;
          else if (ERROR_FIELDS[code]) fields[ERROR_FIELDS[code]] = value as never;
        }
        if (!error) error = Object.assign(new PgError(message), fields);
        break;
      }
      case 'Z':
        status = String.fromCharCode(data[pos]);
        replies.push({ results, parsed, error, status });
        results = [];
        parsed = 0;
        error = undefined;
        status = 'I';
        break;
      case '1':
        parsed += 1;
        break;
      // ParseComplete, BindComplete, notices, parameter status, notifications: nothing to keep.
    }
    pos = next;
  }
  return replies;
}

/**
 * The statements prepared in the session, by SQL text: the most recently used `size`, so the server parses
 * and analyses a request shape once; Postgres's plan cache re-plans them after DDL or for another role.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private closing: string[] = [];
  private counter = 0;
  private readonly size: number;

  constructor(size = 256) {
    this.size = size;
  }

  /**
   * The wire form of `statements`: named, parsed only when new. `inFlight` holds the texts an earlier batch
   * of the same call parses under a new name: a later batch parses such a text again as the unnamed
   * statement rather than lean on a Parse that fails if that earlier batch fails.
   */
  plan(
    statements: { text: string; params?: readonly (string | null)[] }[],
    inFlight = new Map<string, string>(),
  ): WireStatement[] {
    const fresh = new Map<string, string>();
    return statements.map(({ text, params }) => {
      const again = fresh.get(text);
      if (again !== undefined) return { text, params, name: again, parse: false };
      const name = this.names.get(text);
      if (name !== undefined) {
        // Most recently used last.
        this.names.delete(text);
        this.names.set(text, name);
        return { text, params, name, parse: false };
      }
      if (inFlight.has(text)) return { text, params, name: '', parse: true };
      const created = `signals_${++this.counter}`;
      fresh.set(text, created);
      inFlight.set(text, created);
      return { text, params, name: created, parse: true };
    });
  }

  /** Prepared statements evicted since the last batch, to Close at its start. */
  takeClosing(): string[] {
    const out = this.closing;
    this.closing = [];
    return out;
  }

  /**
   * Records the named statements whose Parse succeeded: the first `parsed` of the statements that were
   * parsed (named, unnamed, or plain like BEGIN), in order.
   */
  record(planned: WireStatement[], parsed: number): void {
    let n = parsed;
    for (const s of planned) {
      if (s.parse === false) continue;
      if (n-- <= 0) break;
      if (s.name) this.names.set(s.text, s.name);
    }
    while (this.names.size > this.size) {
      const [oldest, name] = this.names.entries().next().value as [string, string];
      this.names.delete(oldest);
      this.closing.push(name);
    }
  }

  /** Forgets every statement (the session lost them: DEALLOCATE ALL or DISCARD from another client). */
  clear(): void {
    this.names.clear();
    this.closing = [];
  }
}
