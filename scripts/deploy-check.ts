// `npm run deploy:check [-- <dir>] [--cms <dir>]`: what can be checked before a deploy without touching the
// hosted project. The production build env, the built site (no demo key, demo secret, local address, content
// editor or company-details placeholder in it, the header files present and sound), the editor's own build
// (dist-cms/, when named or present), the company's details (content/company/company.md, every placeholder filled
// in) and supabase/config.toml against supabase/functions, supabase/migrations and the mail templates. One line per
// problem; exit 1 when there is any.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  DEMO_ANON_KEY,
  DEMO_JWT_SECRET,
  DEMO_PUBLISHABLE_KEY,
  DEMO_SECRET_KEY,
  DEMO_SERVICE_ROLE_KEY,
  globToRegExp,
} from 'local-supabase';
import { parse } from 'smol-toml';
import { loadEnv } from 'vite';
import { builtPages } from '../integrations/built-pages.ts';
import { EDITOR_DIR } from '../integrations/cms-admin.ts';
import {
  HEADERS_FILE,
  headersForPath,
  metaPolicy,
  NGINX_FILE,
  pagePaths,
  parseHeadersFile,
  parsePolicy,
} from '../integrations/security-headers.ts';
import { companyPlaceholders, companySchema } from '../src/content/company.ts';
import { parseFrontmatter } from '../src/content/frontmatter.ts';
import { checkEditorBuild, checkSiteHasNoEditor } from './lib/cms-check.ts';

export type Env = Record<string, string | undefined>;

/** The Supabase CLI's public local values: anyone can sign as service_role with them. */
export const demoValues: [string, string][] = [
  ['the local demo anon key', DEMO_ANON_KEY],
  ['the local demo service_role key', DEMO_SERVICE_ROLE_KEY],
  ['the local demo publishable key', DEMO_PUBLISHABLE_KEY],
  ['the local demo secret key', DEMO_SECRET_KEY],
  ['the local demo JWT secret', DEMO_JWT_SECRET],
];

/** Cloudflare Pages reads at most 100 rules and 2,000 characters a line of `_headers`. */
export const HEADERS_LIMITS = { rules: 100, lineLength: 2000 };

const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/i;

