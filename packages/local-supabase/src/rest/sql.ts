// SQL for a checked request plan, shaped like PostgREST's: the rows go through a CTE and the JSON body
// is built by Postgres (json_agg), so PGlite and PostgreSQL answer byte for byte the same.
//
// Identifiers reach this file only after the schema cache confirmed them (see plan.ts) and are quoted
// with `"` doubling. Every value a client sends is a bind parameter, written `$n::text` and cast in SQL
// to the column's type, so both drivers pass it as plain text and Postgres parses it as PostgREST's
// untyped literals would be.
import type { Field, Filter, LogicTree, OrderTerm } from './parser.ts';
import type { Routine, RoutineParam } from './routines.ts';
import type { Table } from './schema.ts';

export interface PlannedSelect {
  kind: 'star' | 'field';
  field?: Field;
  alias?: string;
  /** The cast's canonical type name, from format_type(to_regtype(...)). */
  castType?: string;
}

interface Base {
  table: Table;
  select: PlannedSelect[];
  /** Root filters and and/or trees; all must hold. */
  where: LogicTree[];
  single: boolean;
  stripNulls: boolean;
}

export interface ReadPlan extends Base {
  kind: 'read';
  order: OrderTerm[];
  offset: number;
  limit?: number;
  /** Count the matching rows exactly (count=exact), or up to `countCap` rows (count=estimated). */
  count: boolean;
  countCap?: number;
}

/** Rows inserted by one INSERT: the columns it names and a JSON array of objects. */
export interface InsertGroup {
  columns: string[];
  payload: string;
  /** Prefer: missing=default: a key a row leaves out takes the column's default, for that row. */
  missingDefault?: boolean;
}

export interface MutatePlan extends Base {
  kind: 'insert' | 'update' | 'delete';
  /** Payload columns of an update. */
  columns: string[];
  /** The JSON object of an update. */
  payload?: string;
  /**
   * The rows of an insert: one group, or (Prefer: missing=default) one per set of keys present, so a
   * key missing from a row takes the column default instead of null.
   */
  groups?: InsertGroup[];
  onConflict?: { columns: string[]; action: 'update' | 'nothing' };
  returning: 'minimal' | 'representation' | 'headers-only';
  /** A limited update or delete (`limit`, `offset`, `order`), applied through the rows' ctid. */
  order: OrderTerm[];
  offset: number;
  limit?: number;
}

/** A call of /rpc/<function>. */
export interface CallPlan {
  kind: 'call';
  routine: Routine;
  /** The result's columns as a table, when the function returns rows of a composite type. */
  table?: Table;
  /** The named arguments given, each bound from the JSON object `args`. */
  params: RoutineParam[];
  /** JSON text: the arguments object, or the whole body when `passBody`. */
  args: string;
  /** The body is the function's one json/jsonb argument (params=single-object, or one unnamed argument). */
  passBody: boolean;
  select: PlannedSelect[];
  where: LogicTree[];
  order: OrderTerm[];
  offset: number;
  limit?: number;
  count: boolean;
  single: boolean;
  stripNulls: boolean;
  readOnly: boolean;
}

export type Plan = ReadPlan | MutatePlan;

export interface Statement {
  text: string;
  params: string[];
}

