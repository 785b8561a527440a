// PostgREST's HTTP surface for the tables of schema `public`, mounted at /rest/v1.
// request -> identify (JWT) -> parse + plan (schema cache) -> SQL with bind parameters -> one transaction
// under the request's role -> the status, headers and body PostgREST would answer.
import { type Context, Hono } from 'hono';
import type { StackContext } from '../context.ts';
import { completeResponse, requestHeaders } from '../http.ts';
import { type TomlTable, tomlTable } from '../project.ts';
import { identify, JwtCache } from './auth.ts';
import { type ApiError, errors, toApiError } from './errors.ts';
import { execute, type RequestContext, type StatementResult, txEndReader, txOutcome } from './executor.ts';
import {
  appliedPreferences,
  checkJsonContentType,
  checkProfile,
  type Negotiated,
  negotiate,
  type Preferences,
  parsePrefer,
  parseRangeHeader,
} from './headers.ts';
import { type Method, planRequest } from './plan.ts';
import { planCall } from './plan-call.ts';
import { RoutineCache } from './routines.ts';
import { SchemaCache } from './schema.ts';
import {
  buildCall,
  buildCountSource,
  buildMutation,
  buildRead,
  type CallPlan,
  type MutatePlan,
  type ReadPlan,
} from './sql.ts';

