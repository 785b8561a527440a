// PostgREST's query-string grammar: select, filters, and/or trees, order, columns, on_conflict.
// Produces plain data; nothing here touches SQL. Errors are PGRST100 with PostgREST's message shape:
//   "failed to parse filter (eq)" (line 1, column 3)   +   details: unexpected ... expecting ...
import { ApiError } from './errors.ts';

export type JsonOp = { arrow: '->' | '->>'; key: string; index: boolean };
export type Field = { name: string; json: JsonOp[] };

export type SelectItem =
  | { kind: 'star' }
  | { kind: 'field'; field: Field; alias?: string; cast?: string }
  | { kind: 'relation'; name: string };

export type SimpleOp =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'like'
  | 'ilike'
  | 'match'
  | 'imatch'
  | 'isdistinct'
  | 'cs'
  | 'cd'
  | 'ov'
  | 'sl'
  | 'sr'
  | 'nxr'
  | 'nxl'
  | 'adj';
export type FtsOp = 'fts' | 'plfts' | 'phfts' | 'wfts';
export type Quantifier = 'any' | 'all';

export type Operation =
  | { kind: 'op'; op: SimpleOp; value: string; quantifier?: Quantifier }
  | { kind: 'in'; values: string[] }
  | { kind: 'is'; value: 'null' | 'true' | 'false' | 'unknown' }
  | { kind: 'fts'; op: FtsOp; config?: string; value: string };

export type Filter = { field: Field; negate: boolean; operation: Operation };
export type LogicTree =
  | { kind: 'filter'; filter: Filter }
  | { kind: 'expr'; negate: boolean; op: 'and' | 'or'; children: LogicTree[] };

export type OrderTerm = { field: Field; direction?: 'asc' | 'desc'; nulls?: 'first' | 'last' };

const SIMPLE_OPS = new Set<string>([
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'isdistinct',
  'cs',
  'cd',
  'ov',
  'sl',
  'sr',
  'nxr',
  'nxl',
  'adj',
]);
/** Operators that take `(any)` / `(all)` with a `{a,b}` list, as PostgREST 12+ allows. */
const QUANTIFIABLE = new Set<string>(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);
const FTS_OPS = new Set<string>(['fts', 'plfts', 'phfts', 'wfts']);

/** Thrown inside a grammar function; turned into PostgREST's PGRST100 body by `run`. */
class Failure {
  readonly pos: number;
  readonly unexpected: string;
  readonly expecting: string[];
  readonly custom?: string;
  /** Not undone by `attempt`: no other reading of the text can succeed (a NUL in a name). */
  readonly fatal: boolean;

  constructor(pos: number, unexpected: string, expecting: string[], custom?: string, fatal = false) {
    this.pos = pos;
    this.unexpected = unexpected;
    this.expecting = expecting;
    this.custom = custom;
    this.fatal = fatal;
  }
}

function showChar(c: string | undefined): string {
  return c === undefined ? 'end of input' : JSON.stringify(c);
}

