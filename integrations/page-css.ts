// Each built page keeps only the CSS rules it can use. Tailwind writes one stylesheet for the whole site and
// Astro inlines it into every page (build.inlineStylesheets 'always': no render-blocking request), which took
// the HTML of the larger pages past the first TCP window (about 14 KB gzip). After the build, each page's
// inline <style> is cut down to the rules whose classes appear in the page: in its HTML, its inline scripts,
// its islands' props, and every script module the page can load (static and dynamic imports, so a dialog or
// island that renders later still finds its rules). The style's hash in the page's CSP <meta> is replaced
// with the new one, before the host header files are written from those metas.
// The same <meta> gets from Astro the hashes of every inline script of the whole site: each page keeps only
// those of its own inline scripts. About 0.4 KB of the <meta> and as much of the header (base64 digests do not
// compress), which took the home page's response past the first TCP window, a round trip more before it paints.
// And the <head> gets a modulepreload link for each of the page's module scripts and each module they import,
// so all are requested while the <head> is parsed, none a round trip after another.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtPages } from './built-pages.ts';

/** A parsed stylesheet: statements (`@charset ...;`), and blocks whose body is text or child nodes. */
export type CssNode =
  | { kind: 'statement'; text: string }
  | { kind: 'rule'; prelude: string; body: string }
  | { kind: 'group'; prelude: string; children: CssNode[] };

/** At-rules whose body holds rules (parsed further); every other block keeps its body as text. */
const GROUP = /^@(media|supports|layer|container|scope|starting-style|document)\b/i;

