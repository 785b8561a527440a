// @ts-check
import preact from '@astrojs/preact';
import sitemap from '@astrojs/sitemap';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'astro/config';
import { loadEnv } from 'vite';
import { clientDirectives } from './integrations/client-directives/index.ts';
import { cmsAdmin } from './integrations/cms-admin.ts';
import { LOCAL_SUPABASE_URL, securityHeaders } from './integrations/headers.ts';
import { pageCss } from './integrations/page-css.ts';
import { claimsCheckFor } from './src/content/claims.ts';

// Settings as the pages read them: the environment first, then the .env files (`npm run build` and `npm run dev`
// read .env as `npm start` does).
const env = () => loadEnv('production', process.cwd(), '');
const port = Number(env().PORT || 4321);
const site = env().SITE_URL || `http://127.0.0.1:${port}`;
const supabaseUrl = () => env().PUBLIC_SUPABASE_URL || LOCAL_SUPABASE_URL;
// Claims without evidence fail the build of the public site and warn in any other (src/content/claims.ts); the
// content collections (src/content.config.ts) read the answer from here, with .env taken into account.
process.env.CLAIMS_CHECK = claimsCheckFor({ ...env(), SITE_URL: site });

// Pages marked noindex stay out of the sitemap too.
const unlisted = ['/404', '/dashboard', '/analysis', '/settings', '/newsletter-verified'];

export default defineConfig({
  site,
  output: 'static',
  trailingSlash: 'ignore',
  build: { format: 'directory', inlineStylesheets: 'always' },
  // Hashes of every inline script and style go into a CSP <meta> on each page (no 'unsafe-inline').
  security: { csp: true },
  integrations: [
    // The islands are written against React's API and run on Preact's compatibility layer (docs/performance.md).
    preact({ compat: true }),
    // client:load-yield and client:visible-yield: hydrate in a task of their own.
    clientDirectives(),
    // The content editor under `npm run cms` (dev server only, at /admin/); the production editor is built
    // apart into dist-cms/ (`node scripts/cms.ts build`), never into the site: docs/editing.md.
    cmsAdmin(),
    // Each page's inline <style> cut to the rules the page can use (its CSP hash updated), before the headers.
    pageCss(),
    sitemap({ filter: (page) => !unlisted.some((path) => new URL(page).pathname.startsWith(path)) }),
    // _headers and _headers.nginx.conf in the build: each page's CSP <meta> plus the header-only directives.
    securityHeaders(supabaseUrl),
  ],
  vite: {
    plugins: [tailwindcss()],
    environments: {
      client: {
        build: {
          rolldownOptions: {
            output: {
              // The script every page loads (src/layouts/Base.astro: the header's auth states, the toasts) is
              // one chunk together with the stores and helper it shares with other scripts and islands, so a
              // page without an island makes one script request, not six in three rounds (each round trip
              // before the largest paint counts in Lighthouse's LCP); the others import from that chunk.
              codeSplitting: {
                groups: [
                  {
                    name: 'site',
                    test: /layouts[\\/]Base\.astro\?astro&type=script|components[\\/]chrome[\\/](auth-view|toast-region)\.ts$|src[\\/]stores[\\/](auth|toasts|api-key)\.ts$|node_modules[\\/]nanostores[\\/]|vite[\\/]preload-helper/,
                  },
                ],
              },
            },
          },
        },
      },
    },
  },
  server: { host: '127.0.0.1', port },
});
