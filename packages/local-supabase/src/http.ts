// Gateway concerns shared by every API route: CORS, API key, body size, security headers.
import type { IncomingMessage } from 'node:http';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { clientAddress, type TrustedProxies, untrustedProxyCheck } from './client-address.ts';

export const ALLOW_HEADERS =
  'authorization, apikey, content-type, x-client-info, x-supabase-api-version, accept-profile, content-profile, prefer, x-retry-count, range, traceparent, tracestate, baggage';
export const EXPOSE_HEADERS = 'X-Supabase-Api-Version, Content-Range, x-sb-error-code, X-Total-Count, Link';
export const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD';
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The headers the gateway adds to every answer of a request (CORS, security), registered by its middlewares
 * before the route runs: a route that answers with `completeResponse` writes them into its one Response,
 * which then goes to the socket as a plain object, with no Headers object built on the way.
 * Each entry: name, value, and whether a value the route set itself wins.
 */
type GatewayHeader = [name: string, value: string, routeWins?: boolean];
const gatewayHeaders = new WeakMap<Request, GatewayHeader[]>();
/** Responses that carry the gateway's headers already. */
const complete = new WeakSet<Response>();

function addGatewayHeaders(c: Context, entries: GatewayHeader[]): void {
  const list = gatewayHeaders.get(c.req.raw);
  if (list) list.push(...entries);
  else gatewayHeaders.set(c.req.raw, [...entries]);
}

/** A Response with the route's headers and the gateway's, in one object; the middlewares leave it as it is. */
export function completeResponse(
  c: Context,
  body: string | null,
  status: number,
  headers: Record<string, string>,
): Response {
  const all: Record<string, string> = { ...headers };
  const own = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (const [name, value, routeWins] of gatewayHeaders.get(c.req.raw) ?? []) {
    if (!(routeWins && own.has(name.toLowerCase()))) all[name] = value;
  }
  const res = new Response(body, { status, headers: all });
  complete.add(res);
  return res;
}

/** CORS as GoTrue and PostgREST send it: any origin, our headers allowed and exposed, preflight answered here. */
export const cors: MiddlewareHandler = async (c, next) => {
  const origin = c.req.header('origin') ?? '*';
  if (c.req.method === 'OPTIONS') {
    return c.body(null, 204, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': ALLOW_METHODS,
      'Access-Control-Allow-Headers': c.req.header('access-control-request-headers') ?? ALLOW_HEADERS,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Max-Age': '86400',
      Vary: 'Origin',
    });
  }
  const entries: GatewayHeader[] = [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Allow-Credentials', 'true'],
    ['Access-Control-Expose-Headers', EXPOSE_HEADERS],
    ['Vary', 'Origin'],
  ];
  addGatewayHeaders(c, entries);
  await next();
  if (!complete.has(c.res)) setFinalHeaders(c, entries);
};

const SECURITY_HEADERS: GatewayHeader[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
  ['X-Frame-Options', 'DENY'],
];
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Sets the headers on the finished response in place. Hono's c.header() after a handler has answered
 * rebuilds the Response around its body as a stream on every call, which costs more than a cached
 * function answer itself; only headers that cannot change (a fetch() response passed through) take that path.
 */
export function setFinalHeaders(c: Context, entries: GatewayHeader[]): void {
  try {
    const headers = c.res.headers;
    for (const [name, value] of entries) headers.set(name, value);
  } catch {
    for (const [name, value] of entries) c.header(name, value);
  }
}