const METHODS = new Set<string>(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']);

/** supabase/config.toml [api] max_rows: the most rows one read returns (PostgREST's db-max-rows). */
function readMaxRows(toml: TomlTable): number | undefined {
  const n = Number(tomlTable(toml.api).max_rows);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** Content-Range as PostgREST writes it: `lower-upper/total`, `*` where a part is unknown or empty. */
function contentRange(lower: number, upper: number, total: number | undefined): string {
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : '*';
  return `${range}/${total ?? '*'}`;
}

function canonicalQuery(query: [string, string][]): string {
  return [...query]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
}

function errorResponse(c: Context, err: ApiError): Response {
  return completeResponse(c, JSON.stringify(err.body), err.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Proxy-Status': `PostgREST; error=${err.body.code}`,
    ...err.headers,
  });
}

export function restApp(ctx: StackContext): Hono {
  const app = new Hono();
  const cache = new SchemaCache(ctx.db);
  const routines = new RoutineCache(ctx.db);
  const txEnd = txEndReader(ctx.db);
  const jwtCache = new JwtCache();
  /** How this request's transaction ends, and the Preference-Applied kinds that adds. */
  const transactionEnd = async (prefer: Preferences) => {
    const outcome = txOutcome(await txEnd(), prefer.tx);
    return { rollback: outcome.rollback, kinds: outcome.applied ? (['tx'] as const) : ([] as const) };
  };
  const maxRows = readMaxRows(ctx.project);

  app.all('/rpc/:fn', async (c) => {
    const method = c.req.method.toUpperCase();
    const fn = c.req.param('fn');
    let authed = false;
    try {
      if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') throw errors.unsupportedMethod(method);
      checkProfile(method === 'POST' ? c.req.header('content-profile') : c.req.header('accept-profile'));
      const identity = await identify(
        { authorization: c.req.header('authorization'), apikey: c.req.header('apikey') },
        ctx.jwtKeys,
        ctx.db,
        jwtCache,
      );
      authed = identity.role !== 'anon';
      const prefer = parsePrefer(c.req.header('prefer') ? [c.req.header('prefer') as string] : []);
      const accept = negotiate(c.req.header('accept'));
      let body: string | undefined;
      if (method === 'POST') {
        checkJsonContentType(c.req.header('content-type'));
        body = await c.req.text();
      }
      const url = new URL(c.req.url);
      const query = [...url.searchParams.entries()] as [string, string][];
      const plan = await planCall(
        {
          method: method as 'GET' | 'HEAD' | 'POST',
          fn,
          query,
          prefer,
          accept,
          range: method === 'POST' ? undefined : parseRangeHeader(c.req.header('range')),
          body,
          maxRows,
        },
        routines,
        ctx.db,
      );
      const rc: RequestContext = {
        identity,
        method,
        path: `/rpc/${fn}`,
        headers: requestHeaders(c),
        cookies: parseCookies(c.req.header('cookie')),
      };
      return await answerCall(c, plan, rc, prefer, accept);
    } catch (err) {
      return errorResponse(c, toApiError(err, authed));
    }
  });

  app.all('/:table', async (c) => {
    const method = c.req.method.toUpperCase();
    const table = c.req.param('table');
    let authed = false;
    try {
      if (!METHODS.has(method)) throw errors.unsupportedMethod(method);
      const reading = method === 'GET' || method === 'HEAD';
      checkProfile(reading ? c.req.header('accept-profile') : c.req.header('content-profile'));

      const identity = await identify(
        { authorization: c.req.header('authorization'), apikey: c.req.header('apikey') },
        ctx.jwtKeys,
        ctx.db,
        jwtCache,
      );
      authed = identity.role !== 'anon';

      const prefer = parsePrefer(c.req.header('prefer') ? [c.req.header('prefer') as string] : []);
      const accept = negotiate(c.req.header('accept'));
      let body: string | undefined;
      if (method === 'POST' || method === 'PATCH') {
        checkJsonContentType(c.req.header('content-type'));
        body = await c.req.text();
      }
      const url = new URL(c.req.url);
      const query = [...url.searchParams.entries()] as [string, string][];

      const plan = await planRequest(
        {
          method: method as Method,
          table,
          query,
          prefer,
          accept,
          range: reading ? parseRangeHeader(c.req.header('range')) : undefined,
          body,
          maxRows,
        },
        cache,
        ctx.db,
      );

      const requestContext: RequestContext = {
        identity,
        method,
        path: `/${table}`,
        headers: requestHeaders(c),
        cookies: parseCookies(c.req.header('cookie')),
      };

      if (plan.kind === 'read') return await answerRead(c, plan, requestContext, query, prefer, accept);
      return await answerWrite(c, plan, requestContext, prefer, accept);
    } catch (err) {
      return errorResponse(c, toApiError(err, authed));
    }
  });

  app.all('*', (c) => errorResponse(c, errors.invalidPath()));

  async function answerRead(
    c: Context,
    plan: ReadPlan,
    rc: RequestContext,
    query: [string, string][],
    prefer: Preferences,
    accept: Negotiated,
  ) {
    const end = await transactionEnd(prefer);
    const estimate = prefer.count === 'planned' || prefer.count === 'estimated';
    const result = await execute(ctx.db, rc, buildRead(plan), undefined, {
      rollback: end.rollback,
      explain: estimate ? buildCountSource(plan) : undefined,
    });
    // count=estimated: the exact count while it stays within max_rows, else the planner's estimate.
    if (
      prefer.count === 'planned' ||
      (prefer.count === 'estimated' && plan.countCap !== undefined && (result.total ?? 0) >= plan.countCap)
    ) {
      result.total = result.plannedRows;
    }
    if (plan.single && result.pageTotal !== 1) throw errors.singular(result.pageTotal);
    const lower = plan.offset;
    const upper = lower + result.pageTotal - 1;
    const total = result.total;
    const headers: Record<string, string> = {
      'Content-Range': contentRange(lower, upper, total),
      'Content-Location': `/${plan.table.name}${query.length ? `?${canonicalQuery(query)}` : ''}`,
      'Content-Type': accept.contentType,
    };
    const applied = appliedPreferences(prefer, ['count', ...end.kinds]);
    if (applied) headers['Preference-Applied'] = applied;
    if (total !== undefined && lower > total) {
      throw errors.invalidRange(`An offset of ${lower} was requested, but there are only ${total} rows.`);
    }
    const status = total !== undefined && 1 + upper - lower < total ? 206 : 200;
    if (rc.method === 'HEAD') return completeResponse(c, null, status, headers);
    return completeResponse(c, result.body, status, headers);
  }

  async function answerCall(c: Context, plan: CallPlan, rc: RequestContext, prefer: Preferences, accept: Negotiated) {
    const end = await transactionEnd(prefer);
    // Prefer: handling=strict, max-affected=n on a function returning rows (planCall refuses the others).
    const limitAffected = prefer.handling === 'strict' && prefer.maxAffected !== undefined;
    const result = await execute(
      ctx.db,
      rc,
      buildCall(plan),
      (r) => {
        if (plan.single && plan.routine.returnsSet && r.pageTotal !== 1) throw errors.singular(r.pageTotal);
        // Thrown inside the transaction, so whatever the function wrote is rolled back.
        if (limitAffected && r.pageTotal > (prefer.maxAffected as number)) throw errors.maxAffected(r.pageTotal);
      },
      { readOnly: plan.readOnly, rollback: end.rollback },
    );
    const lower = plan.offset;
    const upper = lower + result.pageTotal - 1;
    const total = result.total;
    const applied = appliedPreferences(prefer, [
      'count',
      ...end.kinds,
      ...(limitAffected ? (['handling', 'max-affected'] as const) : []),
    ]);
    // A void function answers 204, with the Content-Range PostgREST sends for its one (empty) result.
    if (plan.routine.returnsVoid) {
      const voidHeaders: Record<string, string> = { 'Content-Range': contentRange(lower, upper, total) };
      if (applied) voidHeaders['Preference-Applied'] = applied;
      return completeResponse(c, null, 204, voidHeaders);
    }
    const headers: Record<string, string> = {
      'Content-Range': contentRange(lower, upper, total),
      'Content-Type': accept.contentType,
    };
    if (applied) headers['Preference-Applied'] = applied;
    const status = total !== undefined && 1 + upper - lower < total ? 206 : 200;
    if (rc.method === 'HEAD') return completeResponse(c, null, status, headers);
    return completeResponse(c, result.body, status, headers);
  }

  async function answerWrite(
    c: Context,
    plan: MutatePlan,
    rc: RequestContext,
    prefer: Preferences,
    accept: Negotiated,
  ) {
    const limitAffected = prefer.handling === 'strict' && prefer.maxAffected !== undefined && plan.kind !== 'insert';
    const end = await transactionEnd(prefer);
    const result: StatementResult = await execute(
      ctx.db,
      rc,
      buildMutation(plan),
      (r) => {
        if (plan.single && r.pageTotal !== 1) throw errors.singular(r.pageTotal);
        if (limitAffected && r.pageTotal > (prefer.maxAffected as number)) throw errors.maxAffected(r.pageTotal);
      },
      { rollback: end.rollback },
    );
    const count = prefer.count !== undefined ? result.pageTotal : undefined;
    const headers: Record<string, string> = {};
    headers['Content-Range'] =
      plan.kind === 'update' ? contentRange(0, result.pageTotal - 1, count) : contentRange(1, 0, count);
    const applied = appliedPreferences(prefer, [
      'return',
      'count',
      ...(plan.onConflict ? (['resolution'] as const) : []),
      ...(plan.kind === 'insert' ? (['missing'] as const) : []),
      ...(limitAffected ? (['handling', 'max-affected'] as const) : []),
      ...end.kinds,
    ]);
    if (applied) headers['Preference-Applied'] = applied;

    if (plan.returning === 'headers-only' && plan.kind === 'insert' && plan.table.primaryKey.length && result.body) {
      const rows = JSON.parse(result.body) as Record<string, unknown>[] | Record<string, unknown>;
      const first = Array.isArray(rows) ? rows[0] : rows;
      if (first) {
        const q = plan.table.primaryKey.map(
          (k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(first[k]))}`,
        );
        headers.Location = `/${plan.table.name}?${q.join('&')}`;
      }
    }
    // A merge-duplicates upsert that only updated rows created nothing: 200. Every other insert is 201,
    // even an ignore-duplicates upsert that inserted nothing, as PostgREST answers (Response.hs).
    const created =
      plan.kind === 'insert' &&
      !(prefer.resolution === 'merge-duplicates' && (result.inserted ?? result.pageTotal) <= 0);
    if (plan.returning === 'representation') {
      headers['Content-Type'] = accept.contentType;
      return completeResponse(c, result.body, created ? 201 : 200, headers);
    }
    return completeResponse(c, null, created ? 201 : plan.kind === 'insert' ? 200 : 204, headers);
  }

  return app;
}
