// The functions of schema `public` callable under /rpc, read from pg_catalog like the table cache:
// arguments (names, types, defaults) and what they return. A miss re-reads the catalog once.
import type { Db } from '../db/types.ts';
import type { Column } from './schema.ts';

export interface RoutineParam {
  /** '' for an unnamed argument. */
  name: string;
  /** format_type() of the argument's type, e.g. `integer`, `jsonb`, `text[]`. */
  type: string;
  /** Has a default, so a call may leave it out. */
  optional: boolean;
  variadic: boolean;
}

export interface Routine {
  name: string;
  params: RoutineParam[];
  /** RETURNS SETOF / TABLE. */
  returnsSet: boolean;
  /** RETURNS void. */
  returnsVoid: boolean;
  /** The columns of a composite result (a table's row type, TABLE(...), several OUT parameters). */
  columns?: Map<string, Column>;
  /** pg_proc.provolatile: i immutable, s stable, v volatile. */
  volatility: string;
}

// PostgREST leaves out trigger functions, procedures and aggregates: only plain functions are callable.
const ROUTINES_SQL = `
  select p.proname as name,
         p.proretset as returns_set,
         (p.prorettype = 'pg_catalog.void'::pg_catalog.regtype) as returns_void,
         p.provolatile::text as volatility,
         p.pronargs::int as nargs,
         p.pronargdefaults::int as ndefaults,
         coalesce(p.proargnames, array[]::text[]) as arg_names,
         coalesce(p.proargmodes::text[], array[]::text[]) as arg_modes,
         array(select pg_catalog.format_type(a.t, null)
                 from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality a(t, i)
                order by a.i) as arg_types,
         case when rt.typrelid <> 0 then
           array(select pg_catalog.json_build_object('name', att.attname, 'type', pg_catalog.format_type(att.atttypid, null))
                   from pg_catalog.pg_attribute att
                  where att.attrelid = rt.typrelid and att.attnum > 0 and not att.attisdropped
                  order by att.attnum)::text[]
         end as row_columns
    from pg_catalog.pg_proc p
    join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    join pg_catalog.pg_type rt on rt.oid = p.prorettype
   where n.nspname = 'public' and p.prokind = 'f'
     and p.prorettype <> 'pg_catalog.trigger'::pg_catalog.regtype
   order by p.proname, p.oid`;

interface RoutineRow {
  name: string;
  returns_set: boolean;
  returns_void: boolean;
  volatility: string;
  nargs: number;
  ndefaults: number;
  arg_names: string[];
  arg_modes: string[];
  arg_types: string[];
  row_columns: string[] | null;
}

function toRoutine(r: RoutineRow): Routine {
  const params: RoutineParam[] = [];
  const out = new Map<string, Column>();
  r.arg_types.forEach((type, i) => {
    const mode = r.arg_modes[i] ?? 'i';
    const name = r.arg_names[i] ?? '';
    if (mode === 'i' || mode === 'b' || mode === 'v') {
      params.push({ name, type, optional: false, variadic: mode === 'v' });
    }
    if (mode === 'o' || mode === 'b' || mode === 't') out.set(name, { name, type });
  });
  // The last `pronargdefaults` input arguments have defaults.
  for (let i = params.length - r.ndefaults; i < params.length; i++) if (i >= 0) params[i].optional = true;
  let columns: Map<string, Column> | undefined;
  if (out.size > 1 || (out.size === 1 && r.arg_modes.includes('t'))) {
    columns = out;
  } else if (r.row_columns) {
    columns = new Map();
    for (const text of r.row_columns) {
      const c = JSON.parse(text) as Column;
      columns.set(c.name, c);
    }
  }
  return {
    name: r.name,
    params,
    returnsSet: r.returns_set,
    returnsVoid: r.returns_void,
    columns,
    volatility: r.volatility,
  };
}

export class RoutineCache {
  private byName = new Map<string, Routine[]>();
  private loaded = false;
  private loading: Promise<void> | undefined;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async refresh(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await this.db.query<RoutineRow>(ROUTINES_SQL);
        const byName = new Map<string, Routine[]>();
        for (const row of rows) {
          const list = byName.get(row.name) ?? [];
          list.push(toRoutine(row));
          byName.set(row.name, list);
        }
        this.byName = byName;
        this.loaded = true;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** Every overload of `name`, re-reading the catalog once when there is none. */
  async overloads(name: string): Promise<Routine[]> {
    if (!this.loaded) await this.refresh();
    let list = this.byName.get(name);
    if (!list) {
      await this.refresh();
      list = this.byName.get(name);
    }
    return list ?? [];
  }

  /** All known function names (for the "Perhaps you meant" hint). */
  names(): string[] {
    return [...this.byName.keys()];
  }
}
