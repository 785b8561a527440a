// Serves the built site (dist/) as a CDN would: static files, the 404 page with status 404, security headers.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { compress } from 'hono/compress';

export interface SiteServerOptions {
  dir?: string;
  port?: number;
  host?: string;
  /** The Supabase API the pages call, allowed in connect-src. */
  supabaseUrl?: string;
  /** More origins pictures may come from besides https: (the e2e run's fixture feed server). */
  imageOrigins?: string[];
}

export function contentSecurityPolicy(supabaseUrl: string, imageOrigins: string[] = []): string {
  return [
    "default-src 'self'",
    // TradingView: the chart widget's script on /trading-ideas, and the frames it opens.
    "script-src 'self' 'unsafe-inline' https://s3.tradingview.com",
    "style-src 'self' 'unsafe-inline'",
    ["img-src 'self' data: https:", ...imageOrigins].join(' '),
    "font-src 'self'",
    `connect-src 'self' ${supabaseUrl}`,
    'frame-src https://www.tradingview-widget.com',
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export function startSiteServer(options: SiteServerOptions = {}): Promise<ServerType> {
  const root = resolve(options.dir ?? process.env.SITE_DIR ?? 'dist');
  const port = options.port ?? Number(process.env.PORT ?? 4321);
  const host = options.host ?? '127.0.0.1';
  const csp = contentSecurityPolicy(
    options.supabaseUrl ?? process.env.PUBLIC_SUPABASE_URL ?? 'http://127.0.0.1:54321',
    options.imageOrigins,
  );
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', csp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
    c.header('X-Frame-Options', 'DENY');
    c.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    if (c.req.path.startsWith('/_astro/')) c.header('Cache-Control', 'public, max-age=31536000, immutable');
  });
  app.use('*', compress());
  app.use('*', serveStatic({ root }));
  app.notFound((c) => {
    let page = 'Page Not Found';
    try {
      page = readFileSync(resolve(root, '404.html'), 'utf8');
    } catch {}
    return c.html(page, 404);
  });
  return new Promise((done) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, () => done(server));
  });
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 4321);
  await startSiteServer({ port });
  console.log(`Site: http://127.0.0.1:${port}`);
}
