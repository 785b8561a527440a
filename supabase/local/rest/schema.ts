// The schema cache: tables and columns of schema `public`, read from pg_catalog.
// Every identifier a request names is looked up here before any SQL is built; a miss re-reads
// the catalog once (tables created after start, e.g. by a migration or a test, are found).
import type { Db } from '../db/index.ts';

export interface Column {
  name: string;
  /** format_type() of the column's type without modifier, e.g. `integer`, `timestamp with time zone`. */
  type: string;
  /** The column's DEFAULT expression from the catalog (pg_get_expr), for Prefer: missing=default. */
  defaultExpr?: string;
  /** pg_attribute.attidentity: 'a' always / 'd' by default, '' for none. */
  identity?: string;
}

export interface Table {
  name: string;
  /** pg_class.relkind: r table, p partitioned, v view, m materialized view, f foreign table. */
  kind: string;
  columns: Map<string, Column>;
  primaryKey: string[];
}

const CATALOG_SQL = `
  select c.relname as table_name,
         c.relkind::text as kind,
         a.attname as column_name,
         pg_catalog.format_type(a.atttypid, null) as type,
         coalesce(a.attnum = any (pk.indkey::int2[]), false) as is_pk,
         pg_catalog.pg_get_expr(d.adbin, d.adrelid) as default_expr,
         a.attidentity::text as identity
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    left join pg_catalog.pg_index pk on pk.indrelid = c.oid and pk.indisprimary
   where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'f')
   order by c.relname, a.attnum`;

interface CatalogRow {
  table_name: string;
  kind: string;
  column_name: string | null;
  type: string | null;
  is_pk: boolean;
  default_expr: string | null;
  identity: string | null;
}

export class SchemaCache {
  private tables = new Map<string, Table>();
  private loading: Promise<void> | undefined;
  private loadedAt = 0;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async refresh(): Promise<void> {
    if (!this.loading) {
      this.loading = (async () => {
        try {
          const rows = await this.db.query<CatalogRow>(CATALOG_SQL);
          const tables = new Map<string, Table>();
          for (const r of rows) {
            let t = tables.get(r.table_name);
            if (!t) {
              t = { name: r.table_name, kind: r.kind, columns: new Map(), primaryKey: [] };
              tables.set(r.table_name, t);
            }
            if (r.column_name && r.type) {
              t.columns.set(r.column_name, {
                name: r.column_name,
                type: r.type,
                defaultExpr: r.default_expr ?? undefined,
                identity: r.identity ?? '',
              });
              if (r.is_pk) t.primaryKey.push(r.column_name);
            }
          }
          this.tables = tables;
          this.loadedAt = Date.now();
        } finally {
          this.loading = undefined;
        }
      })();
    }
    return this.loading;
  }

  /** The table, re-reading the catalog once if it is not known yet. */
  async table(name: string): Promise<Table | undefined> {
    if (this.loadedAt === 0) await this.refresh();
    let t = this.tables.get(name);
    if (!t) {
      await this.refresh();
      t = this.tables.get(name);
    }
    return t;
  }

  /** Makes sure every name is a column of `table` (re-reading once on a miss); returns the missing one, if any. */
  async missingColumn(table: Table, names: Iterable<string>): Promise<{ table: Table; missing?: string }> {
    const list = [...names];
    let current = table;
    let missing = list.find((n) => !current.columns.has(n));
    if (missing !== undefined) {
      await this.refresh();
      current = this.tables.get(table.name) ?? table;
      missing = list.find((n) => !current.columns.has(n));
    }
    return { table: current, missing };
  }

  /** PostgREST's "Perhaps you meant the table ..." hint: the closest known name, if close enough. */
  suggest(name: string): string | null {
    let best: string | undefined;
    let bestScore = 0;
    for (const candidate of this.tables.keys()) {
      const score = similarity(name.toLowerCase(), candidate.toLowerCase());
      if (score > bestScore) {
        bestScore = score;
        best = candidate;
      }
    }
    return best !== undefined && bestScore >= 0.75 ? `Perhaps you meant the table 'public.${best}'` : null;
  }
}

/** 1 - Levenshtein distance / longer length. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return 1 - prev[b.length] / longer;
}
