// Runs one planned statement in one transaction under the request's role, as PostgREST does:
// set_config(role, request.jwt.claims, request.*) first, then the statement; RLS is Postgres's own.
import type { BatchStatement, Db, Row } from '../db/types.ts';
import type { RequestIdentity } from './auth.ts';
import type { Statement } from './sql.ts';

export interface RequestContext {
  identity: RequestIdentity;
  method: string;
  /** The path PostgREST would see, e.g. `/profiles`. */
  path: string;
  /** Request headers, lower-cased names, as request.headers. */
  headers: Record<string, string>;
  cookies: Record<string, string>;
}

export interface StatementResult {
  /** The exact row count when Prefer: count=... asked for it. */
  total?: number;
  /** Rows in this answer (or affected by the write). */
  pageTotal: number;
  /** The JSON body built by Postgres ('' for return=minimal). */
  body: string;
  /** Rows an upsert inserted (the rest were updated or ignored); undefined for other statements. */
  inserted?: number;
  /** The planner's row estimate of `options.explain`, when asked. */
  plannedRows?: number;
}

// Also, as PostgREST does: the impersonated role's own statement_timeout ($8, read from the catalog at most
// once a second; SET ROLE does not apply a role's settings, and NULL, for a role with none, resets to the
// login's), and the legacy per-claim settings emptied so a value set for the whole session (psql's
// `set request.jwt.claim.sub = …` on PGlite's one session) cannot make every request act as that user.
const SETTINGS =
  "pg_catalog.set_config('search_path', $1::text, true), " +
  "pg_catalog.set_config('role', $2::text, true), " +
  "pg_catalog.set_config('statement_timeout', $8::text, true), " +
  "pg_catalog.set_config('request.jwt.claim', '', true), " +
  "pg_catalog.set_config('request.jwt.claim.sub', '', true), " +
  "pg_catalog.set_config('request.jwt.claim.role', '', true), " +
  "pg_catalog.set_config('request.jwt.claim.email', '', true), " +
  "pg_catalog.set_config('request.jwt.claims', $3::text, true), " +
  "pg_catalog.set_config('request.method', $4::text, true), " +
  "pg_catalog.set_config('request.path', $5::text, true), " +
  "pg_catalog.set_config('request.headers', $6::text, true), " +
  "pg_catalog.set_config('request.cookies', $7::text, true)";
// The preamble answers one row of no columns: the values it sets are not read back, and each value answered
// costs the driver parsing (on PGlite, more than the rest of a profile read's answer). Postgres still runs
// every set_config: a subquery whose select list calls a volatile function is neither flattened nor trimmed
// of unused columns.
const PREAMBLE = `select from (select ${SETTINGS}) settings`;
// GET and HEAD of a function, like PostgREST's read-only transactions: a write in it fails with 25006.
const READ_ONLY_PREAMBLE = `select from (select ${SETTINGS}, pg_catalog.set_config('transaction_read_only', 'on', true)) settings`;

// The API roles' statement_timeout (ALTER ROLE … SET), a database's own setting over the cluster-wide one.
const ROLE_TIMEOUTS_SQL = `
  select r.rolname as role, pg_catalog.substr(c, 19) as timeout
    from pg_catalog.pg_db_role_setting s
    join pg_catalog.pg_roles r on r.oid = s.setrole
   cross join lateral pg_catalog.unnest(s.setconfig) c
   where s.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database()))
     and r.rolname in ('anon', 'authenticated', 'service_role')
     and c like 'statement\\_timeout=%'
   order by s.setdatabase`;

const timeoutCache = new WeakMap<Db, { value: Promise<Map<string, string>>; readAt: number }>();

/** Each API role's statement_timeout, re-read at most once a second (requests meanwhile share one read). */
function roleTimeouts(db: Db): Promise<Map<string, string>> {
  const cached = timeoutCache.get(db);
  if (cached && Date.now() - cached.readAt < 1000) return cached.value;
  const entry = { value: Promise.resolve(new Map<string, string>()), readAt: Date.now() };
  // A failed read (the database is down) is not kept: the next request reads again.
  entry.value = db
    .query<{ role: string; timeout: string }>(ROLE_TIMEOUTS_SQL)
    .then((rows) => new Map(rows.map((r) => [r.role, r.timeout])))
    .catch((err: unknown) => {
      if (timeoutCache.get(db) === entry) timeoutCache.delete(db);
      throw err;
    });
  timeoutCache.set(db, entry);
  return entry.value;
}

