// A REST request read once into one record, as PostgREST's userApiRequest builds its ApiRequest
// (src/PostgREST/ApiRequest.hs): the method, who asks, what they prefer and accept, the body, the query
// string and the Range header. Tables and functions plan from the same record; nothing after this
// reads the HTTP request again.
import type { Context } from 'hono';
import type { Db } from '../db/types.ts';
import { requestHeaders } from '../http.ts';
import type { JwtKeys } from '../jwt.ts';
import { identify, type JwtCache, type RequestIdentity } from './auth.ts';
import { errors } from './errors.ts';
import type { RequestContext } from './executor.ts';
import {
  checkJsonContentType,
  checkProfile,
  type Negotiated,
  negotiate,
  type Preferences,
  parsePrefer,
  parseRangeHeader,
} from './headers.ts';
import type { Method } from './plan.ts';

/** What the request names: a table (`/rest/v1/<table>`) or a function (`/rest/v1/rpc/<fn>`). */
export type Target = { table: string } | { fn: string };

export interface ApiRequest {
  target: Target;
  method: Method;
  identity: RequestIdentity;
  prefer: Preferences;
  accept: Negotiated;
  /** The raw JSON body of a write (POST, PATCH). */
  body?: string;
  /** Query-string pairs in order, `+` already read as a space. */
  query: [string, string][];
  /** The Range header's rows (GET and HEAD only). */
  range?: { lower: number; upper?: number };
  /** What the transaction's settings carry: role and claims, request.method, .path, .headers, .cookies. */
  context: RequestContext;
}

/** What identifying the caller needs: the keys, the database (for unknown roles) and the JWT cache. */
export interface Identifier {
  keys: JwtKeys;
  db: Db;
  cache: JwtCache;
}

const TABLE_METHODS = new Set<string>(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']);
const FUNCTION_METHODS = new Set<string>(['GET', 'HEAD', 'POST']);

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Reads the request in PostgREST's order, refusing at the first fault: a method the target does not take
 * (405 PGRST117), a schema other than `public` (406 PGRST106), a bad JWT or role (401/403), an unknown
 * preference under `handling=strict` (400 PGRST122), an Accept nothing answers (406 PGRST107), a write body
 * that is not JSON (415), a reversed Range (416 PGRST103).
 */
export async function readApiRequest(c: Context, target: Target, identifier: Identifier): Promise<ApiRequest> {
  const method = c.req.method.toUpperCase();
  if (!('fn' in target ? FUNCTION_METHODS : TABLE_METHODS).has(method)) throw errors.unsupportedMethod(method);
  const reading = method === 'GET' || method === 'HEAD';
  checkProfile(reading ? c.req.header('accept-profile') : c.req.header('content-profile'));
  const identity = await identify(
    { authorization: c.req.header('authorization'), apikey: c.req.header('apikey') },
    identifier.keys,
    identifier.db,
    identifier.cache,
  );
  const preferHeader = c.req.header('prefer');
  const prefer = parsePrefer(preferHeader ? [preferHeader] : []);
  const accept = negotiate(c.req.header('accept'));
  let body: string | undefined;
  if (method === 'POST' || method === 'PATCH') {
    checkJsonContentType(c.req.header('content-type'));
    body = await c.req.text();
  }
  const query = [...new URL(c.req.url).searchParams.entries()] as [string, string][];
  const range = reading ? parseRangeHeader(c.req.header('range')) : undefined;
  return {
    target,
    method: method as Method,
    identity,
    prefer,
    accept,
    body,
    query,
    range,
    context: {
      identity,
      method,
      path: 'fn' in target ? `/rpc/${target.fn}` : `/${target.table}`,
      headers: requestHeaders(c),
      cookies: parseCookies(c.req.header('cookie')),
    },
  };
}