/** `"name"` with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
  match: '~',
  imatch: '~*',
  isdistinct: 'IS DISTINCT FROM',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
};

const FTS_FUNCTIONS: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

class Builder {
  readonly params: string[];
  /** Spell `*` out as the table's columns (when `from` carries extra columns of its own). */
  readonly explicitStar: boolean;
  readonly from: string;
  readonly table: Table;

  constructor(
    table: Table,
    from = `"public".${quoteIdent(table.name)}`,
    options: { params?: string[]; explicitStar?: boolean } = {},
  ) {
    this.table = table;
    this.from = from;
    this.params = options.params ?? [];
    this.explicitStar = options.explicitStar ?? false;
  }

  param(value: string): string {
    this.params.push(value);
    return `$${this.params.length}::text`;
  }

  column(name: string): string {
    return `${this.from}.${quoteIdent(name)}`;
  }

  /** The field's SQL and the type a compared value is cast to. */
  field(f: Field): { sql: string; type: string } {
    const column = this.table.columns.get(f.name);
    if (!column) throw new Error(`unchecked column ${f.name}`);
    let sql = this.column(f.name);
    let type = column.type;
    for (const op of f.json) {
      const key = op.index ? `(${this.param(op.key)})::int` : this.param(op.key);
      sql = `(${sql} ${op.arrow} ${key})`;
      type = op.arrow === '->>' ? 'text' : column.type;
    }
    return { sql, type };
  }

  filter(f: Filter): string {
    const { sql: lhs, type } = this.field(f.field);
    const op = f.operation;
    let cond: string;
    switch (op.kind) {
      case 'is':
        cond = `${lhs} IS ${op.value.toUpperCase()}`;
        break;
      case 'in': {
        const values = [...op.values];
        const empty = values.indexOf('');
        if (empty >= 0) values.splice(empty, 1);
        cond =
          values.length === 0
            ? 'false'
            : `${lhs} IN (${values.map((v) => `CAST(${this.param(v)} AS ${type})`).join(', ')})`;
        break;
      }
      case 'fts': {
        const fn = FTS_FUNCTIONS[op.op];
        const config = op.config === undefined ? '' : `(${this.param(op.config)})::regconfig, `;
        const vector = type === 'tsvector' ? lhs : `pg_catalog.to_tsvector(${config}${lhs})`;
        cond = `${vector} @@ pg_catalog.${fn}(${config}${this.param(op.value)})`;
        break;
      }
      case 'op': {
        const sqlOp = OPERATORS[op.op];
        const textual = op.op === 'like' || op.op === 'ilike' || op.op === 'match' || op.op === 'imatch';
        const value = op.op === 'like' || op.op === 'ilike' ? op.value.replaceAll('*', '%') : op.value;
        if (op.quantifier) {
          const arrayType = textual ? 'text[]' : `${type}[]`;
          cond = `${lhs} ${sqlOp} ${op.quantifier.toUpperCase()}(CAST(${this.param(value)} AS ${arrayType}))`;
        } else if (textual) {
          cond = `${lhs} ${sqlOp} ${this.param(value)}`;
        } else {
          cond = `${lhs} ${sqlOp} CAST(${this.param(value)} AS ${type})`;
        }
        break;
      }
    }
    return f.negate ? `NOT (${cond})` : cond;
  }

  tree(t: LogicTree): string {
    if (t.kind === 'filter') return this.filter(t.filter);
    const inner = t.children.map((c) => this.tree(c)).join(t.op === 'and' ? ' AND ' : ' OR ');
    return `${t.negate ? 'NOT ' : ''}(${inner})`;
  }

  where(trees: LogicTree[]): string {
    return trees.length ? ` WHERE ${trees.map((t) => this.tree(t)).join(' AND ')}` : '';
  }

  selectList(items: PlannedSelect[]): string {
    return items
      .map((item) => {
        if (item.kind === 'star') {
          if (!this.explicitStar) return `${this.from}.*`;
          return [...this.table.columns.keys()].map((c) => this.column(c)).join(', ');
        }
        const f = item.field as Field;
        let { sql } = this.field(f);
        if (item.castType) sql = `CAST(${sql} AS ${item.castType})`;
        const last = f.json[f.json.length - 1];
        const name = item.alias ?? (last ? last.key : item.castType ? f.name : undefined);
        return name === undefined ? sql : `${sql} AS ${quoteIdent(name)}`;
      })
      .join(', ');
  }

  order(terms: OrderTerm[]): string {
    if (!terms.length) return '';
    const parts = terms.map((t) => {
      let s = this.field(t.field).sql;
      if (t.direction) s += ` ${t.direction.toUpperCase()}`;
      if (t.nulls) s += ` NULLS ${t.nulls.toUpperCase()}`;
      return s;
    });
    return ` ORDER BY ${parts.join(', ')}`;
  }
}