/** The security headers on every answer; a page's own Content-Security-Policy (the mail catcher's) is kept. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  addGatewayHeaders(c, [...SECURITY_HEADERS, ['Content-Security-Policy', API_CSP, true]]);
  await next();
  if (complete.has(c.res)) return;
  setFinalHeaders(
    c,
    c.res.headers.has('content-security-policy')
      ? SECURITY_HEADERS
      : [...SECURITY_HEADERS, ['Content-Security-Policy', API_CSP]],
  );
};

/** The hosted gateway refuses a request without a key before any service sees it. */
export const requireApiKey: MiddlewareHandler = async (c, next) => {
  const key = c.req.header('apikey') ?? c.req.query('apikey');
  if (!key) {
    return c.json(
      { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' },
      401,
    );
  }
  await next();
};

const bodyLimited: MiddlewareHandler = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c: Context) => c.json({ code: 'request_too_large', message: 'Request body is larger than 64 KB' }, 413),
});

/** Bodies over 64 KB are refused; GET and HEAD carry none (asking for one would build a full Request). */
export const limitBody: MiddlewareHandler = (c, next) =>
  c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : bodyLimited(c, next);

/** Unread request bodies up to this size are read and dropped after an early answer; larger ones close. */
export const DISCARD_MAX_BYTES = 1024 * 1024;
const DISCARD_TIMEOUT_MS = 5_000;

/** Reads the rest of `stream` and drops it; false when it took longer than the time limit or failed. */
async function discard(stream: ReadableStream<Uint8Array>): Promise<boolean> {
  const reader = stream.getReader();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), DISCARD_TIMEOUT_MS);
  });
  const drained = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })().catch(() => false);
  const ok = await Promise.race([drained, timedOut]);
  clearTimeout(timer);
  if (!ok) reader.cancel().catch(() => {});
  return ok;
}

/**
 * An early answer (401 before the body is read, 413 on Content-Length) must not leave a keep-alive client
 * with a connection whose unread body bytes would be taken for its next request: a small body that nobody
 * read is read and dropped before the answer goes out; otherwise the answer says `Connection: close` and
 * the connection ends after it, so the client's next request opens a new one.
 */
export const settleUnreadBody: MiddlewareHandler = async (c, next) => {
  await next();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.readableEnded || c.req.method === 'GET' || c.req.method === 'HEAD') return;
  const length = Number(c.req.header('content-length'));
  const raw = c.req.raw;
  if (Number.isFinite(length) && length <= DISCARD_MAX_BYTES && !raw.bodyUsed && raw.body) {
    if (await discard(raw.body)) return;
  }
  setFinalHeaders(c, [['Connection', 'close']]);
};

/** The socket peer's address; undefined for a request made in-process (app.request in tests). */
function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** The gateway's once-only warning about X-Forwarded-For from a local proxy nobody trusts (client-address.ts). */
export function warnUntrustedProxy(trusted: TrustedProxies): MiddlewareHandler {
  const check = untrustedProxyCheck(trusted);
  if (!check) return (_c, next) => next();
  return async (c, next) => {
    const forwardedFor = c.req.header('x-forwarded-for');
    if (forwardedFor) {
      let remote: { address?: string; port?: number } = {};
      try {
        remote = getConnInfo(c).remote;
      } catch {
        // An in-process request (app.request in tests) has no peer.
      }
      check(remote.address, remote.port, forwardedFor);
    }
    await next();
  };
}

/** The request's client address by the stack's one rule (client-address.ts). */
export function requestClientAddress(c: Context, trusted: TrustedProxies): string | undefined {
  return clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), trusted);
}

/** Requests whose headers the gateway rewrote (translateApiKeys): Node's parsed headers are not theirs. */
const rewritten = new WeakSet<Request>();

/** Records that the gateway changed the request's headers (its Headers object holds the result). */
export function markHeadersRewritten(c: Context): void {
  rewritten.add(c.req.raw);
}

/**
 * The request's headers as one object with lower-case names (PostgREST's request.headers). Read from
 * Node's own parse of the request when it came over a socket, which builds no Headers object; from the
 * Request's Headers when the gateway rewrote them or the request was made in-process.
 */
export function requestHeaders(c: Context): Record<string, string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const out: Record<string, string> = {};
  if (incoming && !rewritten.has(c.req.raw)) {
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }
  c.req.raw.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