function publicHttpsUrl(name: string, value: string | undefined): string[] {
  if (!value) return [`${name} is not set: the production build needs it`];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [`${name} is not a URL: ${value}`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:') problems.push(`${name} must be an https:// address, not ${value}`);
  if (loopback.test(url.hostname)) problems.push(`${name} points at this machine (${url.hostname}), not a public host`);
  return problems;
}

/** A JWT's payload, or null when the text is not one. */
function jwtPayload(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

/** The build env: the Supabase project the pages call, its public key, the site's own address. */
export function checkEnv(env: Env): string[] {
  const problems = [
    ...publicHttpsUrl('PUBLIC_SUPABASE_URL', env.PUBLIC_SUPABASE_URL),
    ...publicHttpsUrl('SITE_URL', env.SITE_URL),
  ];
  const publishable = env.PUBLIC_SUPABASE_PUBLISHABLE_KEY;
  const anon = env.PUBLIC_SUPABASE_ANON_KEY;
  if (!publishable && !anon) {
    problems.push(
      'PUBLIC_SUPABASE_PUBLISHABLE_KEY is not set (nor PUBLIC_SUPABASE_ANON_KEY): the pages would send the local demo key',
    );
  }
  for (const [name, value] of [
    ['PUBLIC_SUPABASE_PUBLISHABLE_KEY', publishable],
    ['PUBLIC_SUPABASE_ANON_KEY', anon],
  ] as const) {
    if (!value) continue;
    const demo = demoValues.find(([, v]) => v === value);
    if (demo) problems.push(`${name} is ${demo[0]}: use the project's key (Project Settings → API Keys)`);
    else if (value.startsWith('sb_secret_') || jwtPayload(value)?.role === 'service_role') {
      problems.push(`${name} is a secret (service_role) key: the pages must carry the publishable key only`);
    } else if (name === 'PUBLIC_SUPABASE_PUBLISHABLE_KEY' && !value.startsWith('sb_publishable_')) {
      problems.push(`${name} does not look like a publishable key (sb_publishable_…)`);
    }
  }
  return problems;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Local addresses that libraries carry as defaults and never use here (auth-js's GoTrue URL). */
const libraryDefaults = ['http://localhost:9999'];

const textFile = /\.(html|js|mjs|css|json|xml|txt|svg|webmanifest|conf)$|\/_headers$/;

/** The built site: nothing of the local stack in it, built for the env's Supabase project and site address. */
export function checkBuild(dir: string, env: Env): string[] {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return [`${dir} holds no built site: run npm run build first`];
  const problems: string[] = [];
  const found = new Map<string, Set<string>>();
  const note = (what: string, file: string) => {
    const set = found.get(what) ?? new Set();
    set.add(relative(root, file));
    found.set(what, set);
  };
  for (const file of files(root).filter((f) => textFile.test(f.replaceAll('\\', '/')))) {
    const text = readFileSync(file, 'utf8');
    for (const [what, value] of demoValues) if (text.includes(value)) note(what, file);
    for (const m of text.matchAll(/https?:\/\/(localhost|127\.\d+\.\d+\.\d+)(:\d+)?/g)) {
      if (!libraryDefaults.includes(m[0])) note(`a local address (${m[0]})`, file);
    }
    if (/sb_secret_[A-Za-z0-9_-]{8,}/.test(text)) note('a secret key (sb_secret_…)', file);
    for (const m of text.matchAll(/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g)) {
      if (jwtPayload(m[0])?.role === 'service_role') note('a service_role JWT', file);
    }
    // The footer's company block marks a placeholder it shows (src/components/chrome/CompanyBlock.astro).
    if (file.endsWith('.html') && /<[^>]+\bdata-company\b[^>]*\bdata-placeholders=/.test(text)) {
      note("the company details' placeholders (fill in content/company/company.md, then build again)", file);
    }
  }
  for (const [what, where] of found) {
    const list = [...where].sort();
    problems.push(`the build contains ${what}: ${listed(list)}`);
  }
  const home = readFileSync(join(root, 'index.html'), 'utf8');
  const canonical = home.match(/<link rel="canonical" href="([^"]+)"/)?.[1];
  if (env.SITE_URL && canonical && new URL(canonical).origin !== safeOrigin(env.SITE_URL)) {
    problems.push(
      `the build's canonical URLs are on ${new URL(canonical).origin}, not SITE_URL ${env.SITE_URL}: build again with this env`,
    );
  }
  return problems;
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The header files the build writes for static hosts: present, every page covered, within Cloudflare's limits. */
export function checkHeaders(dir: string, env: Env): string[] {
  const root = resolve(dir);
  const file = join(root, HEADERS_FILE);
  if (!existsSync(file)) return [`${dir}/${HEADERS_FILE} is missing: build with npm run build (it writes the headers)`];
  const problems: string[] = [];
  if (!existsSync(join(root, NGINX_FILE))) problems.push(`${dir}/${NGINX_FILE} is missing`);
  const text = readFileSync(file, 'utf8');
  const rules = parseHeadersFile(text);
  if (rules.length > HEADERS_LIMITS.rules) {
    problems.push(`${HEADERS_FILE} has ${rules.length} rules; Cloudflare Pages reads ${HEADERS_LIMITS.rules}`);
  }
  const long = text.split('\n').filter((l) => l.length > HEADERS_LIMITS.lineLength).length;
  if (long)
    problems.push(`${HEADERS_FILE} has ${long} lines over Cloudflare's ${HEADERS_LIMITS.lineLength} characters`);
  for (const name of ['Strict-Transport-Security', 'X-Content-Type-Options', 'Referrer-Policy', 'Permissions-Policy']) {
    if (!headersForPath(rules, '/').has(name)) problems.push(`${HEADERS_FILE} sends no ${name}`);
  }
  const supabase = env.PUBLIC_SUPABASE_URL ? safeOrigin(env.PUBLIC_SUPABASE_URL) : null;
  // One line per kind of problem, naming the paths it concerns (a stale build would repeat it on every page).
  const byProblem = new Map<string, string[]>();
  const flag = (problem: string, path: string) => byProblem.set(problem, [...(byProblem.get(problem) ?? []), path]);
  for (const { file, route } of builtPages(root)) {
    const meta = metaPolicy(readFileSync(file, 'utf8'));
    for (const path of pagePaths(route)) {
      const csp = headersForPath(rules, path).get('Content-Security-Policy');
      if (!csp) {
        flag(`${HEADERS_FILE} has no Content-Security-Policy for`, path);
        continue;
      }
      if (/'unsafe-inline'|'unsafe-hashes'|'unsafe-eval'/.test(csp)) flag('the CSP allows unsafe sources on', path);
      const policy = parsePolicy(csp);
      if (policy.get('frame-ancestors')?.join(' ') !== "'none'") flag("the CSP lacks frame-ancestors 'none' on", path);
      if (supabase && !policy.get('connect-src')?.includes(supabase)) {
        flag(
          `the CSP's connect-src does not allow PUBLIC_SUPABASE_URL (${supabase}), build again with this env:`,
          path,
        );
      }
      const own = meta ? parsePolicy(meta).get('script-src') : undefined;
      if (own && own.join(' ') !== policy.get('script-src')?.join(' ')) {
        flag("the header's script-src differs from the page's own <meta>, build again:", path);
      }
    }
  }
  for (const [problem, paths] of byProblem) problems.push(`${problem} ${listed(paths)}`);
  return problems;
}

/** `a, b, c and 4 more` */
function listed(items: string[], shown = 3): string {
  const head = items.slice(0, shown).join(', ');
  return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}

/** The CLI's env(NAME) in config.toml: the whole string names a variable; an unset one stays as written. */
export function resolveEnvValue(value: string, env: Env): { value: string; unset?: string } {
  const name = value.match(/^env\((.*)\)$/)?.[1];
  if (!name) return { value };
  const set = env[name];
  return set ? { value: set } : { value, unset: name };
}

function unsetEnvRefs(node: unknown, env: Env, path: string[] = []): string[] {
  if (typeof node === 'string') {
    const { unset } = resolveEnvValue(node, env);
    return unset
      ? [`config.toml ${path.join('.')}: env(${unset}) is unset, so the CLI would push the text "${node}"`]
      : [];
  }
  if (Array.isArray(node))
    return node.flatMap((v, i) => unsetEnvRefs(v, env, [...path.slice(0, -1), `${path.at(-1)}[${i}]`]));
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([k, v]) => unsetEnvRefs(v, env, [...path, k]));
  }
  return [];
}

type Table = Record<string, unknown>;
const table = (v: unknown): Table => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {});

/** GoTrue's allow-list for a redirect: site_url's scheme and host, or one of additional_redirect_urls. */
export function redirectAllowed(siteUrl: string, additional: string[], target: string): boolean {
  try {
    const base = new URL(siteUrl);
    const ref = new URL(target);
    if (base.protocol === ref.protocol && base.host === ref.host) return true;
  } catch {
    return false;
  }
  return additional.some((glob) => globToRegExp(glob).test(target));
}

/** The sign-up confirmation link, as the templates write it (HTML escapes its `&`). */
export const CONFIRM_LINK = '{{ .SiteURL }}/auth?tab=confirm&token_hash={{ .TokenHash }}&type=signup';

/** A template's text with `&amp;` unescaped and every `{{.Name}}` spaced as `{{ .Name }}`. */
function templateText(file: string): string {
  return readFileSync(file, 'utf8')
    .replaceAll('&amp;', '&')
    .replace(/\{\{-?\s*\.(\w+)\s*-?\}\}/g, '{{ .$1 }}');
}

/**
 * The confirmation mail: a link to /auth, which confirms the address only together with the password chosen
 * there. `{{ .ConfirmationURL }}` would verify on a GET by whoever opens it (a mail scanner, a stranger the
 * mail reached), leaving the password typed at sign-up in place.
 */
function checkConfirmationMail(root: string, templates: Table): string[] {
  const entry = templates.confirmation;
  if (entry === undefined)
    return [
      'config.toml has no [auth.email.template.confirmation], so hosted sends its default mail, which links {{ .ConfirmationURL }}: add it with content_path = "./supabase/templates/confirmation.html"',
    ];
  const path = table(entry).content_path;
  if (typeof path !== 'string' || !existsSync(join(root, path))) return []; // said with the other templates
  const html = join(root, path);
  // The plain-text part beside it (the local stack sends it; hosted sends the HTML only).
  const text = html.replace(/\.html?$/, '.txt');
  const problems: string[] = [];
  for (const file of text !== html && existsSync(text) ? [html, text] : [html]) {
    const name = relative(root, file);
    const body = templateText(file);
    if (/\{\{ \.ConfirmationURL \}\}/.test(body))
      problems.push(
        `${name} uses {{ .ConfirmationURL }}, which confirms the address on a GET by whoever opens it, keeping the password set at sign-up: link to ${CONFIRM_LINK} instead`,
      );
    if (!body.includes(CONFIRM_LINK))
      problems.push(
        `${name} does not link to ${CONFIRM_LINK}, where /auth confirms the address only with the password chosen there`,
      );
  }
  return problems;
}

/** Security notifications (`[auth.email.notification.<kind>]`): each enabled one has a subject and its file. */
function checkNotifications(supabaseDir: string, notifications: Table): string[] {
  const problems: string[] = [];
  for (const [kind, value] of Object.entries(notifications)) {
    const entry = table(value);
    if (entry.enabled !== true) continue;
    const where = `config.toml [auth.email.notification.${kind}]`;
    if (typeof entry.subject !== 'string' || !entry.subject.trim())
      problems.push(`${where} is enabled with no subject: add subject = "…"`);
    // Unlike the templates, the CLI reads these relative to supabase/.
    const path = entry.content_path;
    if (typeof path !== 'string')
      problems.push(`${where} is enabled with no content_path: add one (relative to supabase/)`);
    else if (!existsSync(join(supabaseDir, path)))
      problems.push(`${where} content_path ${path} does not exist (the CLI reads it relative to supabase/)`);
  }
  return problems;
}

/** A SQL identifier as Postgres stores it: unquoted ones folded to lower case, quoted ones as written. */
function sqlName(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1).replaceAll('""', '"') : identifier.toLowerCase();
}