/** The JSON body over the CTE's rows: an array, or the first row for a single-object answer. */
function bodyExpr(plan: Base): string {
  const row = plan.stripNulls ? 'pg_catalog.json_strip_nulls(pg_catalog.to_json(_postgrest_t))' : '_postgrest_t';
  return plan.single
    ? `coalesce((pg_catalog.json_agg(${row}) -> 0)::text, '')`
    : `coalesce(pg_catalog.json_agg(${row}), '[]')::text`;
}

export function buildRead(plan: ReadPlan): Statement {
  const b = new Builder(plan.table);
  const where = b.where(plan.where);
  const select = b.selectList(plan.select);
  const order = b.order(plan.order);
  const limit = plan.limit === undefined ? '' : ` LIMIT CAST(${b.param(String(plan.limit))} AS bigint)`;
  const offset = plan.offset ? ` OFFSET CAST(${b.param(String(plan.offset))} AS bigint)` : '';
  const capped = plan.countCap === undefined ? '' : ` LIMIT CAST(${b.param(String(plan.countCap))} AS bigint)`;
  const total = !plan.count
    ? 'NULL::text'
    : capped
      ? `(SELECT pg_catalog.count(*) FROM (SELECT 1 FROM ${b.from}${where}${capped}) pgrst_capped)::text`
      : `(SELECT pg_catalog.count(*) FROM ${b.from}${where})::text`;
  const text =
    `WITH pgrst_source AS (SELECT ${select} FROM ${b.from}${where}${order}${limit}${offset}) ` +
    `SELECT ${total} AS total, pg_catalog.count(_postgrest_t)::int AS page_total, ${bodyExpr(plan)} AS body ` +
    'FROM (SELECT * FROM pgrst_source) _postgrest_t';
  return { text, params: b.params };
}

/** The rows a read matches, for the planner's estimate (count=planned|estimated): EXPLAIN of this. */
export function buildCountSource(plan: ReadPlan): Statement {
  const b = new Builder(plan.table);
  const where = b.where(plan.where);
  return { text: `SELECT 1 FROM ${b.from}${where}`, params: b.params };
}

