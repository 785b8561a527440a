// The content editor: Decap CMS's own bundle, served from the editor's origin (its CSP allows no other origin's
// scripts; decap-bundle.ts fetches the published files once and keeps them), a static page that loads it, config.yml generated from the content schemas
// (cms-config.ts), and a preview in the site's own look (its stylesheet, the page and FAQ markup).
// Two shapes, never inside the site's own dist/:
//   - production: `node scripts/cms.ts build` writes dist-cms/ with header files of its own, for a static
//     deployment on an origin of its own (cms.<domain>), so the GitHub token Decap keeps in localStorage never
//     shares an origin with members' sessions or the chart widget's third-party script;
//   - local editing: `npm run cms` starts the Astro dev server with CMS_LOCAL_TOKEN; this integration then
//     serves the editor at /admin/ and its file-system backend behind a gate (cms-gateway.ts).
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve } from 'node:path';
import { adminMetaPolicy, renderEditorHeadersFile, renderEditorNginx } from './admin-headers.ts';
import { type CmsOptions, cmsOptionsFromEnv, renderCmsConfig } from './cms-config.ts';
import { type Handler, localBackend, localBackendUrl, refusal, refuse } from './cms-gateway.ts';
import { bundleFiles, decapBundle } from './decap-bundle.ts';
import { HEADERS_FILE, NGINX_FILE } from './security-headers.ts';

export const ADMIN_PATH = '/admin/';
/** The production editor's build folder. */
export const EDITOR_DIR = 'dist-cms';

/**
 * The editor's page: no inline script or style, so its CSP needs no hashes (admin-headers.ts). Its
 * <meta> policy holds wherever a host sends no header.
 */
export const ADMIN_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="${adminMetaPolicy()}">
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

/** The site's whole stylesheet (src/styles/global.css through Tailwind, as the site's build compiles it). */
export async function siteStylesheet(root = '.'): Promise<string> {
  const [{ build }, { default: tailwindcss }] = await Promise.all([import('vite'), import('@tailwindcss/vite')]);
  const result = await build({
    root: resolve(root),
    configFile: false,
    logLevel: 'error',
    plugins: [tailwindcss()],
    build: { write: false, rollupOptions: { input: resolve(root, 'src/styles/global.css') } },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as {
    output?: { fileName: string; source?: unknown }[];
  }[];
  const css = outputs.flatMap((o) => o.output ?? []).find((file) => file.fileName.endsWith('.css'));
  if (!css) throw new Error('the editor: Vite wrote no stylesheet for src/styles/global.css');
  return String(css.source);
}

/** The editor's files in `out`: index.html, config.yml, preview.js, preview.css, decap-cms.js and its chunks. */
export async function writeEditorFiles(out: string, options: CmsOptions, previewCss: string): Promise<number> {
  const bundle = await decapBundle();
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), ADMIN_HTML);
  writeFileSync(join(out, 'preview.js'), PREVIEW_JS);
  writeFileSync(join(out, 'preview.css'), previewCss);
  writeFileSync(join(out, 'config.yml'), renderCmsConfig(options));
  const files = bundleFiles(bundle);
  for (const file of files) copyFileSync(join(bundle, file), join(out, file));
  return files.length;
}

export interface EditorBuild {
  outDir: string;
  options: CmsOptions;
  /** Decap's files copied (the bundle, its chunks and WebAssembly). */
  decapFiles: number;
}

/**
 * The production editor in `outDir` (dist-cms/), for a static host of its own: the editor at `/`, `_headers`
 * and `_headers.nginx.conf` giving every path its policy, robots.txt refusing crawlers. Settings from `env`
 * (cmsOptionsFromEnv). The folder is emptied first.
 */
export async function buildEditor(
  outDir = EDITOR_DIR,
  env: NodeJS.ProcessEnv = process.env,
  root = '.',
): Promise<EditorBuild> {
  const out = resolve(root, outDir);
  const up = relative(out, resolve(root));
  if (up === '' || !up.startsWith('..')) throw new Error(`${outDir} holds the project: build the editor elsewhere`);
  const options = cmsOptionsFromEnv(env, root);
  const css = await siteStylesheet(root);
  rmSync(out, { recursive: true, force: true });
  const count = await writeEditorFiles(out, options, css);
  writeFileSync(join(out, HEADERS_FILE), renderEditorHeadersFile());
  writeFileSync(join(out, NGINX_FILE), renderEditorNginx());
  writeFileSync(join(out, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
  return { outDir: out, options, decapFiles: count };
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

/**
 * The dev server's /admin/ under `npm run cms`: the editor, config.yml made afresh on each load (a schema
 * change shows on reload) with the gated backend's URL and token, and the backend. Only this server's own
 * address and page get any of it, config.yml included (it holds the token).
 */
function devMiddleware(token: string, compileCss: CompileCss, backend: Handler, bundle: string) {
  const decapFiles = new Set(bundleFiles(bundle));
  return async (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/admin' && !path.startsWith(ADMIN_PATH)) return next();
    const host = req.headers.host ?? '';
    const why = refusal({ host, origin: req.headers.origin, port: req.socket.localPort ?? 0 });
    if (why) return refuse(res, 403, `Refused: ${why}.`);
    if (path === '/admin') {
      res.writeHead(301, { location: ADMIN_PATH }).end();
      return;
    }
    const name = path.slice(ADMIN_PATH.length) || 'index.html';
    if (name.startsWith('api/')) return backend(req, res, next);
    let body: string | Buffer | undefined;
    if (name === 'index.html') body = ADMIN_HTML;
    else if (name === 'config.yml')
      body = renderCmsConfig({ ...cmsOptionsFromEnv(), localBackendUrl: localBackendUrl(host, token) });
    else if (name === 'preview.js') body = PREVIEW_JS;
    else if (name === 'preview.css') body = await compileCss();
    else if (decapFiles.has(name)) body = readFileSync(join(bundle, name));
    if (body === undefined) return next();
    res.writeHead(200, {
      'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      'x-robots-tag': 'noindex',
    });
    res.end(body);
  };
}

interface ServerSetupOptions {
  server: {
    middlewares: { use(handler: ReturnType<typeof devMiddleware>): void };
    transformRequest(url: string): Promise<{ code: string } | null>;
  };
}

/**
 * The Astro integration: under `npm run cms` (CMS_LOCAL_TOKEN set) the dev server serves the editor at /admin/
 * over this project's files. Otherwise it does nothing: `npm run dev` has no editor, and `astro build` writes
 * none into the site (the production editor is `node scripts/cms.ts build`).
 */
export function cmsAdmin() {
  return {
    name: 'signals:cms-admin',
    hooks: {
      'astro:server:setup': async ({ server }: ServerSetupOptions) => {
        const token = process.env.CMS_LOCAL_TOKEN;
        if (!token) return;
        const [backend, bundle] = await Promise.all([localBackend({ root: process.cwd(), token }), decapBundle()]);
        // `?direct` asks Vite for the stylesheet itself rather than a module that injects it.
        const compileCss = async () => (await server.transformRequest('/src/styles/global.css?direct'))?.code ?? '';
        server.middlewares.use(devMiddleware(token, compileCss, backend, bundle));
      },
    },
  };
}