const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
const CREATE_FUNCTION = new RegExp(
  String.raw`\bcreate\s+(?:or\s+replace\s+)?function\s+(${IDENT})\s*\.\s*(${IDENT})\s*\(`,
  'gi',
);

/** `schema.function` of every function the migrations create, schema-qualified, as Postgres names them. */
export function migrationFunctions(migrationsDir: string): Set<string> {
  const names = new Set<string>();
  if (!existsSync(migrationsDir)) return names;
  for (const file of readdirSync(migrationsDir).filter((n) => n.endsWith('.sql'))) {
    const sql = readFileSync(join(migrationsDir, file), 'utf8');
    for (const m of sql.matchAll(CREATE_FUNCTION)) names.add(`${sqlName(m[1])}.${sqlName(m[2])}`);
  }
  return names;
}

/**
 * Enabled Postgres hooks (`[auth.hook.<name>]`, uri `pg-functions://postgres/<schema>/<function>`) name a
 * function a migration creates. GoTrue calls it as "<schema>"."<function>", quoted: the case must match.
 */
function checkHooks(supabaseDir: string, hooks: Table): string[] {
  const problems: string[] = [];
  let created: Set<string> | undefined;
  for (const [name, value] of Object.entries(hooks)) {
    const hook = table(value);
    if (hook.enabled !== true) continue;
    const where = `config.toml [auth.hook.${name}]`;
    const uri = hook.uri;
    if (typeof uri !== 'string' || !uri) {
      problems.push(`${where} is enabled with no uri: set uri = "pg-functions://postgres/<schema>/<function>"`);
      continue;
    }
    if (/^https?:/i.test(uri)) continue; // an HTTP hook: the CLI checks its secrets
    const parts = uri.match(/^pg-functions:\/\/[^/]+\/([^/]+)\/([^/]+)$/i);
    if (!parts) {
      problems.push(`${where} uri ${uri} is not pg-functions://postgres/<schema>/<function>`);
      continue;
    }
    created ??= migrationFunctions(join(supabaseDir, 'migrations'));
    if (!created.has(`${parts[1]}.${parts[2]}`)) {
      problems.push(
        `${where} uri names ${parts[1]}.${parts[2]}, which no file in supabase/migrations creates: add the migration (create function ${parts[1]}.${parts[2]}(event jsonb)) or correct the name, case included`,
      );
    }
  }
  return problems;
}

