// The content editor at /admin/: Decap CMS's own bundle, copied from node_modules (the CSP allows no other
// origin's scripts), a static page that loads it, and config.yml generated from the content schemas
// (scripts/lib/cms-config.ts), and a preview in the site's own look (its stylesheet, the page and FAQ markup).
// `astro build` writes them into the build; `astro dev` (and `npm run cms`) serves them with a config that
// saves through the local proxy (decap-server) into the working copy.
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
    <script src="preview.js"></script>
  </body>
</html>
`;

/** The classes of src/components/sections/Prose.astro: Markdown bodies as the site sets them. */
const PROSE =
  'max-w-3xl text-lg text-muted [&_a]:text-accent [&_a]:underline [&_h2]:mt-10 [&_h2]:text-2xl [&_h2]:font-bold [&_h2]:text-white [&_h3]:mt-8 [&_h3]:text-xl [&_h3]:font-semibold [&_h3]:text-white [&_li]:mt-2 [&_p]:mt-4 [&_p:first-child]:mt-0 [&_strong]:text-white [&_ul]:mt-4 [&_ul]:list-disc [&_ul]:pl-6';

/**
 * Decap's preview pane in the site's look: the site's stylesheet (preview.css), its page colours, and
 * templates for the two collections editors change most: a page (heading, lead, prose) and a FAQ answer.
 * Other collections keep Decap's field-by-field preview, in the site's colours. Runs after decap-cms.js,
 * which defines CMS and h (React's createElement).
 */
export const PREVIEW_JS = `(() => {
  const { CMS, h } = window;
  const prose = ${JSON.stringify(PROSE)};
  const text = (entry, name) => entry.getIn(['data', name]);
  CMS.registerPreviewStyle('preview.css');
  CMS.registerPreviewStyle(
    'body { background: var(--color-navy-950); color: #fff; font-family: var(--font-sans); padding: 2rem 1.5rem; }',
    { raw: true },
  );
  CMS.registerPreviewTemplate('pages', ({ entry, widgetFor }) =>
    h('main', { className: 'mx-auto max-w-6xl', 'data-preview': 'page' },
      h('h1', { className: 'text-4xl font-bold text-balance sm:text-5xl' }, text(entry, 'heading')),
      text(entry, 'lead') ? h('p', { className: 'mt-4 text-lg text-muted' }, text(entry, 'lead')) : null,
      h('div', { className: prose + ' mt-10' }, widgetFor('body'))));
  CMS.registerPreviewTemplate('faq', ({ entry, widgetFor }) =>
    h('main', { className: 'mx-auto max-w-3xl', 'data-preview': 'faq' },
      h('h2', { className: 'text-xl font-semibold' }, text(entry, 'question')),
      h('div', { className: prose + ' mt-4' }, widgetFor('body'))));
})();
`;

/** The site's whole stylesheet, as Astro inlines it in every page before scripts/lib/page-css.ts cuts it. */
export function siteStylesheet(dir: string): string {
  const html = readFileSync(join(dir, '404.html'), 'utf8');
  const css = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]).join('\n');
  if (!css) throw new Error('admin/: no stylesheet in 404.html for the preview');
  return css;
}

/** The bundle and the chunks and WebAssembly files it loads from next to itself (no source maps). */
function decapFiles(): string[] {
  return readdirSync(DECAP_DIST).filter((f) => /(^|\.)decap-cms\.js$|\.wasm$/.test(f));
}

/** Writes the admin into a built site: dir/admin/{index.html,config.yml,preview.*,decap-cms.js,…}. */
export function writeAdmin(dir: string, options: CmsOptions = cmsOptionsFromEnv(), previewCss = ''): number {
  const out = join(dir, 'admin');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), ADMIN_HTML);
  writeFileSync(join(out, 'preview.js'), PREVIEW_JS);
  writeFileSync(join(out, 'preview.css'), previewCss);
  writeFileSync(join(out, 'config.yml'), renderCmsConfig(options));
  const files = decapFiles();
  for (const file of files) copyFileSync(join(DECAP_DIST, file), join(out, file));
  return files.length;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.yml': 'text/yaml; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Vite's compiled src/styles/global.css (the site's stylesheet in development). */
type CompileCss = () => Promise<string>;

/** The dev server's /admin/: config.yml made afresh on each load, so a schema change shows on reload. */
function devMiddleware(localBackendUrl: string, compileCss: CompileCss) {
  return async (req: IncomingMessage, res: ServerResponse, next: () => void) => {
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
    else if (name === 'preview.js') body = PREVIEW_JS;
    else if (name === 'preview.css') body = await compileCss();
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
  server: {
    middlewares: { use(handler: ReturnType<typeof devMiddleware>): void };
    transformRequest(url: string): Promise<{ code: string } | null>;
  };
}

/** The Astro integration. CMS_PROXY_URL is the local proxy's API (`npm run cms` sets it). */
export function cmsAdmin() {
  return {
    name: 'signals:cms-admin',
    hooks: {
      'astro:server:setup': ({ server }: ServerSetupOptions) => {
        const url = process.env.CMS_PROXY_URL ?? 'http://localhost:8081/api/v1';
        // `?direct` asks Vite for the stylesheet itself rather than a module that injects it.
        const compileCss = async () => (await server.transformRequest('/src/styles/global.css?direct'))?.code ?? '';
        server.middlewares.use(devMiddleware(url, compileCss));
      },
      'astro:build:done': ({ dir, logger }: BuildDoneOptions) => {
        if (!existsSync(DECAP_DIST)) throw new Error('decap-cms is not installed (npm install)');
        const options = cmsOptionsFromEnv();
        const root = fileURLToPath(dir);
        const count = writeAdmin(root, options, siteStylesheet(root));
        logger.info(`admin/: Decap CMS (${count} files), config.yml for GitHub repository ${options.repo}`);
        if (options.repo === 'OWNER/REPOSITORY')
          logger.warn('admin/: set CMS_GITHUB_REPO to the repository editors commit to');
      },
    },
  };
}
