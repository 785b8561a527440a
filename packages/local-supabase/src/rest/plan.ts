// From a parsed request to a checked plan: every table and column name is confirmed against the
// schema cache, the row range is worked out, and the write payload is validated.
import type { Db } from '../db/types.ts';
import { ApiError, errors } from './errors.ts';
import type { Negotiated, Preferences } from './headers.ts';
import {
  type Field,
  hasOperator,
  type LogicTree,
  type OrderTerm,
  parseColumns,
  parseFilter,
  parseLogic,
  parseOrder,
  parseSelect,
  type SelectItem,
} from './parser.ts';
import type { SchemaCache, Table } from './schema.ts';
import type { InsertGroup, MutatePlan, Plan, PlannedSelect, ReadPlan } from './sql.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestInput {
  method: Method;
  table: string;
  /** Query-string pairs in order, `+` already read as a space. */
  query: [string, string][];
  prefer: Preferences;
  accept: Negotiated;
  /** The Range header's rows (GET and HEAD only). */
  range?: { lower: number; upper?: number };
  /** Raw JSON body of POST and PATCH. */
  body?: string;
  /** supabase/config.toml [api] max_rows. */
  maxRows?: number;
}

const RESERVED = new Set(['select', 'columns', 'on_conflict']);
const EMBEDDABLE = new Set(['order', 'limit', 'offset', 'and', 'or']);

export interface Classified {
  select: string;
  columns?: string;
  onConflict?: string;
  order: string[];
  limit?: string;
  offset?: string;
  logic: [string, string][];
  filters: [string, string][];
  /** Keys that are neither reserved nor filters: a function's arguments on GET /rpc. */
  args: [string, string][];
}

export function classify(query: [string, string][]): Classified {
  const out: Classified = { select: '*', order: [], logic: [], filters: [], args: [] };
  for (const [key, value] of query) {
    if (key === 'select') out.select = value;
    else if (key === 'columns') out.columns = value;
    else if (key === 'on_conflict') out.onConflict = value;
    else {
      const parts = key.split('.');
      const last = parts[parts.length - 1];
      if (EMBEDDABLE.has(last)) {
        const path = parts.slice(0, -1).filter((p) => p !== 'not');
        if (path.length > 0) throw errors.notEmbedded(path[0]);
        if (last === 'order') out.order.push(value);
        else if (last === 'limit') out.limit = value;
        else if (last === 'offset') out.offset = value;
        else out.logic.push([key, value]);
      } else if (!RESERVED.has(key) && (key.includes('.') || hasOperator(value))) {
        out.filters.push([key, value]);
      } else if (!RESERVED.has(key)) {
        // An RPC argument, which a table request ignores (as PostgREST does).
        out.args.push([key, value]);
      }
    }
  }
  return out;
}

/** Integers as Haskell's readMaybe reads them; anything else leaves the range alone, as in PostgREST. */
function readInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The rows a read returns: `limit` / `offset`, narrowed by a Range header and [api] max_rows. */
export function readRange(
  q: Classified,
  range: { lower: number; upper?: number } | undefined,
  maxRows: number | undefined,
): { offset: number; limit?: number } {
  const limit = readInt(q.limit);
  const offset = readInt(q.offset);
  if (limit !== undefined && limit < 0) throw errors.invalidRange('Limit should be greater than or equal to zero.');
  let lower = offset ?? 0;
  let upper = limit === undefined ? Number.POSITIVE_INFINITY : lower + limit - 1;
  if (range) {
    lower = Math.max(lower, range.lower);
    upper = Math.min(upper, range.upper ?? Number.POSITIVE_INFINITY);
  }
  if (maxRows !== undefined) upper = Math.min(upper, lower + maxRows - 1);
  return { offset: lower, limit: Number.isFinite(upper) ? Math.max(0, upper - lower + 1) : undefined };
}

class Checker {
  private table: Table;
  private readonly cache: SchemaCache;

  constructor(table: Table, cache: SchemaCache) {
    this.table = table;
    this.cache = cache;
  }

  get current(): Table {
    return this.table;
  }