/**
 * CAPTCHA on both ends: a build with a Turnstile site key sends tokens that only an enabled `[auth.captcha]`
 * checks, and an enabled `[auth.captcha]` refuses every sign-in and sign-up of pages built without the key.
 */
export function checkCaptcha(captchaSection: unknown, env: Env): string[] {
  const captcha = table(captchaSection);
  const siteKey = env.PUBLIC_TURNSTILE_SITE_KEY?.trim();
  if (captcha.enabled !== true) {
    return siteKey
      ? [
          'the build has PUBLIC_TURNSTILE_SITE_KEY but config.toml [auth.captcha] is not enabled, so sign-ins and sign-ups go unchecked: set enabled = true, provider = "turnstile" and secret = "env(…)"',
        ]
      : [];
  }
  const problems: string[] = [];
  if (!siteKey)
    problems.push(
      'config.toml [auth.captcha] is enabled but the build env has no PUBLIC_TURNSTILE_SITE_KEY, so the pages send no token and every sign-in and sign-up fails: build with the site key',
    );
  if (captcha.provider !== 'turnstile') {
    const provider = typeof captcha.provider === 'string' ? `is "${captcha.provider}"` : 'is not set';
    problems.push(
      `config.toml [auth.captcha] provider ${provider}, but the site's widget is Turnstile (src/lib/captcha.ts): set provider = "turnstile"`,
    );
  }
  return problems;
}

