// The query-string grammar of src/rest/parser.ts, table by table as PostgREST doctests its own
// (QueryParams.hs): text in, parsed structure out, and for bad text the exact PGRST100 answer. Last, how a
// query string's keys are sorted (reserved keys, limit/offset, filters, RPC arguments) in plan.ts.
import { describe, expect, test } from 'vitest';
import { ApiError } from '../../src/rest/errors.ts';
import {
  type Field,
  type Filter,
  hasOperator,
  type JsonOp,
  type LogicTree,
  type OrderTerm,
  parseColumns,
  parseFilter,
  parseLogic,
  parseOrder,
  parsePgList,
  parseSelect,
  type SelectItem,
} from '../../src/rest/parser.ts';
import { classify, readRange } from '../../src/rest/plan.ts';

// ---- building the expected structures ------------------------------------------------------------

const field = (name: string, ...json: JsonOp[]): Field => ({ name, json });
/** `->key`, or `->0` with `index`. */
const arrow = (key: string, index = false): JsonOp => ({ arrow: '->', key, index });
/** `->>key`, or `->>0` with `index`. */
const arrow2 = (key: string, index = false): JsonOp => ({ arrow: '->>', key, index });
const col = (f: Field, more: { alias?: string; cast?: string } = {}): SelectItem => ({
  kind: 'field',
  field: f,
  ...more,
});
const star: SelectItem = { kind: 'star' };
const relation = (name: string): SelectItem => ({ kind: 'relation', name });
const op = (name: string, o: string, value: string, negate = false): Filter =>
  ({ field: field(name), negate, operation: { kind: 'op', op: o, value } }) as Filter;
const leaf = (filter: Filter): LogicTree => ({ kind: 'filter', filter });
const expr = (o: 'and' | 'or', children: LogicTree[], negate = false): LogicTree => ({
  kind: 'expr',
  negate,
  op: o,
  children,
});

/** What a call throws, as status and body; fails the test when it parses. */
function thrown(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, ...err.body };
    throw err;
  }
  throw new Error('parsed without an error');
}

/** PostgREST's PGRST100: the parser's source name shown as a Haskell string, then the column. */
const pgrst100 = (source: string, column: number, details: string) => ({
  status: 400,
  code: 'PGRST100',
  message: `${JSON.stringify(source)} (line 1, column ${column})`,
  details,
  hint: null,
});

const FIELD_NAME = 'field name (* or [a..z0..9_$])';

// ---- select --------------------------------------------------------------------------------------

describe('select', () => {
  test.each<[string, SelectItem[]]>([
    ['id,name', [col(field('id')), col(field('name'))]],
    ['*', [star]],
    ['alias:name->jsonpath::cast', [col(field('name', arrow('jsonpath')), { alias: 'alias', cast: 'cast' })]],
    ['data->-1,a->b->>0', [col(field('data', arrow('-1', true))), col(field('a', arrow('b'), arrow2('0', true)))]],
    ['"a b":"c,d"', [col(field('c,d'), { alias: 'a b' })]],
    [
      'identifier with spaces,identifier-with-dashes,123,_,$',
      ['identifier with spaces', 'identifier-with-dashes', '123', '_', '$'].map((n) => col(field(n))),
    ],
    ['*,client(*,nested(*))', [star, relation('client')]],
    ['alias:rel!inner!hint(a,b:c::text)', [relation('rel')]],
    ['*,...client(*),other(*)', [star, relation('client'), relation('other')]],
  ])('%j', (text, items) => {
    expect(parseSelect(text)).toEqual(items);
  });

  test.each<[string, number, string]>([
    ['name!hint', 5, 'unexpected "!" expecting letter, digit, "-", "->>", "->", "::", ")", "," or end of input'],
    ['*!hint', 2, 'unexpected "!" expecting ")", "," or end of input'],
    ['id,,name', 4, `unexpected "," expecting ${FIELD_NAME}`],
    ['*,(select1)', 3, `unexpected "(" expecting ${FIELD_NAME}`],
  ])('%j is refused at column %i', (text, column, details) => {
    expect(thrown(() => parseSelect(text))).toEqual(
      pgrst100(`failed to parse select parameter (${text})`, column, details),
    );
  });
});

// ---- filters -------------------------------------------------------------------------------------