  /** Confirms columns read by select, filters and order; 42703 as Postgres would raise. */
  async readable(fields: Field[]): Promise<void> {
    const { table, missing } = await this.cache.missingColumn(
      this.table,
      fields.map((f) => f.name),
    );
    this.table = table;
    if (missing !== undefined) throw errors.undefinedColumn(table.name, missing);
  }

  /** Confirms payload, `columns` and `on_conflict` names; PGRST204 as PostgREST answers. */
  async writable(names: string[]): Promise<void> {
    const { table, missing } = await this.cache.missingColumn(this.table, names);
    this.table = table;
    if (missing !== undefined) throw errors.columnNotFound(table.name, missing);
  }
}

export function treeFields(t: LogicTree, out: Field[] = []): Field[] {
  if (t.kind === 'filter') out.push(t.filter.field);
  else for (const c of t.children) treeFields(c, out);
  return out;
}

export async function planSelect(items: SelectItem[], table: Table, db: Db): Promise<PlannedSelect[]> {
  const planned: PlannedSelect[] = [];
  for (const item of items) {
    if (item.kind === 'relation') throw errors.noRelationship(table.name, item.name);
    if (item.kind === 'star') {
      planned.push({ kind: 'star' });
      continue;
    }
    let castType: string | undefined;
    if (item.cast !== undefined) castType = await resolveType(db, item.cast);
    planned.push({ kind: 'field', field: item.field, alias: item.alias, castType });
  }
  return planned;
}

/** A cast's type name, canonicalised by Postgres itself; unknown types answer 42704. */
async function resolveType(db: Db, name: string): Promise<string> {
  let resolved: string | null = null;
  try {
    const [row] = await db.query<{ t: string | null }>(
      'select pg_catalog.format_type(pg_catalog.to_regtype($1::text), null) as t',
      [name],
    );
    resolved = row?.t ?? null;
  } catch {
    resolved = null;
  }
  if (!resolved) throw ApiError.pgrst(400, '42704', `type "${name}" does not exist`);
  return resolved;
}