/** supabase/config.toml against supabase/functions/, the migrations and the templates, with the build env. */
export function checkSupabaseConfig(supabaseDir: string, env: Env): string[] {
  const file = join(supabaseDir, 'config.toml');
  if (!existsSync(file)) return [`${file} is missing`];
  let toml: Table;
  try {
    toml = parse(readFileSync(file, 'utf8')) as Table;
  } catch (err) {
    return [`${file}: ${(err as Error).message}`];
  }
  const problems = unsetEnvRefs(toml, env);
  const functionsDir = join(supabaseDir, 'functions');
  const dirs = existsSync(functionsDir)
    ? readdirSync(functionsDir).filter(
        (n) => !n.startsWith('_') && !n.startsWith('.') && statSync(join(functionsDir, n)).isDirectory(),
      )
    : [];
  const entries = table(toml.functions);
  for (const name of dirs)
    if (!(name in entries)) problems.push(`supabase/functions/${name} has no [functions.${name}] in config.toml`);
  for (const [name, value] of Object.entries(entries)) {
    const entry = table(value);
    if (!dirs.includes(name))
      problems.push(`config.toml [functions.${name}] names no folder supabase/functions/${name}`);
    if (typeof entry.verify_jwt !== 'boolean') {
      problems.push(
        `config.toml [functions.${name}] verify_jwt is not set (the CLI's default is true: every call would need a JWT)`,
      );
    }
    // As the CLI resolves them: relative to supabase/.
    const entrypoint = join(supabaseDir, String(entry.entrypoint ?? `./functions/${name}/index.ts`));
    if (!existsSync(entrypoint))
      problems.push(
        `config.toml [functions.${name}] entrypoint ${relative(dirname(supabaseDir), entrypoint)} does not exist`,
      );
    if (entry.import_map !== undefined && !existsSync(join(supabaseDir, String(entry.import_map)))) {
      problems.push(`config.toml [functions.${name}] import_map ${entry.import_map} does not exist`);
    }
  }
  const auth = table(toml.auth);
  const templates = table(table(table(auth.email).template));
  for (const [kind, value] of Object.entries(templates)) {
    // The CLI reads email templates relative to the project root (the folder holding supabase/).
    const path = table(value).content_path;
    if (typeof path !== 'string') problems.push(`config.toml [auth.email.template.${kind}] has no content_path`);
    else if (!existsSync(join(dirname(supabaseDir), path))) {
      problems.push(`config.toml [auth.email.template.${kind}] content_path ${path} does not exist`);
    }
  }
  const root = dirname(supabaseDir);
  problems.push(
    ...checkConfirmationMail(root, templates),
    ...checkNotifications(supabaseDir, table(table(auth.email).notification)),
    ...checkHooks(supabaseDir, table(auth.hook)),
    ...checkCaptcha(auth.captcha, env),
  );
  // `supabase config push` sends the list to the hosted project: a loopback entry there lets a mailed link
  // hand its tokens to whatever listens on that port of the visitor's machine.
  for (const entry of Array.isArray(auth.additional_redirect_urls) ? auth.additional_redirect_urls : []) {
    if (/^[a-z][a-z0-9+.-]*:\/\/(localhost|127\.[\d.*]+|\[::1\]|0\.0\.0\.0)([:/]|$)/i.test(String(entry))) {
      problems.push(
        `config.toml auth.additional_redirect_urls has ${entry}, a loopback address, which supabase config push would send to the hosted project (the local stack reads LOCAL_REDIRECT_URLS)`,
      );
    }
  }
  const siteUrl = resolveEnvValue(String(auth.site_url ?? ''), env).value;
  const additional = (Array.isArray(auth.additional_redirect_urls) ? auth.additional_redirect_urls : [])
    .map((u) => resolveEnvValue(String(u), env))
    .filter((r) => !r.unset)
    .map((r) => r.value);
  // The templates append /auth… to {{ .SiteURL }}: a trailing slash would make it //auth.
  if (siteUrl.endsWith('/')) {
    const from = auth.site_url !== siteUrl ? ` (${auth.site_url})` : '';
    problems.push(
      `config.toml auth.site_url${from} is ${siteUrl}, ending with a slash, so the mailed links would read ${siteUrl}/auth…: drop the trailing slash`,
    );
  }
  if (env.SITE_URL) {
    if (safeOrigin(siteUrl) !== safeOrigin(env.SITE_URL)) {
      problems.push(`config.toml auth.site_url is ${siteUrl}, not SITE_URL ${env.SITE_URL}`);
    }
    const base = env.SITE_URL.replace(/\/+$/, '');
    for (const [target, use] of [
      [`${base}/newsletter-verified?type=user`, 'the sign-up confirmation link'],
      [`${base}/auth?tab=reset`, 'the password reset link'],
    ]) {
      if (!redirectAllowed(siteUrl, additional, target)) {
        problems.push(
          `config.toml auth: ${use} goes to ${target}, which site_url and additional_redirect_urls do not allow`,
        );
      }
    }
  }
  return problems;
}

