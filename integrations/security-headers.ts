// The site's HTTP security headers, one set of rules for every place that serves dist/: the `_headers` file
// Netlify and Cloudflare Pages read, the nginx include for a self-hosted box, and the local server
// (scripts/lib/serve.ts), which applies the generated `_headers` itself so the e2e run proves what hosts send.
//
// Each page already carries Astro's CSP <meta> (script-src and style-src with the hashes of its inline
// scripts and styles, frame-src where a page embeds a widget). A browser enforces a header policy and a
// meta policy together, so the header policy of a page is its meta policy plus what a meta cannot say or
// does not say: default-src, connect-src (the Supabase API and its Realtime WebSocket), img-src,
// frame-ancestors, base-uri, form-action, object-src. No 'unsafe-inline' for scripts or styles anywhere: a page whose meta has one
// stops the build.

export type Directives = Map<string, string[]>;

export interface HeaderRule {
  /** A URL path, or a prefix ending in `*` (the `_headers` splat). */
  path: string;
  headers: [string, string][];
}

export interface PagePolicy {
  /** The route: `/`, `/about-us`, `/404.html`. */
  route: string;
  /** The content of the page's <meta http-equiv="content-security-policy">. */
  meta: string;
}

export interface HeaderOptions {
  /** The Supabase API the pages call (PUBLIC_SUPABASE_URL at build time). */
  supabaseUrl: string;
}

/** Sent with every response. HSTS is ignored by browsers on plain http (RFC 6797 §8.1), so it is sent everywhere. */
export const commonHeaders: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
  // The fallback for responses without a page's CSP (a path that is not a page, an old browser).
  ['X-Frame-Options', 'DENY'],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=(), usb=()'],
  ['Strict-Transport-Security', 'max-age=63072000; includeSubDomains'],
];

/** Hashed file names under /_astro/ never change content. */
export const assetHeaders: [string, string][] = [['Cache-Control', 'public, max-age=31536000, immutable']];

/** Paths of the generated host files themselves, which no host should serve as pages. */
export const HEADERS_FILE = '_headers';
export const NGINX_FILE = '_headers.nginx.conf';