export function buildMutation(plan: MutatePlan): Statement {
  const b = new Builder(plan.table);
  const returning =
    plan.returning === 'representation'
      ? b.selectList(plan.select)
      : plan.returning === 'headers-only' && plan.table.primaryKey.length
        ? plan.table.primaryKey.map((c) => b.column(c)).join(', ')
        : '1';
  // A limited update or delete picks its rows first, by ctid, as PostgREST does.
  const limited = plan.limit !== undefined || plan.offset > 0;
  const mutationWhere = () => {
    const where = b.where(plan.where);
    if (!limited) return where;
    const limit = plan.limit === undefined ? '' : ` LIMIT CAST(${b.param(String(plan.limit))} AS bigint)`;
    const offset = plan.offset ? ` OFFSET CAST(${b.param(String(plan.offset))} AS bigint)` : '';
    return ` WHERE ${b.from}.ctid = ANY (ARRAY(SELECT ${b.from}.ctid FROM ${b.from}${where}${b.order(plan.order)}${limit}${offset}))`;
  };
  let ctes: string;
  let inserted = 'NULL::int';
  switch (plan.kind) {
    case 'insert': {
      // An upsert also says how many rows were inserted (xmax = 0) rather than updated: 201 or 200.
      const upsert = plan.onConflict !== undefined;
      const rowReturning = upsert ? `${b.from}.*, (${b.from}.xmax = 0) AS pgrst_inserted` : returning;
      const inserts = (plan.groups ?? []).map((g) => {
        const cols = g.columns.map(quoteIdent).join(', ');
        const target = g.columns.length ? ` (${cols})` : '';
        let conflict = '';
        if (plan.onConflict) {
          const on = plan.onConflict.columns.map(quoteIdent).join(', ');
          const sets = g.columns.map((c) => `${quoteIdent(c)} = EXCLUDED.${quoteIdent(c)}`).join(', ');
          conflict =
            plan.onConflict.action === 'update' && sets
              ? ` ON CONFLICT (${on}) DO UPDATE SET ${sets}`
              : ` ON CONFLICT (${on}) DO NOTHING`;
        }
        if (g.missingDefault && g.columns.length) {
          // As PostgREST builds it: each row is `jsonb_build_object(<every listed column's default>) || row`,
          // so every default of the column list is evaluated for every row, sent key or not (a sequence
          // advances once per row and column, as on hosted Supabase), and the keys a row sends win.
          // Defaults come from the catalog (pg_get_expr), never from the request; names are bind parameters.
          const defaults = g.columns.flatMap((c) => {
            const expr = plan.table.columns.get(c)?.defaultExpr;
            return expr === undefined ? [] : [`${b.param(c)}, ${expr}`];
          });
          const rows =
            `(SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(${defaults.join(', ')}) || pgrst_row.j ORDER BY pgrst_row.n) ` +
            `FROM pg_catalog.jsonb_array_elements((${b.param(g.payload)})::jsonb) WITH ORDINALITY AS pgrst_row(j, n))`;
          return (
            `INSERT INTO ${b.from}${target} SELECT ${cols} ` +
            `FROM pg_catalog.jsonb_populate_recordset(NULL::${b.from}, ${rows}) _${conflict} RETURNING ${rowReturning}`
          );
        }
        return (
          `INSERT INTO ${b.from}${target} SELECT ${cols} ` +
          `FROM pg_catalog.json_populate_recordset(NULL::${b.from}, (${b.param(g.payload)})::json) _${conflict} RETURNING ${rowReturning}`
        );
      });
      const target = upsert ? 'pgrst_mut' : 'pgrst_source';
      if (inserts.length === 1) {
        ctes = `${target} AS (${inserts[0]})`;
      } else {
        const parts = inserts.map((sql, i) => `pgrst_insert_${i} AS (${sql})`);
        const union = inserts.map((_, i) => `SELECT * FROM pgrst_insert_${i}`).join(' UNION ALL ');
        ctes = `${parts.join(', ')}, ${target} AS (${union})`;
      }
      if (upsert) {
        const m = new Builder(plan.table, 'pgrst_mut', { params: b.params, explicitStar: true });
        const outer =
          plan.returning === 'representation'
            ? m.selectList(plan.select)
            : plan.returning === 'headers-only' && plan.table.primaryKey.length
              ? plan.table.primaryKey.map((c) => m.column(c)).join(', ')
              : '1';
        ctes += `, pgrst_source AS (SELECT ${outer} FROM pgrst_mut)`;
        inserted = '(SELECT pg_catalog.count(*) FROM pgrst_mut WHERE pgrst_mut.pgrst_inserted)::int';
      }
      break;
    }
    case 'update': {
      const where = mutationWhere();
      if (!plan.columns.length) {
        ctes = `pgrst_source AS (SELECT ${returning} FROM ${b.from} WHERE false)`;
        break;
      }
      const payload = b.param(plan.payload ?? '{}');
      const sets = plan.columns.map((c) => `${quoteIdent(c)} = _.${quoteIdent(c)}`).join(', ');
      ctes =
        `pgrst_source AS (UPDATE ${b.from} SET ${sets} ` +
        `FROM (SELECT * FROM pg_catalog.json_populate_record(NULL::${b.from}, (${payload})::json)) _${where} RETURNING ${returning})`;
      break;
    }
    case 'delete':
      ctes = `pgrst_source AS (DELETE FROM ${b.from}${mutationWhere()} RETURNING ${returning})`;
      break;
  }
  const body = plan.returning === 'minimal' ? "''" : bodyExpr(plan);
  const text =
    `WITH ${ctes} ` +
    `SELECT NULL::text AS total, pg_catalog.count(_postgrest_t)::int AS page_total, ${body} AS body, ${inserted} AS inserted ` +
    'FROM (SELECT * FROM pgrst_source) _postgrest_t';
  return { text, params: b.params };
}

