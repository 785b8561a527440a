// The answer to a planned request: runs its statement in one transaction (executor.ts) and writes the
// status, headers and body PostgREST would (its Response.hs), or the error body a refusal gets.
import type { Context } from 'hono';
import type { Db } from '../db/types.ts';
import { completeResponse } from '../http.ts';
import { type ApiError, errors } from './errors.ts';
import { execute, type StatementResult } from './executor.ts';
import { appliedPreferences, type Preferences } from './headers.ts';
import type { ApiRequest } from './request.ts';
import {
  buildCall,
  buildCountSource,
  buildMutation,
  buildRead,
  type CallPlan,
  type MutatePlan,
  type ReadPlan,
} from './sql.ts';

/** What answering needs beyond the request: the database, and how this request's transaction ends. */
export interface Answering {
  db: Db;
  /** The end `Prefer: tx` and the database's setting decide, and the Preference-Applied kind that adds. */
  transactionEnd(prefer: Preferences): Promise<{ rollback: boolean; kinds: readonly 'tx'[] }>;
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

/** A refusal, with PostgREST's error body and its Proxy-Status header. */
export function errorResponse(c: Context, err: ApiError): Response {
  return completeResponse(c, JSON.stringify(err.body), err.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Proxy-Status': `PostgREST; error=${err.body.code}`,
    ...err.headers,
  });
}

/** A read of a table: rows, Content-Range and Content-Location; 206 for part of a counted total. */
export async function answerRead(c: Context, rt: Answering, plan: ReadPlan, request: ApiRequest): Promise<Response> {
  const { prefer, accept, query, context: rc } = request;
  const end = await rt.transactionEnd(prefer);
  const estimate = prefer.count === 'planned' || prefer.count === 'estimated';
  const result = await execute(rt.db, rc, buildRead(plan), undefined, {
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

/** A function call: its result as rows (or one value), 204 for a void function. */
export async function answerCall(c: Context, rt: Answering, plan: CallPlan, request: ApiRequest): Promise<Response> {
  const { prefer, accept, context: rc } = request;
  const end = await rt.transactionEnd(prefer);
  // Prefer: handling=strict, max-affected=n on a function returning rows (planCall refuses the others).
  const limitAffected = prefer.handling === 'strict' && prefer.maxAffected !== undefined;
  const result = await execute(
    rt.db,
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

/** An insert, update, upsert or delete: 201 / 200 / 204, the rows when `return=representation` asks. */
export async function answerWrite(c: Context, rt: Answering, plan: MutatePlan, request: ApiRequest): Promise<Response> {
  const { prefer, accept, context: rc } = request;
  const limitAffected = prefer.handling === 'strict' && prefer.maxAffected !== undefined && plan.kind !== 'insert';
  const end = await rt.transactionEnd(prefer);
  const result: StatementResult = await execute(
    rt.db,
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
      const q = plan.table.primaryKey.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(first[k]))}`);
      headers.Location = `/${plan.table.name}?${q.join('&')}`;
    }
  }
  // A merge-duplicates upsert that only updated rows created nothing: 200. Every other insert is 201,
  // even an ignore-duplicates upsert that inserted nothing, as PostgREST answers (Response.hs).
  const created =
    plan.kind === 'insert' && !(prefer.resolution === 'merge-duplicates' && (result.inserted ?? result.pageTotal) <= 0);
  if (plan.returning === 'representation') {
    headers['Content-Type'] = accept.contentType;
    return completeResponse(c, result.body, created ? 201 : 200, headers);
  }
  return completeResponse(c, null, created ? 201 : plan.kind === 'insert' ? 200 : 204, headers);
}
