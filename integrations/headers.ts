// Writes the security headers of a built site next to its pages: `_headers` (Netlify, Cloudflare Pages) and
// `_headers.nginx.conf` (a self-hosted nginx), from each page's CSP <meta> and the Supabase URL the pages call.
// Runs after every `astro build` (the integration in astro.config.mjs); `node integrations/headers.ts [dir]` by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtPages } from './built-pages.ts';
import {
  HEADERS_FILE,
  type HeaderRule,
  headerRules,
  metaPolicy,
  NGINX_FILE,
  type PagePolicy,
  renderHeadersFile,
  renderNginx,
} from './security-headers.ts';

/** The default of the pages themselves (src/stores/auth.ts) when PUBLIC_SUPABASE_URL is unset. */
export const LOCAL_SUPABASE_URL = 'http://127.0.0.1:54321';

/** Every built page with its CSP <meta>; throws naming the pages that have none. */
export function pagePolicies(dir: string): PagePolicy[] {
  const pages = builtPages(dir).map(({ route, file }) => ({ route, meta: metaPolicy(readFileSync(file, 'utf8')) }));
  const missing = pages.filter((p) => p.meta === null).map((p) => p.route);
  if (missing.length)
    throw new Error(`pages without a CSP <meta> (security.csp in astro.config.mjs): ${missing.join(', ')}`);
  return pages as PagePolicy[];
}

export function writeHostHeaders(dir: string, supabaseUrl: string): HeaderRule[] {
  const rules = headerRules(pagePolicies(dir), { supabaseUrl });
  writeFileSync(join(dir, HEADERS_FILE), renderHeadersFile(rules));
  writeFileSync(join(dir, NGINX_FILE), renderNginx(rules));
  return rules;
}

interface BuildDoneOptions {
  dir: URL;
  logger: { info(message: string): void };
}

/** The Astro integration: the header files are part of every build. */
export function securityHeaders(supabaseUrl: () => string) {
  return {
    name: 'signals:security-headers',
    hooks: {
      'astro:build:done': ({ dir, logger }: BuildDoneOptions) => {
        const rules = writeHostHeaders(fileURLToPath(dir), supabaseUrl());
        logger.info(`${HEADERS_FILE} and ${NGINX_FILE}: ${rules.length} rules`);
      },
    },
  };
}

if (import.meta.main) {
  const dir = process.argv[2] ?? 'dist';
  const rules = writeHostHeaders(dir, process.env.PUBLIC_SUPABASE_URL || LOCAL_SUPABASE_URL);
  console.log(`${join(dir, HEADERS_FILE)}, ${join(dir, NGINX_FILE)}: ${rules.length} rules`);
}