/** Index of the `}` closing the block opened at `open` (strings and escapes skipped). */
function closing(css: string, open: number): number {
  let depth = 0;
  for (let i = open; i < css.length; i++) {
    const c = css[i];
    if (c === '\\') i++;
    else if (c === '"' || c === "'") {
      for (i++; i < css.length && css[i] !== c; i++) if (css[i] === '\\') i++;
    } else if (c === '/' && css[i + 1] === '*') i = css.indexOf('*/', i + 2) + 1 || css.length;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  throw new Error('page-css: unbalanced braces');
}

export function parseCss(css: string): CssNode[] {
  const nodes: CssNode[] = [];
  let i = 0;
  while (i < css.length) {
    // Skip whitespace and comments between nodes.
    const rest = /^(?:\s+|\/\*[\s\S]*?\*\/)+/.exec(css.slice(i, i + 2000));
    if (rest) {
      i += rest[0].length;
      continue;
    }
    let j = i;
    while (j < css.length && css[j] !== '{' && css[j] !== ';' && css[j] !== '}') {
      if (css[j] === '\\') j++;
      else if (css[j] === '"' || css[j] === "'") {
        const q = css[j];
        for (j++; j < css.length && css[j] !== q; j++) if (css[j] === '\\') j++;
      }
      j++;
    }
    const prelude = css.slice(i, j).trim();
    if (j >= css.length || css[j] !== '{') {
      if (prelude) nodes.push({ kind: 'statement', text: `${prelude};` });
      i = j + 1;
      continue;
    }
    const end = closing(css, j);
    const body = css.slice(j + 1, end);
    nodes.push(
      GROUP.test(prelude) && body.includes('{')
        ? { kind: 'group', prelude, children: parseCss(body) }
        : { kind: 'rule', prelude, body },
    );
    i = end + 1;
  }
  return nodes;
}

export function printCss(nodes: CssNode[]): string {
  return nodes
    .map((n) =>
      n.kind === 'statement'
        ? n.text
        : n.kind === 'rule'
          ? `${n.prelude}{${n.body}}`
          : `${n.prelude}{${printCss(n.children)}}`,
    )
    .join('');
}

/** Splits at top-level commas (or `separator`), not inside parentheses, brackets or strings. */
function splitList(text: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

/** A CSS identifier as written (`sm\:grid-cols-2`, `\31 0`) to the name it means (`sm:grid-cols-2`, `10`). */
export function unescapeIdent(ident: string): string {
  return ident.replace(/\\([0-9a-fA-F]{1,6})\s?|\\([\s\S])/g, (_, hex: string | undefined, char: string) =>
    hex ? String.fromCodePoint(Number.parseInt(hex, 16)) : char,
  );
}

/**
 * What a selector needs in the page: its class names and its `data-astro-cid-*` scoping attributes. Names
 * inside `:not(...)` are left out (they select what the page lacks).
 */
export function selectorNeeds(selector: string): string[] {
  const needs: string[] = [];
  let i = 0;
  let notDepth = -1;
  let depth = 0;
  while (i < selector.length) {
    const c = selector[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === ':' && /^:not\(/i.test(selector.slice(i, i + 5))) {
      if (notDepth < 0) notDepth = depth;
      depth++;
      i += 5;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === notDepth) notDepth = -1;
    } else if (c === '[') {
      // An attribute selector: only Astro's scoping attribute is a need.
      const end = selector.indexOf(']', i);
      const name = /^\[\s*(data-astro-cid-[\w-]+)/.exec(selector.slice(i, end + 1))?.[1];
      if (name && notDepth < 0) needs.push(name);
      i = end < 0 ? selector.length : end + 1;
      continue;
    } else if (c === '.') {
      const m = /^\.((?:\\[0-9a-fA-F]{1,6}\s?|\\[\s\S]|[\w-]|[^\p{ASCII}])+)/u.exec(selector.slice(i));
      if (m) {
        if (notDepth < 0) needs.push(unescapeIdent(m[1]));
        i += m[0].length;
        continue;
      }
    }
    i++;
  }
  return needs;
}

const decodeEntities = (html: string) =>
  html
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The words of a text as class lists and code strings hold them: split at whitespace, quotes and backticks. */
export function tokens(text: string, into = new Set<string>()): Set<string> {
  for (const t of text.split(/[\s"'`]+/)) if (t) into.add(t);
  return into;
}

/**
 * Keeps the rules whose every need is in `present`. Rules without needs (element selectors, the theme's
 * variables, preflight) stay. Then @keyframes nobody animates with and `@property --x` / `--x:initial`
 * defaults of custom properties no kept rule reads are dropped.
 */
export function pruneCss(css: string, present: Set<string>): string {
  const keepSelector = (s: string) => selectorNeeds(s).every((need) => present.has(need));
  const pruneRules = (nodes: CssNode[]): CssNode[] =>
    nodes.flatMap((n): CssNode[] => {
      if (n.kind === 'group') {
        const children = pruneRules(n.children);
        return children.length ? [{ ...n, children }] : [];
      }
      if (n.kind === 'rule' && !n.prelude.startsWith('@')) {
        const selectors = splitList(n.prelude).filter(keepSelector);
        return selectors.length ? [{ ...n, prelude: selectors.join(',') }] : [];
      }
      return [n];
    });
  const kept = pruneRules(parseCss(css));

  // Custom properties declared by rules that apply everywhere (the theme's `:root,:host`, the defaults for
  // browsers without @property) are kept only when something the page keeps reads them, through var().
  const global = (n: CssNode) =>
    n.kind === 'rule' && !n.prelude.startsWith('@') && splitList(n.prelude).every((s) => selectorNeeds(s).length === 0);
  const declarations = new Map<string, string>();
  const withoutCustom = (nodes: CssNode[]): CssNode[] =>
    nodes.flatMap((n): CssNode[] => {
      if (n.kind === 'group') return [{ ...n, children: withoutCustom(n.children) }];
      if (n.kind === 'rule' && /^@(keyframes|property)\b/.test(n.prelude)) return [];
      if (!global(n) || n.kind !== 'rule') return [n];
      const rest = splitList(n.body, ';').filter((d) => {
        const name = /^(--[\w-]+)\s*:/.exec(d)?.[1];
        if (name) declarations.set(name, `${declarations.get(name) ?? ''} ${d}`);
        return !name;
      });
      return [{ ...n, body: rest.join(';') }];
    });
  const used = printCss(withoutCustom(kept));
  const reads = new Set<string>();
  const read = (text: string) => {
    for (const [, name] of text.matchAll(/var\(\s*(--[\w-]+)/g)) {
      if (reads.has(name)) continue;
      reads.add(name);
      read(declarations.get(name) ?? '');
    }
  };
  read(used);
  const pruneUnused = (nodes: CssNode[]): CssNode[] =>
    nodes.flatMap((n): CssNode[] => {
      if (n.kind === 'group') {
        const children = pruneUnused(n.children);
        return children.length ? [{ ...n, children }] : [];
      }
      if (n.kind !== 'rule') return [n];
      const property = /^@property\s+(--[\w-]+)/.exec(n.prelude)?.[1];
      if (property) return reads.has(property) ? [n] : [];
      const keyframes = /^@(?:-webkit-)?keyframes\s+([\w-]+)/.exec(n.prelude)?.[1];
      if (keyframes) {
        // Named by a kept rule's animation, or by a custom property that is read (--animate-spin: spin 1s ...).
        const names = [used, ...[...reads].map((r) => declarations.get(r) ?? '')].join(' ');
        return new RegExp(`(^|[\\s:,])${keyframes}([\\s;,}]|$)`).test(names) ? [n] : [];
      }
      if (!global(n)) return [n];
      const body = splitList(n.body, ';')
        .filter((d) => {
          const name = /^(--[\w-]+)\s*:/.exec(d)?.[1];
          return d && (!name || reads.has(name));
        })
        .join(';');
      return body ? [{ ...n, body }] : [];
    });
  return printCss(pruneUnused(kept));
}

/** Every script module a page can load from `entries`: static imports, dynamic imports, preload lists. */
export function scriptGraph(root: string, entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || !existsSync(path) || !statSync(path).isFile()) return;
    seen.add(path);
    const code = readFileSync(path, 'utf8');
    for (const m of code.matchAll(/["']([^"'\s]+\.m?js)["']/g)) {
      const spec = m[1];
      if (spec.startsWith('/')) visit(join(root, spec));
      else if (spec.startsWith('.')) visit(resolve(dirname(path), spec));
      else if (spec.startsWith('_astro/')) visit(join(root, spec));
    }
  };
  for (const entry of entries) visit(entry);
  return [...seen];
}

/** The names a page can put on its elements: its HTML's words and those of every module it can load. */
export function pageTokens(root: string, html: string): Set<string> {
  const decoded = decodeEntities(html);
  const present = tokens(decoded);
  const entries = [...decoded.matchAll(/\b(?:src|href|component-url|renderer-url)="(\/[^"]+\.m?js)"/g)].map((m) =>
    join(root, m[1]),
  );
  // Module code inside inline scripts (`import("/_astro/x.js")`) is followed too.
  for (const m of decoded.matchAll(/["'](\/_astro\/[^"'\s]+\.m?js)["']/g)) entries.push(join(root, m[1]));
  for (const file of scriptGraph(root, entries)) tokens(readFileSync(file, 'utf8'), present);
  return present;
}

export const styleHash = (css: string) => `sha256-${createHash('sha256').update(css).digest('base64')}`;

/**
 * Drops from the script-src of the page's CSP <meta> every hash no inline <script> of the page has. A hash
 * allows nothing but a script with exactly that text, and scripts are only ever inline in the HTML here.
 */
export function pruneScriptHashes(html: string): string {
  const inline = new Set<string>();
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(m[1])) continue;
    for (const algorithm of ['sha256', 'sha384', 'sha512']) {
      inline.add(`${algorithm}-${createHash(algorithm).update(m[2]).digest('base64')}`);
    }
  }
  return html.replace(
    /(<meta\b[^>]*http-equiv="content-security-policy"[^>]*content=")([^"]*)(")/i,
    (_, open: string, policy: string, close: string) =>
      open +
      policy.replace(/(^|;)(\s*script-src\b)([^;]*)/, (_d, start: string, name: string, sources: string) => {
        const kept = sources
          .trim()
          .split(/\s+/)
          .filter((source) => !/^'sha(256|384|512)-/.test(source) || inline.has(source.slice(1, -1)));
        return `${start}${name} ${kept.join(' ')}`;
      }) +
      close,
  );
}

/** Static imports in built code: `import{a as b}from"./x.js"`, `import"./y.js"` (not `import("./z.js")`). */
const STATIC_IMPORT = /(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+\.m?js)["']/g;

/**
 * A `<link rel="modulepreload">` before `</head>` for every module script of the page and every module they
 * import statically. The browser then requests them while it parses the <head>, not when the parser reaches a
 * script further down, nor (for an import) once the importing script has arrived: Lighthouse's LCP simulation
 * counts every request that finished before the largest paint, each round of a chain as one more round trip.
 * Islands load their own modules when they hydrate.
 */
export function preloadImports(root: string, html: string): string {
  const entries = [...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="(\/_astro\/[^"]+\.m?js)"/g)].map(
    (m) => m[1],
  );
  const seen = new Set(entries);
  const imports = [...seen];
  const visit = (url: string) => {
    const file = join(root, url);
    if (!existsSync(file)) return;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (!spec.startsWith('.')) continue;
      const next = posix.join(posix.dirname(url), spec);
      if (seen.has(next)) continue;
      seen.add(next);
      imports.push(next);
      visit(next);
    }
  };
  for (const entry of entries) visit(entry);
  if (!imports.length) return html;
  return html.replace('</head>', `${imports.map((url) => `<link rel="modulepreload" href="${url}">`).join('')}</head>`);
}

export interface PageCssResult {
  file: string;
  before: number;
  after: number;
}

/** Prunes every inline <style> of one page and puts the new hashes in its CSP <meta>. */
export function prunePage(root: string, file: string): PageCssResult {
  let html = readFileSync(file, 'utf8');
  const present = pageTokens(root, html);
  let before = 0;
  let after = 0;
  const swaps: [string, string][] = [];
  html = html.replace(/(<style\b[^>]*>)([\s\S]*?)(<\/style>)/gi, (_, open: string, css: string, close: string) => {
    const pruned = pruneCss(css, present);
    before += css.length;
    after += pruned.length;
    swaps.push([styleHash(css), styleHash(pruned)]);
    return `${open}${pruned}${close}`;
  });
  for (const [from, to] of swaps) {
    if (from === to) continue;
    if (!html.includes(`'${from}'`)) throw new Error(`page-css: ${file}: no CSP hash ${from} for its <style>`);
    html = html.replace(`'${from}'`, `'${to}'`);
  }
  writeFileSync(file, preloadImports(root, pruneScriptHashes(html)));
  return { file, before, after };
}

export function prunePages(dir: string): PageCssResult[] {
  const root = resolve(dir);
  return builtPages(root).map(({ file }) => prunePage(root, file));
}

/** The Astro integration: runs before the host header files are written from the pages' CSP metas. */
export function pageCss() {
  return {
    name: 'signals:page-css',
    hooks: {
      'astro:build:done': ({ dir, logger }: { dir: URL; logger: { info(message: string): void } }) => {
        const results = prunePages(fileURLToPath(dir));
        const kb = (n: number) => (n / 1024).toFixed(1);
        const after = results.map((r) => r.after);
        logger.info(
          `inline CSS per page: ${kb(Math.min(...after))}-${kb(Math.max(...after))} KB (whole site ${kb(Math.max(...results.map((r) => r.before)))} KB)`,
        );
      },
    },
  };
}

if (import.meta.main) {
  for (const r of prunePages(process.argv[2] ?? 'dist')) console.log(`${r.file}: ${r.before} -> ${r.after} bytes`);
}