export function parsePolicy(policy: string): Directives {
  const directives: Directives = new Map();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

export function serializePolicy(directives: Directives): string {
  return [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join('; ');
}

/** The <meta> CSP of a built page, or null when it has none. */
export function metaPolicy(html: string): string | null {
  const tag = html.match(/<meta\s[^>]*http-equiv=["']content-security-policy["'][^>]*>/i)?.[0];
  const content = tag?.match(/\scontent="([^"]*)"/i)?.[1] ?? tag?.match(/\scontent='([^']*)'/i)?.[1];
  return content === undefined ? null : content.replaceAll('&#39;', "'").replaceAll('&amp;', '&').trim();
}

/** The origin of a URL, as CSP names it (no path, no trailing slash). */
export function sourceOrigin(url: string): string {
  return new URL(url).origin;
}

/**
 * The WebSocket origin of an API URL (http -> ws, https -> wss), for Realtime: browsers do not all let an http(s)
 * source cover ws(s) (Chromium refuses ws://host for http://host).
 */
export function websocketOrigin(url: string): string {
  return sourceOrigin(url).replace(/^http/, 'ws');
}

/**
 * A page's header policy: fixed directives, then the page's own script-src, style-src and frame-src from its
 * meta (a page without an embed gets frame-src 'none'). Throws when the meta allows inline code by
 * 'unsafe-inline' or 'unsafe-hashes', or names no script-src.
 */
export function pagePolicy(meta: string, options: HeaderOptions): string {
  const own = parsePolicy(meta);
  for (const [name, sources] of own) {
    const bad = sources.find((s) => /^'unsafe-(inline|hashes|eval)'$/i.test(s));
    if (bad) throw new Error(`the page's CSP <meta> allows ${bad} in ${name}`);
  }
  if (!own.has('script-src')) throw new Error("the page's CSP <meta> has no script-src");
  const policy: Directives = new Map([
    ['default-src', ["'self'"]],
    ['script-src', own.get('script-src') ?? ["'self'"]],
    ['style-src', own.get('style-src') ?? ["'self'"]],
    // News pictures come from the feeds' own hosts.
    ['img-src', ["'self'", 'data:', 'https:']],
    ['font-src', ["'self'"]],
    ['connect-src', ["'self'", sourceOrigin(options.supabaseUrl), websocketOrigin(options.supabaseUrl)]],
    ['frame-src', own.get('frame-src') ?? ["'none'"]],
    ['frame-ancestors', ["'none'"]],
    ['base-uri', ["'self'"]],
    ['form-action', ["'self'"]],
    ['object-src', ["'none'"]],
  ]);
  for (const [name, sources] of own) if (!policy.has(name)) policy.set(name, sources);
  return serializePolicy(policy);
}

/** Adds sources to one directive of a policy (the e2e run lets pictures come from its fixture server). */
export function addSources(policy: string, directive: string, sources: string[]): string {
  if (sources.length === 0) return policy;
  const directives = parsePolicy(policy);
  directives.set(directive, [...(directives.get(directive) ?? []), ...sources]);
  return serializePolicy(directives);
}

/** The paths a page answers on: `/about-us` and `/about-us/` (hosts serve both), `/` once. */
export function pagePaths(route: string): string[] {
  if (route === '/' || route.endsWith('.html')) return [route];
  return [route, `${route}/`];
}

/**
 * Every rule, in `_headers` order. No header name is set by two rules that can match one path, so hosts that
 * merge matching rules (Cloudflare joins values) and hosts where a later rule wins (Netlify) send the same.
 */
export function headerRules(pages: PagePolicy[], options: HeaderOptions): HeaderRule[] {
  const rules: HeaderRule[] = [
    { path: '/*', headers: commonHeaders },
    { path: '/_astro/*', headers: assetHeaders },
  ];
  for (const page of [...pages].sort((a, b) => a.route.localeCompare(b.route))) {
    let csp: string;
    try {
      csp = pagePolicy(page.meta, options);
    } catch (err) {
      throw new Error(`${page.route}: ${(err as Error).message}`);
    }
    for (const path of pagePaths(page.route)) rules.push({ path, headers: [['Content-Security-Policy', csp]] });
  }
  return rules;
}

/** The `_headers` file (Netlify, Cloudflare Pages): a path line, then indented `Name: value` lines. */
export function renderHeadersFile(
  rules: HeaderRule[],
  source = "at build time from the pages' CSP <meta> (integrations/headers.ts)",
): string {
  const blocks = rules.map((r) => [r.path, ...r.headers.map(([name, value]) => `  ${name}: ${value}`)].join('\n'));
  return `# Generated ${source}: do not edit.\n${blocks.join('\n\n')}\n`;
}

export function parseHeadersFile(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      rules.push({ path: line.trim(), headers: [] });
      continue;
    }
    const rule = rules.at(-1);
    const colon = line.indexOf(':');
    if (!rule || colon < 0) throw new Error(`_headers: cannot read the line "${line.trim()}"`);
    rule.headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return rules;
}

export function pathMatches(pattern: string, path: string): boolean {
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return pattern === path;
}

/** The headers of one request path: every matching rule's, values of a repeated name joined as Cloudflare does. */
export function headersForPath(rules: HeaderRule[], path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rule of rules) {
    if (!pathMatches(rule.path, path)) continue;
    for (const [name, value] of rule.headers) {
      const prev = out.get(name);
      out.set(name, prev === undefined ? value : `${prev}, ${value}`);
    }
  }
  return out;
}

function nginxValue(value: string): string {
  // nginx reads $name in a string as a variable and has no escape for it; no value here has one.
  if (/[$"\\]/.test(value)) throw new Error(`nginx: cannot quote the header value ${value}`);
  return `"${value}"`;
}

function nginxHeaders(headers: [string, string][]): string[] {
  return headers.map(([name, value]) => `    add_header ${name} ${nginxValue(value)} always;`);
}

/**
 * The same rules for nginx, to include inside the `server { root …/dist; }` block. nginx applies the
 * add_header lines of the location that produces the response, and a location's own add_header replaces the
 * server's, so every location repeats the common headers. A page's location is its index.html: `/about-us/`
 * reaches it by nginx's index redirect, `/about-us` by nginx's redirect to the slash.
 */
export function renderNginx(rules: HeaderRule[]): string {
  const common = rules.find((r) => r.path === '/*')?.headers ?? [];
  const assets = rules.find((r) => r.path === '/_astro/*')?.headers ?? [];
  const pages = new Map<string, [string, string][]>();
  for (const rule of rules) {
    if (rule.path.endsWith('*')) continue;
    const file = rule.path.endsWith('.html')
      ? rule.path
      : `${rule.path.replace(/\/$/, '')}/index.html`.replace(/^\/\/+/, '/');
    pages.set(file, rule.headers);
  }
  const lines = [
    "# Generated at build time from the pages' CSP <meta> (integrations/headers.ts): do not edit.",
    '# Include inside the server block that serves dist/: root <path to dist>; include <path to dist>/_headers.nginx.conf;',
    'index index.html;',
    'error_page 404 /404.html;',
    `location = /${HEADERS_FILE} { return 404; }`,
    `location = /${NGINX_FILE} { return 404; }`,
    'location / {',
    ...nginxHeaders(common),
    '}',
    'location /_astro/ {',
    ...nginxHeaders([...common, ...assets]),
    '}',
  ];
  for (const [file, headers] of [...pages].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`location = ${file} {`, ...nginxHeaders([...common, ...headers]), '}');
  }
  return `${lines.join('\n')}\n`;
}
