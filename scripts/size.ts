// `npm run size`: the JavaScript (gzip) each built page loads without a user action, against its budget, and
// the page's own HTML (gzip, its inline CSS included) against the first TCP window.
// Counts inline scripts, external scripts, their static imports, modulepreloads and the islands' component
// and renderer modules; JSON-LD and other non-JS script types do not count.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { builtPages } from '../integrations/built-pages.ts';

const KB = 1024;
export const budgets = { noIsland: 5 * KB, home: 20 * KB, islands: 130 * KB };
/**
 * Every page's HTML (gzip): about the first TCP window (10 segments), so the first paint needs one round trip.
 * The CSS is inline, so this covers everything the first paint waits for.
 */
export const HTML_BUDGET = 14 * KB;
/**
 * The signed-in pages (noindex; each paints its loading state, then the member's data after the session check) are
 * not public pages, which the one-round-trip rule is about; their HTML carries the islands' labels as props. 16 KB.
 */
export const MEMBER_HTML_BUDGET = 16 * KB;
const MEMBER_PAGES = new Set(['/dashboard', '/analysis', '/settings']);
/** The HTML budget of `route`. */
export const htmlBudget = (route: string) => (MEMBER_PAGES.has(route) ? MEMBER_HTML_BUDGET : HTML_BUDGET);

/** Pages with a budget of their own; any other page gets `islands` when it has one, else `noIsland`. */
export const pageBudgets: Record<string, number> = {
  '/': budgets.home,
  '/contact-us': 10 * KB,
  '/track-record': 20 * KB,
  '/quiz': 80 * KB,
  '/news': 80 * KB,
  '/investing-news': 80 * KB,
  '/trading-ideas': 80 * KB,
  '/auth': 130 * KB,
  '/dashboard': 130 * KB,
  '/analysis': 130 * KB,
  '/settings': 130 * KB,
};

const gz = (text: string | Buffer) => gzipSync(text).length;

/** The file a root-relative script URL (`/_astro/x.js`) names inside the build folder. */
const fileOf = (root: string, url: string) => join(root, url);

/** Every module a script file pulls in through static imports (a chunk shared between islands included). */
function moduleGraph(root: string, path: string, seen: Set<string>): void {
  if (seen.has(path) || !existsSync(path)) return;
  seen.add(path);
  const code = readFileSync(path, 'utf8');
  // Static imports only: `import x from "./a.js"`, `import "./b.js"`, `export * from "./c.js"`.
  for (const m of code.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+\.m?js)["']/g)) {
    const spec = m[1];
    const next = spec.startsWith('/') ? join(root, spec) : resolve(dirname(path), spec);
    moduleGraph(root, next, seen);
  }
}

export interface PageSize {
  route: string;
  bytes: number;
  islands: boolean;
  budget: number;
  /** The HTML file itself, gzip. */
  html: number;
}

/** A page over either budget. */
export const overBudget = (p: PageSize) => p.bytes > p.budget || p.html > htmlBudget(p.route);

export function measure(root: string): PageSize[] {
  return builtPages(root).map(({ route, file }) => {
    const html = readFileSync(file, 'utf8');
    let bytes = 0;
    const modules = new Set<string>();
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      const attrs = m[1];
      const type = /\btype=["']?([^"'\s>]+)/i.exec(attrs)?.[1];
      if (type && type !== 'module' && type !== 'text/javascript') continue;
      const src = /\bsrc=["']?([^"'\s>]+)/i.exec(attrs)?.[1];
      if (src) moduleGraph(root, fileOf(root, src), modules);
      else bytes += gz(m[2]);
    }
    for (const m of html.matchAll(/<link\b[^>]*rel=["']?modulepreload["']?[^>]*>/gi)) {
      const href = /\bhref=["']?([^"'\s>]+)/i.exec(m[0])?.[1];
      if (href) moduleGraph(root, fileOf(root, href), modules);
    }
    const islands = /<astro-island\b/i.test(html);
    for (const m of html.matchAll(/<astro-island\b[^>]*>/gi)) {
      for (const attr of ['component-url', 'renderer-url']) {
        const url = new RegExp(`${attr}="([^"]+)"`).exec(m[0])?.[1];
        if (url) moduleGraph(root, fileOf(root, url), modules);
      }
    }
    for (const path of modules) bytes += gz(readFileSync(path));
    const budget = pageBudgets[route] ?? (islands ? budgets.islands : budgets.noIsland);
    return { route, bytes, islands, budget, html: gz(html) };
  });
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? process.env.SITE_DIR ?? 'dist');
  if (!existsSync(root)) {
    console.error(`No build at ${root}: run npm run build first.`);
    process.exit(1);
  }
  const pages = measure(root);
  const over = pages.filter(overBudget);
  const width = Math.max(...pages.map((p) => p.route.length));
  console.log(
    `${'page'.padEnd(width)}  JS gzip   budget   islands   HTML gzip (budget ${HTML_BUDGET / KB} KB; signed-in pages ${MEMBER_HTML_BUDGET / KB} KB)`,
  );
  for (const p of pages) {
    const mark = [
      p.bytes > p.budget ? '  JS OVER BUDGET' : '',
      p.html > htmlBudget(p.route) ? '  HTML OVER BUDGET' : '',
    ].join('');
    console.log(
      `${p.route.padEnd(width)}  ${(p.bytes / KB).toFixed(2).padStart(6)} KB  ${(p.budget / KB).toFixed(0).padStart(4)} KB   ${p.islands ? 'yes' : 'no '}       ${(p.html / KB).toFixed(2).padStart(6)} KB${mark}`,
    );
  }
  if (over.length) {
    console.error(`\n${over.length} page(s) over budget: ${over.map((p) => p.route).join(', ')}`);
    process.exit(1);
  }
  console.log(`\nsize: ${pages.length} pages within budget`);
}
