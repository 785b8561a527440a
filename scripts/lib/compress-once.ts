// gzip for the site server, done once per file as a CDN's edge cache does, not on every response.
// The e2e and Lighthouse runs load hundreds of pages from this server on the machine that runs the browser;
// compressing the largest chunks (supabase-js, about 120 KB) again for each load took CPU the browser was waiting for.
import { gzipSync } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';
import { parseAccept } from 'hono/utils/accept';
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/utils/compress';

/** Smaller bodies go as they are (gzip's header and table cost more than they save). */
const THRESHOLD_BYTES = 1024;

/** Whether an Accept-Encoding value allows gzip: named (or `*`) with a q above 0 (Hono's Accept parser). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const accepts = parseAccept(header);
  const named = accepts.find((a) => a.type.toLowerCase() === 'gzip') ?? accepts.find((a) => a.type === '*');
  return (named?.q ?? 0) > 0;
}

/**
 * Sends a compressible 200 answer gzipped, from a cache keyed by the request path that holds each body beside
 * its gzip bytes: a body that differs from the cached one (a rebuild) is compressed again.
 */
export function compressOnce(): MiddlewareHandler {
  const cache = new Map<string, { raw: Buffer; gzip: Buffer }>();
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get('Content-Type');
    if (c.req.method !== 'GET' || res.status !== 200 || !res.body || res.headers.has('Content-Encoding')) return;
    if (!type || !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type)) return;
    c.header('Vary', 'Accept-Encoding', { append: true });
    if (!acceptsGzip(c.req.header('Accept-Encoding'))) return;
    const raw = Buffer.from(await res.arrayBuffer());
    if (raw.length < THRESHOLD_BYTES) {
      c.res = new Response(raw, res);
      return;
    }
    let entry = cache.get(c.req.path);
    if (!entry?.raw.equals(raw)) {
      entry = { raw, gzip: gzipSync(raw) };
      cache.set(c.req.path, entry);
    }
    c.res = new Response(new Uint8Array(entry.gzip), res);
    c.res.headers.set('Content-Encoding', 'gzip');
    c.res.headers.set('Content-Length', String(entry.gzip.length));
  };
}
