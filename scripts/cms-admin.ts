// The content editor at /admin/: Decap CMS's own bundle, copied from node_modules (the CSP allows no other
// origin's scripts), a static page that loads it, and config.yml generated from the content schemas
// (scripts/cms-config.ts). `astro build` writes them into the build; `astro dev` (and `npm run cms`) serves
// them with a config that saves through the local proxy (decap-server) into the working copy.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CmsOptions, cmsOptionsFromEnv, renderCmsConfig } from './cms-config.ts';

export const ADMIN_PATH = '/admin/';
const DECAP_DIST = resolve('node_modules/decap-cms/dist');

/** The admin page: no inline script or style, so its CSP needs no hashes (src/lib/admin-headers.ts). */
export const ADMIN_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex, nofollow">
    <title>Content editor · SignalOne</title>
    <link href="config.yml" type="text/yaml" rel="cms-config-url">
  </head>
  <body>
    <script src="decap-cms.js"></script>
  </body>
</html>
`;

/** The bundle and the chunks and WebAssembly files it loads from next to itself (no source maps). */
function decapFiles(): string[] {
  return readdirSync(DECAP_DIST).filter((f) => /(^|\.)decap-cms\.js$|\.wasm$/.test(f));
}

/** Writes the admin into a built site: dir/admin/{index.html,config.yml,decap-cms.js,…}. */
export function writeAdmin(dir: string, options: CmsOptions = cmsOptionsFromEnv()): number {
  const out = join(dir, 'admin');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), ADMIN_HTML);
  writeFileSync(join(out, 'config.yml'), renderCmsConfig(options));
  const files = decapFiles();
  for (const file of files) copyFileSync(join(DECAP_DIST, file), join(out, file));
  return files.length;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.yml': 'text/yaml; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** The dev server's /admin/: config.yml made afresh on each load, so a schema change shows on reload. */
function devMiddleware(localBackendUrl: string) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/admin') {
      res.writeHead(301, { location: ADMIN_PATH }).end();
      return;
    }
    if (!path.startsWith(ADMIN_PATH)) return next();
    const name = path.slice(ADMIN_PATH.length) || 'index.html';
    let body: string | Buffer | undefined;
    if (name === 'index.html') body = ADMIN_HTML;
    else if (name === 'config.yml') body = renderCmsConfig({ ...cmsOptionsFromEnv(), localBackendUrl });
    else if (decapFiles().includes(name)) body = readFileSync(join(DECAP_DIST, name));
    if (body === undefined) return next();
    res.writeHead(200, {
      'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
      'x-robots-tag': 'noindex',
    });
    res.end(body);
  };
}

interface BuildDoneOptions {
  dir: URL;
  logger: { info(message: string): void; warn(message: string): void };
}

interface ServerSetupOptions {
  server: { middlewares: { use(handler: ReturnType<typeof devMiddleware>): void } };
}

/** The Astro integration. CMS_PROXY_URL is the local proxy's API (`npm run cms` sets it). */
export function cmsAdmin() {
  return {
    name: 'signals:cms-admin',
    hooks: {
      'astro:server:setup': ({ server }: ServerSetupOptions) => {
        const url = process.env.CMS_PROXY_URL ?? 'http://localhost:8081/api/v1';
        server.middlewares.use(devMiddleware(url));
      },
      'astro:build:done': ({ dir, logger }: BuildDoneOptions) => {
        if (!existsSync(DECAP_DIST)) throw new Error('decap-cms is not installed (npm install)');
        const options = cmsOptionsFromEnv();
        const count = writeAdmin(fileURLToPath(dir), options);
        logger.info(`admin/: Decap CMS (${count} files), config.yml for GitHub repository ${options.repo}`);
        if (options.repo === 'OWNER/REPOSITORY')
          logger.warn('admin/: set CMS_GITHUB_REPO to the repository editors commit to');
      },
    },
  };
}