/** The company's details file, under content/. */
export const COMPANY_FILE = 'company/company.md';

/**
 * The company's details that every page's footer (and every mail) shows: the file is there, valid, and holds no
 * [placeholder] any more. A production build must not go out with "[Company number]" in it.
 */
export function checkCompany(contentDir: string): string[] {
  const name = `content/${COMPANY_FILE}`;
  const file = join(contentDir, COMPANY_FILE);
  if (!existsSync(file)) return [`${name} is missing: the footer's company details come from it`];
  let data: unknown;
  try {
    data = parseFrontmatter(readFileSync(file, 'utf8')).frontmatter;
  } catch (err) {
    return [`${name}: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  const parsed = companySchema.safeParse(data ?? {});
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((issue) => `${name} ${issue.path.join('.')}: ${issue.message}`));
  }
  const left = companyPlaceholders(data);
  if (left.length) {
    problems.push(
      `${name} still holds placeholders in ${left.join(', ')}: fill in the company's registered details, then build again`,
    );
  }
  return problems;
}

export interface DeployCheckOptions {
  dist: string;
  /** The content editor's build (dist-cms/), checked when given. */
  cms?: string;
  supabaseDir: string;
  /** content/, whose company details are checked when given. */
  contentDir?: string;
  env: Env;
}