interface RawResult {
  total: string | null;
  page_total: number;
  body: string;
  inserted?: number | null;
}

/**
 * Runs `stmt` as the request's role. `check` sees the result inside the transaction: throwing there
 * rolls the write back (a single-object answer that is not one row, a max-affected overrun).
 * The preamble, the statement (and the EXPLAIN) go to the database as one batch: on PGlite one call
 * with BEGIN and COMMIT when nothing needs to be checked first, two otherwise.
 */
export async function execute(
  db: Db,
  ctx: RequestContext,
  stmt: Statement,
  check?: (result: StatementResult) => void,
  options: { readOnly?: boolean; rollback?: boolean; explain?: Statement } = {},
): Promise<StatementResult> {
  const timeouts = await roleTimeouts(db);
  const statements: BatchStatement[] = [
    {
      text: options.readOnly ? READ_ONLY_PREAMBLE : PREAMBLE,
      params: [
        'public, extensions',
        ctx.identity.role,
        JSON.stringify(ctx.identity.claims),
        ctx.method,
        ctx.path,
        JSON.stringify(ctx.headers),
        JSON.stringify(ctx.cookies),
        timeouts.get(ctx.identity.role) ?? null,
      ],
    },
    stmt,
  ];
  // As the request's role, so row-level security is part of the plan, as in PostgREST.
  if (options.explain) {
    statements.push({ text: `EXPLAIN (FORMAT JSON) ${options.explain.text}`, params: options.explain.params });
  }
  const commitOrRollback = options.rollback ? 'rollback' : 'commit';
  let result: StatementResult | undefined;
  const results = await db.batch(
    statements,
    check
      ? (rows) => {
          result = toResult(rows);
          check(result);
          // Prefer: tx=rollback (or db_tx_end = rollback): answer as if committed, keep nothing.
          return commitOrRollback;
        }
      : commitOrRollback,
  );
  return result ?? toResult(results);
}

function toResult(results: Row[][]): StatementResult {
  const row = results[1]?.[0] as unknown as RawResult | undefined;
  const result: StatementResult = {
    total: row?.total === null || row?.total === undefined ? undefined : Number(row.total),
    pageTotal: Number(row?.page_total ?? 0),
    body: row?.body ?? '',
    inserted: row?.inserted === null || row?.inserted === undefined ? undefined : Number(row.inserted),
  };
  if (results.length > 2) {
    const doc = results[2]?.[0]?.['QUERY PLAN'];
    const parsed = (typeof doc === 'string' ? JSON.parse(doc) : doc) as { Plan?: { 'Plan Rows'?: number } }[];
    result.plannedRows = Number(parsed?.[0]?.Plan?.['Plan Rows'] ?? 0);
  }
  return result;
}

/** How a transaction ends: PostgREST's db-tx-end, from the authenticator role's in-database config. */
export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

const TX_END_SQL = `
  select s.setting from pg_catalog.pg_db_role_setting rs
    join pg_catalog.pg_roles r on r.oid = rs.setrole and r.rolname = 'authenticator'
    cross join lateral unnest(rs.setconfig) s(setting)
   where rs.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database()))
     and s.setting like 'pgrst.db_tx_end=%'
   order by rs.setdatabase desc
   limit 1`;

/**
 * Reads `ALTER ROLE authenticator SET pgrst.db_tx_end = ...` (PostgREST's in-database config), re-read
 * at most once a second; default commit.
 */
export function txEndReader(db: Db): () => Promise<TxEnd> {
  let value: TxEnd = 'commit';
  let readAt = 0;
  return async () => {
    if (Date.now() - readAt < 1000) return value;
    readAt = Date.now();
    const [row] = await db.query<{ setting: string }>(TX_END_SQL);
    const v = row?.setting.slice('pgrst.db_tx_end='.length);
    value = v === 'commit-allow-override' || v === 'rollback' || v === 'rollback-allow-override' ? v : 'commit';
    return value;
  };
}

/** Whether this request's transaction rolls back, and whether its Prefer: tx was honoured. */
export function txOutcome(
  end: TxEnd,
  prefer: 'commit' | 'rollback' | undefined,
): { rollback: boolean; applied: boolean } {
  const override = end.endsWith('allow-override');
  const base = end.startsWith('rollback');
  if (override && prefer) return { rollback: prefer === 'rollback', applied: true };
  return { rollback: base, applied: false };
}