/**
 * SELECT over the function's result, as PostgREST's callPlan: the arguments come from one JSON
 * parameter through json_to_record, typed by the catalog, and are passed by name.
 */
export function buildCall(plan: CallPlan): Statement {
  const r = plan.routine;
  const pseudo: Table = plan.table ?? { name: r.name, kind: 'f', columns: new Map(), primaryKey: [] };
  const b = new Builder(pseudo, 'pgrst_call_rows');
  const fn = `"public".${quoteIdent(r.name)}`;
  let from: string;
  if (plan.passBody) {
    from = `${fn}((${b.param(plan.args)})::${r.params[0].type}) pgrst_call`;
  } else if (plan.params.length === 0) {
    from = `${fn}() pgrst_call`;
  } else {
    const record = plan.params.map((p) => `${quoteIdent(p.name)} ${p.type}`).join(', ');
    const named = plan.params
      .map((p) => `${quoteIdent(p.name)} := ${p.variadic ? 'VARIADIC ' : ''}pgrst_args.${quoteIdent(p.name)}`)
      .join(', ');
    from =
      `pg_catalog.json_to_record((${b.param(plan.args)})::json) AS pgrst_args(${record}), ` +
      `LATERAL ${fn}(${named}) pgrst_call`;
  }
  // A scalar result is one column named after the function, read as pgrst_scalar.
  const scalar = !plan.table;
  const fromScalar = scalar ? from.replace(/ pgrst_call$/, ' pgrst_call(pgrst_scalar)') : from;
  // The call's rows, once: the count reads the same rows, so a volatile function runs a single time.
  const rows = `pgrst_call_rows AS (SELECT ${scalar ? 'pgrst_call.pgrst_scalar' : 'pgrst_call.*'} FROM ${fromScalar})`;
  const where = scalar ? '' : b.where(plan.where);
  const select = scalar ? 'pgrst_call_rows.pgrst_scalar' : b.selectList(plan.select);
  const order = scalar ? '' : b.order(plan.order);
  const limit = plan.limit === undefined ? '' : ` LIMIT CAST(${b.param(String(plan.limit))} AS bigint)`;
  const offset = plan.offset ? ` OFFSET CAST(${b.param(String(plan.offset))} AS bigint)` : '';
  // count=exact counts every function's rows, as PostgREST does: 1 for a function returning one value.
  const total = plan.count ? `(SELECT pg_catalog.count(*) FROM pgrst_call_rows${where})::text` : 'NULL::text';
  let body: string;
  if (r.returnsVoid) body = "''";
  else if (scalar) {
    body = r.returnsSet
      ? "coalesce(pg_catalog.json_agg(_postgrest_t.pgrst_scalar), '[]')::text"
      : "coalesce((pg_catalog.json_agg(_postgrest_t.pgrst_scalar) -> 0)::text, 'null')";
  } else {
    body = bodyExpr({ ...plan, single: plan.single || !r.returnsSet } as Base);
    if (!r.returnsSet) body = body.replace(/, ''\)$/, ", 'null')");
  }
  const text =
    `WITH ${rows}, pgrst_source AS (SELECT ${select} FROM pgrst_call_rows${where}${order}${limit}${offset}) ` +
    `SELECT ${total} AS total, pg_catalog.count(_postgrest_t)::int AS page_total, ${body} AS body ` +
    'FROM (SELECT * FROM pgrst_source) _postgrest_t';
  return { text, params: b.params };
}
