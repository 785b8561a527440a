// The Edge Functions host: /functions/v1/<name> runs supabase/functions/<name>/handler.ts the way
// Supabase's relay runs index.ts: JWT check per verify_jwt, Supabase's env, the caller's IP where hosted
// Supabase's edge puts it (CF-Connecting-IP), relay errors in the CLI's shapes. Functions answer CORS and
// OPTIONS themselves.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { normaliseAddress, type TrustedProxies } from '../client-address.ts';
import type { StackContext } from '../context.ts';
import { requestClientAddress } from '../http.ts';
import { type JwtKeys, verifyJwt } from '../jwt.ts';
import { functionEnv, readFunctionSettings } from './settings.ts';

export type FunctionHandler = (req: Request) => Response | Promise<Response>;

/** What a handler module's createHandler(env) receives: Supabase's variables, read as Deno.env reads them. */
export interface Env {
  get(name: string): string | undefined;
}

/** Where hosted Supabase's edge (Cloudflare) states the caller's address; the host sets it the same way. */
const CLIENT_IP_HEADER = 'cf-connecting-ip';

interface FunctionModule {
  createHandler?: (env: Env) => FunctionHandler;
  handler?: FunctionHandler;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const relayJson = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** The relay's JWT check (CLI main.ts): 401 with `{msg}` when the bearer token is missing or invalid. */
async function checkJwt(req: Request, keys: JwtKeys | string): Promise<Response | undefined> {
  const header = req.headers.get('authorization');
  if (!header) return relayJson({ msg: 'Error: Missing authorization header' }, 401);
  const [scheme, token] = header.split(' ');
  if (scheme !== 'Bearer') return relayJson({ msg: "Error: Auth header is not 'Bearer {token}'" }, 401);
  const result = await verifyJwt(token ?? '', keys);
  return result.ok ? undefined : relayJson({ msg: 'Invalid JWT' }, 401);
}

/** The socket peer's address; undefined for a request made in-process (app.request in tests). */
function peerOf(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * The request as the function sees it on Supabase: path from `/<name>`, the caller's address delivered as
 * hosted Supabase's edge (Cloudflare) delivers it. CF-Connecting-IP is set to the one address this host worked
 * out and replaces whatever the client sent in it; X-Forwarded-For keeps the client's own entries and gets the
 * socket peer appended, as Cloudflare and every appending proxy do, so its leftmost entry stays the caller's to
 * choose here exactly as on hosted Supabase (and _shared/client-ip.ts never reads it).
 */
function forwardedRequest(c: Context, trusted: TrustedProxies): Request {
  const url = new URL(c.req.url);
  url.pathname = `/${url.pathname.split('/').slice(routeDepth(c)).join('/')}`;
  const raw = c.req.raw;
  // The incoming request's own headers (the new Request copies them), so they are not copied twice.
  const headers = raw.headers;
  const ip = requestClientAddress(c, trusted);
  if (ip) headers.set(CLIENT_IP_HEADER, ip);
  else headers.delete(CLIENT_IP_HEADER);
  const peer = normaliseAddress(peerOf(c));
  if (peer) {
    const sent = headers.get('x-forwarded-for')?.trim();
    headers.set('x-forwarded-for', sent ? `${sent}, ${peer}` : peer);
  }
  const hasBody = raw.method !== 'GET' && raw.method !== 'HEAD';
  return new Request(url, {
    method: raw.method,
    headers,
    body: hasBody ? raw.body : undefined,
    signal: raw.signal,
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/** Index of the `:name` segment in the matched route, e.g. 3 in `/functions/v1/:name/*`. */
function routeDepth(c: Context): number {
  return c.req.routePath.split('/').indexOf(':name');
}

export function functionsApp(ctx: StackContext): Hono {
  const functionsDir = join(ctx.config.supabaseDir, 'functions');
  const settingsOf = readFunctionSettings(ctx.project);
  const values = functionEnv(ctx.config);
  const env: Env = { get: (name) => values[name] };
  const loaded = new Map<string, Promise<FunctionHandler>>();

  function load(name: string, file: string): Promise<FunctionHandler> {
    let pending = loaded.get(name);
    if (!pending) {
      pending = import(pathToFileURL(file).href).then((mod: FunctionModule) => {
        if (typeof mod.createHandler === 'function') return mod.createHandler(env);
        if (typeof mod.handler === 'function') return mod.handler;
        throw new Error(`${file} exports neither createHandler(env) nor handler(req)`);
      });
      // A module that failed to load is tried again on the next request.
      pending.catch(() => loaded.delete(name));
      loaded.set(name, pending);
    }
    return pending;
  }

  // Functions found on disk; a missing one is looked for again on each request (it may be added).
  const present = new Set<string>();
  const exists = (name: string, file: string) => {
    if (present.has(name)) return true;
    if (!NAME.test(name) || !existsSync(file)) return false;
    present.add(name);
    return true;
  };

  const run = async (c: Context) => {
    const name = c.req.param('name') ?? '';
    const file = join(functionsDir, name, 'handler.ts');
    if (!exists(name, file)) {
      return new Response('Function not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
    }
    if (c.req.method !== 'OPTIONS' && settingsOf(name).verifyJwt) {
      const refused = await checkJwt(c.req.raw, ctx.jwtKeys ?? ctx.config.jwtSecret);
      if (refused) return refused;
    }
    let handler: FunctionHandler;
    try {
      handler = await load(name, file);
    } catch (err) {
      console.error(`function ${name} failed to boot:`, err);
      return relayJson({ code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' }, 503);
    }
    try {
      const res = await handler(forwardedRequest(c, ctx.trustedProxies));
      if (!res || typeof res !== 'object' || typeof (res as Response).status !== 'number') {
        throw new Error('the handler did not return a Response');
      }
      // A Response made without a Content-Type is typed as the Fetch standard (and Deno) types it: a string body
      // is text/plain;charset=UTF-8. @hono/node-server's lightweight Response skips that until its body is read,
      // then sends its own spelling, so the body is read once here to make it a standard Response.
      if (!res.headers.has('content-type')) void res.body;
      return res;
    } catch (err) {
      console.error(`function ${name} failed:`, err);
      return relayJson({ code: 'WORKER_ERROR', message: 'Function exited due to an error (please check logs)' }, 500);
    }
  };

  const app = new Hono();
  app.all('/:name', run);
  app.all('/:name/*', run);
  return app;
}