export function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.trim() === '') throw errors.invalidBody('Empty or invalid json');
  try {
    return JSON.parse(body);
  } catch {
    throw errors.invalidBody('Empty or invalid json');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface ParsedQuery {
  q: Classified;
  selectItems: ReturnType<typeof parseSelect>;
  where: LogicTree[];
  order: OrderTerm[];
}

/** Parsed query strings, most recently used last: a client repeats the same few request shapes. */
const parsedQueries = new Map<string, ParsedQuery>();
const PARSED_QUERIES_KEPT = 1000;

/**
 * The query string parsed: select, filters, logic trees and order. Pure, so a query string seen before is
 * answered from `parsedQueries`; the parsed values are only read afterwards. One that fails is not kept.
 */
function parseQuery(query: [string, string][]): ParsedQuery {
  const key = query.map(([k, v]) => `${k}\u0000${v}`).join('\u0001');
  const kept = parsedQueries.get(key);
  if (kept) {
    parsedQueries.delete(key);
    parsedQueries.set(key, kept);
    return kept;
  }
  const q = classify(query);
  const selectItems = parseSelect(q.select);
  const where: LogicTree[] = [];
  for (const [k, value] of q.filters) {
    const { path, filter } = parseFilter(k, value);
    if (path.length > 0) throw errors.notEmbedded(path[0]);
    where.push({ kind: 'filter', filter });
  }
  for (const [k, value] of q.logic) where.push(parseLogic(k, value).tree);
  const order: OrderTerm[] = q.order.flatMap((v) => parseOrder(v));
  const parsed = { q, selectItems, where, order };
  parsedQueries.set(key, parsed);
  if (parsedQueries.size > PARSED_QUERIES_KEPT) parsedQueries.delete(parsedQueries.keys().next().value as string);
  return parsed;
}

export async function planRequest(input: RequestInput, cache: SchemaCache, db: Db): Promise<Plan> {
  const table = await cache.table(input.table);
  if (!table) throw errors.tableNotFound(input.table, cache.suggest(input.table));
  const checker = new Checker(table, cache);

  const { q, selectItems, where, order } = parseQuery(input.query);

  const readFields = [
    ...selectItems.flatMap((i) => (i.kind === 'field' ? [i.field] : [])),
    ...where.flatMap((t) => treeFields(t)),
    ...order.map((o) => o.field),
  ];
  await checker.readable(readFields);
  const select = await planSelect(selectItems, checker.current, db);

  const base = {
    select,
    where,
    single: input.accept.single,
    stripNulls: input.accept.stripNulls,
  };

  if (input.method === 'GET' || input.method === 'HEAD') {
    const plan: ReadPlan = {
      kind: 'read',
      table: checker.current,
      ...base,
      order,
      ...readRange(q, input.range, input.maxRows),
      // planned: the planner's estimate only; estimated: exact up to max_rows, past it the estimate.
      count: input.prefer.count === 'exact' || input.prefer.count === 'estimated',
      countCap: input.prefer.count === 'estimated' && input.maxRows !== undefined ? input.maxRows + 1 : undefined,
    };
    return plan;
  }

  const returning = input.prefer.return ?? 'minimal';
  // `limit` / `offset` (with `order`) limit an update or delete, as PostgREST allows.
  const limit = readInt(q.limit);
  if (limit !== undefined && limit < 0) throw errors.invalidRange('Limit should be greater than or equal to zero.');
  const offset = Math.max(0, readInt(q.offset) ?? 0);
  const limited = limit !== undefined || offset > 0;
  const mutation = { ...base, returning, order, offset, limit: input.method === 'POST' ? undefined : limit };
  if (input.method === 'DELETE') {
    if (where.length === 0 && !limited) throw errors.requiresWhere('DELETE');
    const plan: MutatePlan = { kind: 'delete', table: checker.current, ...mutation, columns: [] };
    return plan;
  }

  const payload = parseJsonBody(input.body);
  const raw = (input.body as string).trim();
  let columns: string[];
  if (q.columns !== undefined) {
    columns = parseColumns('columns', q.columns);
  } else if (Array.isArray(payload)) {
    if (!payload.every(isObject)) throw errors.invalidBody('All object keys must match');
    const first = payload.length ? Object.keys(payload[0] as object) : [];
    const sameKeys = (o: object) => {
      const keys = Object.keys(o);
      return keys.length === first.length && keys.every((k) => first.includes(k));
    };
    if (!payload.every((o) => sameKeys(o as object))) throw errors.invalidBody('All object keys must match');
    columns = first;
  } else if (isObject(payload)) {
    columns = Object.keys(payload);
  } else {
    throw errors.invalidBody('Empty or invalid json');
  }
  await checker.writable(columns);

  if (input.method === 'PATCH') {
    if (!isObject(payload)) {
      throw ApiError.pgrst(400, '22023', 'cannot call populate_composite on an array');
    }
    if (where.length === 0 && !limited) throw errors.requiresWhere('UPDATE');
    const plan: MutatePlan = { kind: 'update', table: checker.current, ...mutation, columns, payload: raw };
    return plan;
  }

  // POST: insert, or upsert with Prefer: resolution=...
  let onConflict: MutatePlan['onConflict'];
  if (input.prefer.resolution) {
    const target = q.onConflict !== undefined ? parseColumns('on_conflict', q.onConflict) : checker.current.primaryKey;
    if (q.onConflict !== undefined) await checker.writable(target);
    if (target.length) {
      onConflict = { columns: target, action: input.prefer.resolution === 'merge-duplicates' ? 'update' : 'nothing' };
    }
  }
  let groups: InsertGroup[];
  if (input.prefer.missing === 'default') {
    // Every row over the whole column list: a key a row leaves out takes the column default, evaluated
    // for that row; rows go in (and come back) in the order sent.
    groups = [{ columns, payload: Array.isArray(payload) ? raw : `[${raw}]`, missingDefault: true }];
  } else {
    groups = [{ columns, payload: Array.isArray(payload) ? raw : `[${raw}]` }];
  }
  const plan: MutatePlan = { kind: 'insert', table: checker.current, ...mutation, columns, groups, onConflict };
  return plan;
}
