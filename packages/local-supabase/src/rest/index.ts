// PostgREST's HTTP surface for the tables and functions of schema `public`, mounted at /rest/v1. A router:
// each request is read once (request.ts), planned against the schema cache (plan.ts, plan-call.ts),
// run as SQL with bind parameters in one transaction under the request's role (sql.ts, executor.ts) and
// answered (respond.ts). The README's "How a request travels" walks the stages.
import { type Context, Hono } from 'hono';
import type { StackContext } from '../context.ts';
import { type TomlTable, tomlTable } from '../project.ts';
import { JwtCache } from './auth.ts';
import { errors, toApiError } from './errors.ts';
import { txEndReader, txOutcome } from './executor.ts';
import type { Preferences } from './headers.ts';
import { planRequest } from './plan.ts';
import { planCall } from './plan-call.ts';
import { type ApiRequest, type Identifier, readApiRequest, type Target } from './request.ts';
import { type Answering, answerCall, answerRead, answerWrite, errorResponse } from './respond.ts';
import { RoutineCache } from './routines.ts';
import { SchemaCache } from './schema.ts';

/** supabase/config.toml [api] max_rows: the most rows one read returns (PostgREST's db-max-rows). */
function readMaxRows(toml: TomlTable): number | undefined {
  const n = Number(tomlTable(toml.api).max_rows);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function restApp(ctx: StackContext): Hono {
  const app = new Hono();
  const cache = new SchemaCache(ctx.db);
  const routines = new RoutineCache(ctx.db);
  const txEnd = txEndReader(ctx.db);
  const identifier: Identifier = { keys: ctx.jwtKeys, db: ctx.db, cache: new JwtCache() };
  const answering: Answering = {
    db: ctx.db,
    async transactionEnd(prefer: Preferences) {
      const outcome = txOutcome(await txEnd(), prefer.tx);
      return { rollback: outcome.rollback, kinds: outcome.applied ? (['tx'] as const) : ([] as const) };
    },
  };
  const maxRows = readMaxRows(ctx.project);

  async function answer(c: Context, request: ApiRequest): Promise<Response> {
    const { target, method, query, prefer, accept, range, body } = request;
    if ('fn' in target) {
      const call = await planCall(
        { method: method as 'GET' | 'HEAD' | 'POST', fn: target.fn, query, prefer, accept, range, body, maxRows },
        routines,
        ctx.db,
      );
      return answerCall(c, answering, call, request);
    }
    const plan = await planRequest(
      { method, table: target.table, query, prefer, accept, range, body, maxRows },
      cache,
      ctx.db,
    );
    return plan.kind === 'read' ? answerRead(c, answering, plan, request) : answerWrite(c, answering, plan, request);
  }

  async function route(c: Context, target: Target): Promise<Response> {
    let request: ApiRequest | undefined;
    try {
      request = await readApiRequest(c, target, identifier);
      return await answer(c, request);
    } catch (err) {
      // Postgres's 42501 is 401 for anon and 403 for a signed-in role, as PostgREST maps it.
      return errorResponse(c, toApiError(err, request !== undefined && request.identity.role !== 'anon'));
    }
  }

  app.all('/rpc/:fn', (c) => route(c, { fn: c.req.param('fn') }));
  app.all('/:table', (c) => route(c, { table: c.req.param('table') }));
  app.all('*', (c) => errorResponse(c, errors.invalidPath()));
  return app;
}
