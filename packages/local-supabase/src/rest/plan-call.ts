// /rpc/<function>: which overload a request calls, with which named arguments, and how its result is
// read (select, filters, order and range apply to functions returning rows, as on tables).
// Argument names are checked against the catalog; their values travel as one JSON bind parameter.
import type { Db } from '../db/types.ts';
import { ApiError, errors } from './errors.ts';
import type { Negotiated, Preferences } from './headers.ts';
import { type LogicTree, type OrderTerm, parseFilter, parseLogic, parseOrder, parseSelect } from './parser.ts';
import { classify, parseJsonBody, planSelect, readRange, treeFields } from './plan.ts';
import type { Routine, RoutineCache, RoutineParam } from './routines.ts';
import type { Table } from './schema.ts';
import type { CallPlan } from './sql.ts';

export interface CallInput {
  method: 'GET' | 'HEAD' | 'POST';
  fn: string;
  query: [string, string][];
  prefer: Preferences;
  accept: Negotiated;
  range?: { lower: number; upper?: number };
  /** Raw JSON body of a POST. */
  body?: string;
  maxRows?: number;
}

const isJson = (p: RoutineParam) => p.type === 'json' || p.type === 'jsonb';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** PostgREST's NoRpc error (Error.hs): the argument names sorted, and a hint from the overloads that exist. */
function noFunction(input: CallInput, keys: string[], singleObject: boolean, overloads: Routine[]): ApiError {
  const func = `public.${input.fn}`;
  const sorted = [...keys].sort();
  const prms = sorted.join(', ');
  const without = sorted.length === 0;
  const message = singleObject
    ? `Could not find the function ${func} in the schema cache`
    : `Could not find the function ${func}${without ? ' without parameters' : `(${prms})`} in the schema cache`;
  const withParams = without ? ' without parameters' : ` with parameter${sorted.length > 1 ? 's' : ''} ${prms}`;
  const searched = singleObject
    ? ' with a single json/jsonb parameter'
    : input.method === 'POST'
      ? `${withParams} or with a single unnamed json/jsonb parameter`
      : withParams;
  const details = `Searched for the function ${func}${searched}, but no matches were found in the schema cache.`;
  const candidate = overloads[0];
  const hint =
    singleObject || !candidate
      ? null
      : `Perhaps you meant to call the function ${func}(${candidate.params
          .map((p) => p.name)
          .filter(Boolean)
          .sort()
          .join(', ')})`;
  return ApiError.pgrst(404, 'PGRST202', message, details, hint);
}

/** The overloads whose named arguments cover the keys given and need no other. */
function matching(overloads: Routine[], keys: string[]): Routine[] {
  return overloads.filter((r) => {
    const names = new Set(r.params.map((p) => p.name));
    return keys.every((k) => names.has(k)) && r.params.every((p) => p.optional || keys.includes(p.name));
  });
}

export async function planCall(input: CallInput, routines: RoutineCache, db: Db): Promise<CallPlan> {
  const overloads = await routines.overloads(input.fn);
  const q = classify(input.query);
  const singleObject = input.prefer.params === 'single-object';

  // The arguments: the JSON body of a POST, or the query string's non-filter keys on GET.
  let args: Record<string, unknown>;
  let rawBody: string | undefined;
  if (input.method === 'POST') {
    rawBody = input.body === undefined || input.body.trim() === '' ? '{}' : input.body;
    const value = parseJsonBody(rawBody);
    if (!isObject(value) && !singleObject) throw errors.invalidBody('Empty or invalid json');
    args = isObject(value) ? value : {};
  } else {
    args = Object.fromEntries(q.args);
    rawBody = JSON.stringify(args);
  }
  const keys = Object.keys(args);

  let routine: Routine | undefined;
  let passBody = false;
  if (singleObject) {
    routine = overloads.find((r) => r.params.length === 1 && isJson(r.params[0]));
    passBody = true;
  } else {
    const found = matching(overloads, keys);
    if (found.length > 1) throw errors.ambiguousFunction(input.fn, found);
    routine = found[0];
    if (!routine && input.method === 'POST') {
      // A function of one unnamed json/jsonb argument takes the whole body.
      routine = overloads.find((r) => r.params.length === 1 && r.params[0].name === '' && isJson(r.params[0]));
      passBody = routine !== undefined;
    }
  }
  if (!routine) throw noFunction(input, keys, singleObject, overloads);
  // max-affected counts the rows a function returns: one returning a single value cannot be limited.
  if (input.prefer.handling === 'strict' && input.prefer.maxAffected !== undefined && !routine.returnsSet) {
    throw errors.maxAffectedRpc();
  }

  const params = passBody ? [] : routine.params.filter((p) => keys.includes(p.name));
  const table: Table | undefined = routine.columns
    ? { name: input.fn, kind: 'f', columns: routine.columns, primaryKey: [] }
    : undefined;

  // Reading the result: select, filters and order name the result's columns.
  let where: LogicTree[] = [];
  let order: OrderTerm[] = [];
  let select: CallPlan['select'] = [{ kind: 'star' }];
  if (table) {
    const items = parseSelect(q.select);
    for (const [key, value] of q.filters) {
      const { path, filter } = parseFilter(key, value);
      if (path.length > 0) throw errors.notEmbedded(path[0]);
      where.push({ kind: 'filter', filter });
    }
    for (const [key, value] of q.logic) where.push(parseLogic(key, value).tree);
    order = q.order.flatMap((v) => parseOrder(v));
    const fields = [
      ...items.flatMap((i) => (i.kind === 'field' ? [i.field] : [])),
      ...where.flatMap((t) => treeFields(t)),
      ...order.map((o) => o.field),
    ];
    const missing = fields.find((f) => !table.columns.has(f.name));
    if (missing) throw errors.undefinedColumn(input.fn, missing.name);
    select = await planSelect(items, table, db);
  } else {
    where = [];
  }

  const reading = input.method !== 'POST';
  return {
    kind: 'call',
    routine,
    table,
    params,
    args: passBody ? (rawBody as string) : JSON.stringify(args),
    passBody,
    select,
    where,
    order,
    ...(routine.returnsSet ? readRange(q, input.range, input.maxRows) : { offset: 0 }),
    count: input.prefer.count !== undefined,
    single: input.accept.single,
    stripNulls: input.accept.stripNulls,
    // GET and HEAD run read-only, as PostgREST does; so does a POST to a function that is not volatile.
    readOnly: reading || routine.volatility !== 'v',
  };
}