describe('filters', () => {
  test.each<[string, string, { path: string[]; filter: Filter }]>([
    ['id', 'eq.1', { path: [], filter: op('id', 'eq', '1') }],
    ['name', 'like.*an*', { path: [], filter: op('name', 'like', '*an*') }],
    ['name', 'not.ilike.D%', { path: [], filter: op('name', 'ilike', 'D%', true) }],
    ['id', 'not.eq.not.1', { path: [], filter: op('id', 'eq', 'not.1', true) }],
    [
      'name',
      'in.("fig, dried","a(b)",c)',
      {
        path: [],
        filter: { field: field('name'), negate: false, operation: { kind: 'in', values: ['fig, dried', 'a(b)', 'c'] } },
      },
    ],
    [
      'note',
      'not.in.("a\\"b",x)',
      { path: [], filter: { field: field('note'), negate: true, operation: { kind: 'in', values: ['a"b', 'x'] } } },
    ],
    [
      'id',
      'in.()',
      { path: [], filter: { field: field('id'), negate: false, operation: { kind: 'in', values: [''] } } },
    ],
    [
      'active',
      'is.TRUE',
      { path: [], filter: { field: field('active'), negate: false, operation: { kind: 'is', value: 'true' } } },
    ],
    [
      'price',
      'not.is.null',
      { path: [], filter: { field: field('price'), negate: true, operation: { kind: 'is', value: 'null' } } },
    ],
    [
      'note',
      'phfts.a.b',
      {
        path: [],
        filter: { field: field('note'), negate: false, operation: { kind: 'fts', op: 'phfts', value: 'a.b' } },
      },
    ],
    [
      'note',
      'not.plfts(simple).a b',
      {
        path: [],
        filter: {
          field: field('note'),
          negate: true,
          operation: { kind: 'fts', op: 'plfts', config: 'simple', value: 'a b' },
        },
      },
    ],
    [
      'name',
      'like(all).{a*,b*}',
      {
        path: [],
        filter: {
          field: field('name'),
          negate: false,
          operation: { kind: 'op', op: 'like', quantifier: 'all', value: '{a*,b*}' },
        },
      },
    ],
    [
      'meta->>color',
      'eq.red',
      { path: [], filter: { ...op('meta', 'eq', 'red'), field: field('meta', arrow2('color')) } },
    ],
    ['clients.id', 'gt.2', { path: ['clients'], filter: op('id', 'gt', '2') }],
    ['a.b.c->0', 'eq.x', { path: ['a', 'b'], filter: { ...op('c', 'eq', 'x'), field: field('c', arrow('0', true)) } }],
    ['"a.b"', 'eq.1', { path: [], filter: op('a.b', 'eq', '1') }],
  ])('%s=%s', (key, value, parsed) => {
    expect(parseFilter(key, value)).toEqual(parsed);
  });

  test.each<[string, string, string, number, string]>([
    ['id', 'foo.1', 'failed to parse filter (foo.1)', 5, 'unknown single value operator foo'],
    ['id', 'not.foo.1', 'failed to parse filter (not.foo.1)', 9, 'unknown single value operator foo'],
    ['id', 'fts().value', 'failed to parse filter (fts().value)', 7, 'unknown single value operator fts()'],
    ['id', 'neq(any).{1}', 'failed to parse filter (neq(any).{1})', 10, 'unknown single value operator neq(any)'],
    ['id', 'eq', 'failed to parse filter (eq)', 3, 'unexpected end of input expecting delimiter (.)'],
    [
      'x',
      'is.maybe',
      'failed to parse filter (is.maybe)',
      4,
      'unexpected "m" expecting null or trilean value (unknown, true, false)',
    ],
    [
      'id!x',
      'eq.1',
      'failed to parse tree path (id!x)',
      3,
      'unexpected "!" expecting letter, digit, "-", "->>", "->", delimiter (.) or end of input',
    ],
  ])('%s=%s is refused', (key, value, source, column, details) => {
    expect(thrown(() => parseFilter(key, value))).toEqual(pgrst100(source, column, details));
  });
});

// ---- and / or ------------------------------------------------------------------------------------

