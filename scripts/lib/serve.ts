// Serves the built site (dist/) as a CDN would: static files, the 404 page with status 404, and the security
// headers the build wrote into dist/_headers for static hosts.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import {
  addSources,
  HEADERS_FILE,
  type HeaderRule,
  headersForPath,
  NGINX_FILE,
  parseHeadersFile,
} from '../../integrations/security-headers.ts';
import { compressOnce } from './compress-once.ts';

export interface SiteServerOptions {
  dir?: string;
  port?: number;
  host?: string;
  /** More origins pictures may come from besides https: (the e2e run's fixture feed server). */
  imageOrigins?: string[];
}

/**
 * The header rules the build wrote for static hosts (`_headers`, see integrations/security-headers.ts), so this
 * server sends exactly what Netlify or Cloudflare Pages send for the same build.
 */
export function loadHeaderRules(root: string, imageOrigins: string[] = []): HeaderRule[] {
  const file = resolve(root, HEADERS_FILE);
  if (!existsSync(file)) throw new Error(`${file} is missing: build the site again (npm run build)`);
  return parseHeadersFile(readFileSync(file, 'utf8')).map((rule) => ({
    path: rule.path,
    headers: rule.headers.map(([name, value]) =>
      name.toLowerCase() === 'content-security-policy'
        ? [name, addSources(value, 'img-src', imageOrigins)]
        : [name, value],
    ),
  }));
}

export function startSiteServer(options: SiteServerOptions = {}): Promise<ServerType> {
  const root = resolve(options.dir ?? process.env.SITE_DIR ?? 'dist');
  const port = options.port ?? Number(process.env.PORT || 4321);
  const host = options.host ?? '127.0.0.1';
  const rules = loadHeaderRules(root, options.imageOrigins);
  const app = new Hono();
  app.use('*', async (c, next) => {
    // The host files are configuration, not pages (Netlify and Cloudflare do not serve _headers either).
    if (c.req.path === `/${HEADERS_FILE}` || c.req.path === `/${NGINX_FILE}`) return c.notFound();
    await next();
  });
  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of headersForPath(rules, c.req.path)) c.header(name, value);
  });
  app.use('*', compressOnce());
  app.use('*', serveStatic({ root }));
  app.notFound((c) => {
    let page = 'Page Not Found';
    try {
      page = readFileSync(resolve(root, '404.html'), 'utf8');
    } catch {}
    return c.html(page, 404);
  });
  return new Promise((done, fail) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, () => done(server));
    server.once('error', fail);
  });
}

if (import.meta.main) {
  const port = Number(process.env.PORT || 4321);
  await startSiteServer({ port });
  console.log(`Site: http://127.0.0.1:${port}`);
}