function joinExpected(items: string[]): string {
  const unique = [...new Set(items)];
  if (unique.length <= 1) return unique.join('');
  return `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}

/** A character stream with parsec-like helpers (try = save/restore position). */
class Stream {
  pos = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  peek(offset = 0): string | undefined {
    const c = this.text[this.pos + offset];
    return c;
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
  eof(): boolean {
    return this.pos >= this.text.length;
  }
  fail(expecting: string[], custom?: string): never {
    throw new Failure(this.pos, showChar(this.peek()), expecting, custom);
  }
  /** A failure that alternatives cannot recover from. */
  fatal(expecting: string[]): never {
    throw new Failure(this.pos, showChar(this.peek()), expecting, undefined, true);
  }
  expect(s: string, label = JSON.stringify(s)): void {
    if (!this.startsWith(s)) this.fail([label]);
    this.pos += s.length;
  }
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }
  /** Runs `fn`; on failure restores the position and returns undefined. */
  attempt<T>(fn: () => T): T | undefined {
    const start = this.pos;
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof Failure) || err.fatal) throw err;
      this.pos = start;
      return undefined;
    }
  }
}

function run<T>(source: string, text: string, fn: (s: Stream) => T): T {
  const s = new Stream(text);
  try {
    return fn(s);
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    const details = err.custom ?? `unexpected ${err.unexpected} expecting ${joinExpected(err.expecting)}`;
    throw ApiError.pgrst(400, 'PGRST100', `${JSON.stringify(source)} (line 1, column ${err.pos + 1})`, details);
  }
}

// ---- lexical pieces ------------------------------------------------------------------------------

const isIdentChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$ ]/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** `"quoted \" value"`: double quotes, backslash escapes any character. */
function quotedValue(s: Stream): string {
  s.expect('"');
  let out = '';
  for (;;) {
    const c = s.peek();
    if (c === undefined) s.fail(['"\\""']);
    s.pos++;
    if (c === '"') return out;
    if (c === '\\') {
      const next = s.peek();
      if (next === undefined) s.fail(['any character']);
      out += next;
      s.pos++;
    } else {
      out += c;
    }
  }
}

function identifier(s: Stream): string {
  const start = s.pos;
  while (isIdentChar(s.peek())) s.pos++;
  if (s.pos === start) s.fail(['letter', 'digit']);
  return s.text.slice(start, s.pos).trim();
}

/** A field name: quoted, or identifiers joined by `-` (a `-` before `>` belongs to a JSON arrow). */
function fieldName(s: Stream): string {
  if (s.peek() === '"') {
    const start = s.pos;
    const name = quotedValue(s);
    // Postgres takes no NUL in a name (nor anywhere in a statement's text, which ends at the first NUL):
    // refused here, before any SQL is built.
    const nul = s.text.indexOf('\u0000', start);
    if (nul >= 0 && nul < s.pos) {
      s.pos = nul;
      s.fatal(['any character but NUL']);
    }
    return name;
  }
  if (!isIdentChar(s.peek())) s.fail(['field name (* or [a..z0..9_$])']);
  const parts = [identifier(s)];
  while (s.peek() === '-' && s.peek(1) !== '>' && isIdentChar(s.peek(1))) {
    s.pos++;
    parts.push(identifier(s));
  }
  return parts.join('-');
}

function jsonPath(s: Stream): JsonOp[] {
  const ops: JsonOp[] = [];
  for (;;) {
    let arrow: '->' | '->>';
    if (s.startsWith('->>')) arrow = '->>';
    else if (s.startsWith('->')) arrow = '->';
    else return ops;
    s.pos += arrow.length;
    const idx = s.attempt(() => {
      let digits = s.peek() === '-' ? '-' : '';
      if (digits) s.pos++;
      const start = s.pos;
      while (isDigit(s.peek())) s.pos++;
      if (s.pos === start) s.fail(['digit']);
      digits += s.text.slice(start, s.pos);
      const endOk = s.eof() || s.startsWith('->') || s.startsWith('::') || s.startsWith('.') || s.startsWith(',');
      if (!endOk) s.fail(['digit', '"->"', '"::"', '"."', '","', 'end of input']);
      return digits;
    });
    if (idx !== undefined) ops.push({ arrow, key: idx, index: true });
    else ops.push({ arrow, key: fieldName(s), index: false });
  }
}

function field(s: Stream): Field {
  s.skipSpaces();
  const name = fieldName(s);
  const json = jsonPath(s);
  s.skipSpaces();
  return { name, json };
}

// ---- select --------------------------------------------------------------------------------------

function aliasSeparator(s: Stream): void {
  if (s.peek() !== ':' || s.peek(1) === ':') s.fail(['":"']);
  s.pos++;
}

function embedParams(s: Stream): void {
  for (let i = 0; i < 2 && s.peek() === '!'; i++) {
    s.pos++;
    fieldName(s);
  }
}

/** An optional `alias:` before a field or relation (a single `:`, not the `::` of a cast). */
function optionalAlias(s: Stream): string | undefined {
  return s.attempt(() => {
    const alias = fieldName(s);
    aliasSeparator(s);
    return alias;
  });
}

function selectItem(s: Stream): SelectItem {
  s.skipSpaces();
  // Spread and embedded relations: `...rel(...)`, `alias:rel!hint(...)`. Parsed so the error can name them.
  const relation = s.attempt(() => {
    if (s.startsWith('...')) s.pos += 3;
    else optionalAlias(s);
    const name = fieldName(s);
    embedParams(s);
    if (s.peek() !== '(') s.fail(['"("']);
    s.pos++;
    selectList(s);
    s.expect(')');
    s.skipSpaces();
    return name;
  });
  if (relation !== undefined) return { kind: 'relation', name: relation };

  const expectEnd = () => {
    if (!(s.eof() || s.peek() === ',' || s.peek() === ')'))
      s.fail(['letter', 'digit', '"-"', '"->>"', '"->"', '"::"', '")"', '","', 'end of input']);
  };
  const fieldItem = s.attempt((): SelectItem => {
    const alias = optionalAlias(s);
    const f = field(s);
    let cast: string | undefined;
    if (s.startsWith('::')) {
      s.pos += 2;
      cast = identifier(s);
    }
    s.skipSpaces();
    expectEnd();
    return { kind: 'field', field: f, alias, cast };
  });
  if (fieldItem) return fieldItem;
  if (s.peek() === '*') {
    s.pos++;
    s.skipSpaces();
    if (!(s.eof() || s.peek() === ',' || s.peek() === ')')) s.fail(['")"', '","', 'end of input']);
    return { kind: 'star' };
  }
  // Nothing matched: report the failure where a field would stop, as PostgREST does.
  const consumed = s.attempt(() => {
    optionalAlias(s);
    field(s);
    return true;
  });
  if (consumed) expectEnd();
  s.fail(['field name (* or [a..z0..9_$])']);
}

function selectList(s: Stream): SelectItem[] {
  const items = [selectItem(s)];
  for (;;) {
    s.skipSpaces();
    if (s.peek() !== ',') return items;
    s.pos++;
    items.push(selectItem(s));
  }
}

export function parseSelect(text: string): SelectItem[] {
  return run(`failed to parse select parameter (${text})`, text, (s) => {
    const items = selectList(s);
    if (!s.eof()) s.fail(['","', 'end of input']);
    return items;
  });
}

// ---- filters -------------------------------------------------------------------------------------

function listVal(s: Stream): string[] {
  s.skipSpaces();
  s.expect('(');
  s.skipSpaces();
  const values: string[] = [];
  for (;;) {
    const quoted = s.attempt(() => {
      const v = quotedValue(s);
      if (!(s.peek() === ',' || s.peek() === ')')) s.fail(['","', '")"']);
      return v;
    });
    if (quoted !== undefined) {
      values.push(quoted);
    } else {
      const start = s.pos;
      while (!s.eof() && s.peek() !== ',' && s.peek() !== ')') s.pos++;
      values.push(s.text.slice(start, s.pos));
    }
    if (s.peek() === ',') {
      s.pos++;
      continue;
    }
    break;
  }
  s.skipSpaces();
  s.expect(')');
  s.skipSpaces();
  return values;
}

/** Parses `op.value`, `not.op.value`, `in.(...)`, `is.null`, `fts(english).value`. */
function opExpr(s: Stream, singleVal: (s: Stream) => string): { negate: boolean; operation: Operation } {
  let negate = false;
  if (s.startsWith('not.')) {
    negate = true;
    s.pos += 4;
  }
  if (s.startsWith('in.')) {
    s.pos += 3;
    return { negate, operation: { kind: 'in', values: listVal(s) } };
  }
  if (s.startsWith('is.')) {
    s.pos += 3;
    const rest = s.text.slice(s.pos).toLowerCase();
    for (const v of ['null', 'unknown', 'true', 'false'] as const) {
      if (rest.startsWith(v)) {
        s.pos += v.length;
        return { negate, operation: { kind: 'is', value: v } };
      }
    }
    s.fail(['null or trilean value (unknown, true, false)']);
  }
  // Full-text search: fts, plfts, phfts, wfts, with an optional (config).
  const fts = s.attempt(() => {
    const start = s.pos;
    while (!s.eof() && s.peek() !== '.' && s.peek() !== '(') s.pos++;
    const name = s.text.slice(start, s.pos);
    if (!FTS_OPS.has(name)) s.fail([], `unknown fts operator ${name}`);
    let config: string | undefined;
    if (s.peek() === '(') {
      s.pos++;
      config = identifier(s);
      s.expect(')');
    }
    s.expect('.', 'delimiter (.)');
    return { kind: 'fts' as const, op: name as FtsOp, config, value: singleVal(s) };
  });
  if (fts) return { negate, operation: fts };

  const start = s.pos;
  const dot = s.text.indexOf('.', s.pos);
  if (dot < 0) {
    s.pos = s.text.length;
    s.fail(['delimiter (.)']);
  }
  const name = s.text.slice(start, dot);
  const q = /^([a-z]+)\((any|all)\)$/.exec(name);
  if (q && QUANTIFIABLE.has(q[1])) {
    s.pos = dot + 1;
    return {
      negate,
      operation: { kind: 'op', op: q[1] as SimpleOp, quantifier: q[2] as Quantifier, value: singleVal(s) },
    };
  }
  if (!SIMPLE_OPS.has(name)) {
    s.pos = dot + 1;
    s.fail([], `unknown single value operator ${name}`);
  }
  s.pos = dot + 1;
  return { negate, operation: { kind: 'op', op: name as SimpleOp, value: singleVal(s) } };
}

const restOfInput = (s: Stream) => {
  const v = s.text.slice(s.pos);
  s.pos = s.text.length;
  return v;
};

/** Does a query-string value look like a filter (rather than an RPC argument)? Mirrors PostgREST. */
export function hasOperator(value: string): boolean {
  const parts = value.split('.');
  if (parts[0] === 'not' && parts.length >= 2) return true;
  if (parts[0] === 'is' || parts[0] === 'in') return true;
  const first = parts[0];
  if (SIMPLE_OPS.has(first) || FTS_OPS.has(first)) return true;
  const q = /^([a-z]+)\((any|all)\)$/.exec(first);
  if (q && QUANTIFIABLE.has(q[1])) return true;
  const paren = value.split('(');
  return paren.length > 1 && FTS_OPS.has(paren[0]);
}

/** A filter key: `col`, `col->a->>b`, or `rel.col` (an embedded path, returned in `path`). */
export function parseFilterKey(key: string): { path: string[]; field: Field } {
  return run(`failed to parse tree path (${key})`, key, (s) => {
    const names = [fieldName(s)];
    while (s.peek() === '.') {
      s.pos++;
      names.push(fieldName(s));
    }
    const json = jsonPath(s);
    if (!s.eof()) s.fail(['letter', 'digit', '"-"', '"->>"', '"->"', 'delimiter (.)', 'end of input']);
    return { path: names.slice(0, -1), field: { name: names[names.length - 1], json } };
  });
}

export function parseFilter(key: string, value: string): { path: string[]; filter: Filter } {
  const { path, field: f } = parseFilterKey(key);
  const expr = run(`failed to parse filter (${value})`, value, (s) => {
    const e = opExpr(s, restOfInput);
    if (!s.eof()) s.fail(['end of input']);
    return e;
  });
  return { path, filter: { field: f, ...expr } };
}

// ---- and / or ------------------------------------------------------------------------------------

function logicSingleVal(s: Stream): string {
  const quoted = s.attempt(() => {
    const v = quotedValue(s);
    if (!(s.eof() || s.peek() === ',' || s.peek() === ')')) s.fail(['","', '")"']);
    return v;
  });
  if (quoted !== undefined) return quoted;
  if (s.peek() === '{') {
    const close = s.text.indexOf('}', s.pos);
    const inner = close < 0 ? '' : s.text.slice(s.pos + 1, close);
    if (close >= 0 && !inner.includes('{')) {
      const v = s.text.slice(s.pos, close + 1);
      s.pos = close + 1;
      return v;
    }
  }
  const start = s.pos;
  while (!s.eof() && s.peek() !== ',' && s.peek() !== ')') s.pos++;
  return s.text.slice(start, s.pos);
}

function logicTree(s: Stream): LogicTree {
  // A filter first, then `not.`/`and`/`or`. As in Parsec, when the second reading fails without taking any
  // input, the reading that got further names the error: `or=(id.foo.1)` is an unknown operator at `foo`.
  const start = s.pos;
  let asFilter: Failure;
  try {
    const f = field(s);
    if (s.peek() !== '.') s.fail(['letter', 'digit', '"-"', '"->>"', '"->"', 'delimiter (.)']);
    s.pos++;
    const expr = opExpr(s, logicSingleVal);
    return { kind: 'filter', filter: { field: f, ...expr } };
  } catch (err) {
    if (!(err instanceof Failure) || err.fatal) throw err;
    asFilter = err;
    s.pos = start;
  }
  let negate = false;
  if (s.startsWith('not.')) {
    negate = true;
    s.pos += 4;
  }
  let op: 'and' | 'or';
  if (s.startsWith('and')) op = 'and';
  else if (s.startsWith('or')) op = 'or';
  else if (negate) s.fail(['logic operator (and, or)']);
  else if (asFilter.pos > start) throw asFilter;
  else s.fail([...asFilter.expecting, 'negation operator (not)', 'logic operator (and, or)']);
  s.pos += op.length;
  s.skipSpaces();
  s.expect('(');
  s.skipSpaces();
  const children = [logicTree(s)];
  for (;;) {
    s.skipSpaces();
    if (s.peek() !== ',') break;
    s.pos++;
    s.skipSpaces();
    children.push(logicTree(s));
  }
  s.skipSpaces();
  s.expect(')');
  s.skipSpaces();
  return { kind: 'expr', negate, op, children };
}

/** `or=(a.eq.1,b.gt.2)`, `and=(...)`, `not.or=(...)`; key gives the operator and any negation. */
export function parseLogic(key: string, value: string): { path: string[]; tree: LogicTree } {
  const parts = key.split('.');
  const op = parts[parts.length - 1] as 'and' | 'or';
  const negate = parts.includes('not');
  const path = parts.slice(0, -1).filter((p) => p !== 'not');
  const text = `${negate ? 'not.' : ''}${op}${value}`;
  const tree = run(`failed to parse logic tree (${value})`, text, (s) => {
    const t = logicTree(s);
    if (!s.eof()) s.fail(['","', 'end of input']);
    return t;
  });
  return { path, tree };
}

// ---- order, columns, on_conflict -----------------------------------------------------------------

export function parseOrder(value: string): OrderTerm[] {
  return run(`failed to parse order (${value})`, value, (s) => {
    const terms: OrderTerm[] = [];
    for (;;) {
      s.skipSpaces();
      const f = field(s);
      const term: OrderTerm = { field: f };
      if (s.peek() === '(') s.fail(['letter', 'digit', '"-"', '"->>"', '"->"', 'delimiter (.)', '","', 'end of input']);
      if (s.startsWith('.asc')) {
        term.direction = 'asc';
        s.pos += 4;
      } else if (s.startsWith('.desc')) {
        term.direction = 'desc';
        s.pos += 5;
      }
      if (s.startsWith('.nullsfirst')) {
        term.nulls = 'first';
        s.pos += 11;
      } else if (s.startsWith('.nullslast')) {
        term.nulls = 'last';
        s.pos += 10;
      }
      s.skipSpaces();
      if (s.peek() === '.' && !term.direction && !term.nulls) {
        s.pos++;
        s.fail(['"asc"', '"desc"', '"nullsfirst"', '"nullslast"']);
      }
      if (s.peek() === '.' && !term.nulls) {
        s.pos++;
        s.fail(['"nullsfirst"', '"nullslast"']);
      }
      terms.push(term);
      if (s.eof()) return terms;
      if (s.peek() !== ',')
        s.fail(
          term.direction || term.nulls
            ? ['","', 'end of input']
            : ['letter', 'digit', '"-"', '"->>"', '"->"', 'delimiter (.)', '","', 'end of input'],
        );
      s.pos++;
    }
  });
}

/** `columns=` and `on_conflict=`: field names separated by commas. */
export function parseColumns(what: 'columns' | 'on_conflict', value: string): string[] {
  return run(`failed to parse ${what} parameter (${value})`, value, (s) => {
    const names: string[] = [];
    for (;;) {
      s.skipSpaces();
      names.push(fieldName(s));
      s.skipSpaces();
      if (s.eof()) return names;
      if (s.peek() !== ',') s.fail(['letter', 'digit', '"-"', '","', 'end of input']);
      s.pos++;
    }
  });
}

/** `{a,"b,c"}`: the list after a quantified operator such as `like(any)`. */
export function parsePgList(value: string): string[] | undefined {
  const text = value.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) return undefined;
  const s = new Stream(text.slice(1, -1));
  const out: string[] = [];
  if (s.eof()) return out;
  try {
    for (;;) {
      s.skipSpaces();
      if (s.peek() === '"') {
        out.push(quotedValue(s));
      } else {
        const start = s.pos;
        while (!s.eof() && s.peek() !== ',') s.pos++;
        out.push(s.text.slice(start, s.pos).trim());
      }
      s.skipSpaces();
      if (s.eof()) return out;
      if (s.peek() !== ',') return undefined;
      s.pos++;
    }
  } catch (err) {
    if (err instanceof Failure) return undefined;
    throw err;
  }
}