describe('and / or', () => {
  test.each<[string, string, { path: string[]; tree: LogicTree }]>([
    [
      'or',
      '(id.eq.1,name.eq.carrot)',
      { path: [], tree: expr('or', [leaf(op('id', 'eq', '1')), leaf(op('name', 'eq', 'carrot'))]) },
    ],
    [
      'and',
      '(a.gt.1,or(b.eq.2,not.and(c.lt.3,d.not.eq.4)))',
      {
        path: [],
        tree: expr('and', [
          leaf(op('a', 'gt', '1')),
          expr('or', [
            leaf(op('b', 'eq', '2')),
            expr('and', [leaf(op('c', 'lt', '3')), leaf(op('d', 'eq', '4', true))], true),
          ]),
        ]),
      },
    ],
    [
      'not.or',
      '(a.eq.1,b.eq.2)',
      { path: [], tree: expr('or', [leaf(op('a', 'eq', '1')), leaf(op('b', 'eq', '2'))], true) },
    ],
    ['clients.not.and', '(a.eq.1)', { path: ['clients'], tree: expr('and', [leaf(op('a', 'eq', '1'))], true) }],
    [
      'or',
      '(name.eq."fig, dried",b.eq.")",id.in.(1,2))',
      {
        path: [],
        tree: expr('or', [
          leaf(op('name', 'eq', 'fig, dried')),
          leaf(op('b', 'eq', ')')),
          leaf({ field: field('id'), negate: false, operation: { kind: 'in', values: ['1', '2'] } }),
        ]),
      },
    ],
    [
      'or',
      '( tags.cs.{a,b} , name.like(any).{a*,b*},meta->>color.eq.red)',
      {
        path: [],
        tree: expr('or', [
          leaf(op('tags', 'cs', '{a,b}')),
          leaf({
            field: field('name'),
            negate: false,
            operation: { kind: 'op', op: 'like', quantifier: 'any', value: '{a*,b*}' },
          }),
          leaf({ ...op('meta', 'eq', 'red'), field: field('meta', arrow2('color')) }),
        ]),
      },
    ],
  ])('%s=%s', (key, value, parsed) => {
    expect(parseLogic(key, value)).toEqual(parsed);
  });

  // The first five are PostgREST's own doctests; the column counts the operator put before the value.
  test.each<[string, string, number, string]>([
    ['or', '()', 4, `unexpected ")" expecting ${FIELD_NAME}, negation operator (not) or logic operator (and, or)`],
    ['or', '(id.in.1,2,id.eq.3)', 10, 'unexpected "1" expecting "("'],
    ['or', ')(', 3, 'unexpected ")" expecting "("'],
    ['and', '(ord(id.eq.1,id.eq.1),id.eq.2)', 7, 'unexpected "d" expecting "("'],
    ['or', '(id.eq.1,not.xor(id.eq.2,id.eq.3))', 16, 'unexpected "x" expecting logic operator (and, or)'],
    ['or', '(a.foo.1)', 10, 'unknown single value operator foo'],
    ['or', '(a)', 5, 'unexpected ")" expecting letter, digit, "-", "->>", "->" or delimiter (.)'],
    ['or', '(a.eq.1,b.eq.2', 17, 'unexpected end of input expecting ")"'],
  ])('%s=%s is refused at column %i', (key, value, column, details) => {
    expect(thrown(() => parseLogic(key, value))).toEqual(
      pgrst100(`failed to parse logic tree (${value})`, column, details),
    );
  });
});

// ---- order ---------------------------------------------------------------------------------------

describe('order', () => {
  test.each<[string, OrderTerm[]]>([
    ['id', [{ field: field('id') }]],
    ['name.desc.nullsfirst', [{ field: field('name'), direction: 'desc', nulls: 'first' }]],
    ['json_col->key.asc.nullslast', [{ field: field('json_col', arrow('key')), direction: 'asc', nulls: 'last' }]],
    ['id.nullslast', [{ field: field('id'), nulls: 'last' }]],
    [
      'a,b.desc, c.asc,d->0.desc',
      [
        { field: field('a') },
        { field: field('b'), direction: 'desc' },
        { field: field('c'), direction: 'asc' },
        { field: field('d', arrow('0', true)), direction: 'desc' },
      ],
    ],
  ])('%j', (text, terms) => {
    expect(parseOrder(text)).toEqual(terms);
  });

  // id.nulsfist, id.smth34 and id.asc.smth34 are PostgREST's doctests. An embedded column, `clients(name)`,
  // is not read: this service embeds nothing.
  test.each<[string, number, string]>([
    ['id.nulsfist', 4, 'unexpected "n" expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.smth34', 4, 'unexpected "s" expecting "asc", "desc", "nullsfirst" or "nullslast"'],
    ['id.asc.smth34', 8, 'unexpected "s" expecting "nullsfirst" or "nullslast"'],
    ['id,', 4, `unexpected end of input expecting ${FIELD_NAME}`],
    [
      'clients(name,id)',
      8,
      'unexpected "(" expecting letter, digit, "-", "->>", "->", delimiter (.), "," or end of input',
    ],
  ])('%j is refused at column %i', (text, column, details) => {
    expect(thrown(() => parseOrder(text))).toEqual(pgrst100(`failed to parse order (${text})`, column, details));
  });
});