export function deployCheck({ dist, cms, supabaseDir, contentDir, env }: DeployCheckOptions): string[] {
  return [
    ...checkEnv(env),
    ...(contentDir === undefined ? [] : checkCompany(contentDir)),
    ...checkBuild(dist, env),
    ...(existsSync(join(dist, 'index.html')) ? checkHeaders(dist, env) : []),
    ...checkSiteHasNoEditor(dist),
    ...(cms === undefined ? [] : checkEditorBuild(cms)),
    ...checkSupabaseConfig(supabaseDir, env),
  ];
}

const USAGE = 'npm run deploy:check -- [<site dir>] [--cms <editor dir>]';

/** `[<dir>] [--cms <dir>]`: the site's build (dist), and the editor's, named or else dist-cms/ when it exists. */
export function parseArgs(
  args: string[],
  exists: (path: string) => boolean = existsSync,
): { dist: string; cms?: string } {
  let dist: string | undefined;
  let cms: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--cms' || arg.startsWith('--cms=')) {
      cms = arg === '--cms' ? args[++i] : arg.slice('--cms='.length);
      if (!cms || cms.startsWith('-')) throw new Error(`--cms needs the editor's build folder: ${USAGE}`);
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}: ${USAGE}`);
    else if (dist === undefined) dist = arg;
    else throw new Error(`one site folder only (${dist}, then ${arg}): ${USAGE}`);
  }
  return { dist: dist ?? 'dist', cms: cms ?? (exists(EDITOR_DIR) ? EDITOR_DIR : undefined) };
}

if (import.meta.main) {
  let args: { dist: string; cms?: string };
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`deploy:check: ${(err as Error).message}`);
    process.exit(2);
  }
  const { dist, cms } = args;
  // The env the build reads: the process's, then .env files (as Vite and astro.config.mjs read them).
  const env: Env = { ...loadEnv('production', process.cwd(), ''), ...process.env };
  const problems = deployCheck({ dist, cms, supabaseDir: resolve('supabase'), contentDir: resolve('content'), env });
  if (problems.length === 0) {
    const editor = cms === undefined ? '' : `, ${cms}/`;
    console.log(
      `deploy:check: ok (build env, content/${COMPANY_FILE}, ${dist}/, ${HEADERS_FILE}${editor}, supabase/config.toml)`,
    );
  } else {
    for (const p of problems) console.log(`✗ ${p}`);
    console.log(`\ndeploy:check: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
    process.exit(1);
  }
}