// ---- columns and on_conflict ---------------------------------------------------------------------

describe('columns and on_conflict', () => {
  test('field names separated by commas, spaces around them dropped, quoted names kept whole', () => {
    expect(parseColumns('columns', ' id , "a,b" , x-y ')).toEqual(['id', 'a,b', 'x-y']);
  });

  test.each<['columns' | 'on_conflict', string, number, string]>([
    ['columns', 'id,,x', 4, `unexpected "," expecting ${FIELD_NAME}`],
    ['on_conflict', 'id!', 3, 'unexpected "!" expecting letter, digit, "-", "," or end of input'],
  ])('%s=%s is refused at column %i', (what, text, column, details) => {
    expect(thrown(() => parseColumns(what, text))).toEqual(
      pgrst100(`failed to parse ${what} parameter (${text})`, column, details),
    );
  });
});

// ---- filter or RPC argument; {a,b} lists --------------------------------------------------------

describe('values', () => {
  // A query value is a filter when it starts with an operator, as PostgREST's hasOperator decides.
  test.each<[string, boolean]>([
    ['eq.1', true],
    ['not.x', true],
    ['fts(english).x', true],
    ['eq(any).{1}', true],
    ['neq(any).{1}', false],
    ['foo.1', false],
  ])('hasOperator(%j) is %s', (value, expected) => {
    expect(hasOperator(value)).toBe(expected);
  });

  test.each<[string, string[] | undefined]>([
    ['{a,b}', ['a', 'b']],
    [' { "a,b" , "c\\"d" } ', ['a,b', 'c"d']],
    ['a,b', undefined],
  ])('parsePgList(%j)', (text, list) => {
    expect(parsePgList(text)).toEqual(list);
  });
});

// ---- reserved keys, limit and offset (plan.ts) ---------------------------------------------------

describe('query keys', () => {
  test('select, columns and on_conflict are reserved; order/limit/offset/and/or by their last part; the rest filters or arguments', () => {
    expect(
      classify([
        ['select', 'id'],
        ['id', 'eq.1'],
        ['order', 'id.desc'],
        ['order', 'name'],
        ['limit', '5'],
        ['offset', '10'],
        ['or', '(a.eq.1)'],
        ['not.and', '(a.eq.1)'],
        ['columns', 'a,b'],
        ['on_conflict', 'id'],
        ['name', 'apple'],
        ['rel.col', 'x'],
      ]),
    ).toEqual({
      select: 'id',
      columns: 'a,b',
      onConflict: 'id',
      order: ['id.desc', 'name'],
      limit: '5',
      offset: '10',
      logic: [
        ['or', '(a.eq.1)'],
        ['not.and', '(a.eq.1)'],
      ],
      filters: [
        ['id', 'eq.1'],
        ['rel.col', 'x'],
      ],
      args: [['name', 'apple']],
    });
  });

  test('without select every column is read', () => {
    expect(classify([])).toEqual({ select: '*', order: [], logic: [], filters: [], args: [] });
  });

  test.each(['clients.order', 'clients.not.or'])('%s is 400 PGRST108: nothing is embedded', (key) => {
    expect(thrown(() => classify([[key, 'id']]))).toEqual({
      status: 400,
      code: 'PGRST108',
      message: "'clients' is not an embedded resource in this request",
      details: null,
      hint: "Verify that 'clients' is included in the 'select' query parameter.",
    });
  });

  test.each<[[string, string][], { offset: number; limit?: number }]>([
    [
      [
        ['limit', '5'],
        ['offset', '10'],
      ],
      { offset: 10, limit: 5 },
    ],
    [
      [
        ['limit', 'abc'],
        ['offset', '1.5'],
      ],
      { offset: 0 },
    ],
  ])('limit and offset %j', (query, range) => {
    expect(readRange(classify(query), undefined, undefined)).toEqual(range);
  });

  test('a negative limit is 416 PGRST103', () => {
    expect(thrown(() => readRange(classify([['limit', '-1']]), undefined, undefined))).toEqual({
      status: 416,
      code: 'PGRST103',
      message: 'Requested range not satisfiable',
      details: 'Limit should be greater than or equal to zero.',
      hint: null,
    });
  });
});
