import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEMO_ANON_KEY, DEMO_JWT_SECRET, DEMO_PUBLISHABLE_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkAdmin,
  checkBuild,
  checkEnv,
  checkHeaders,
  checkSupabaseConfig,
  type Env,
  redirectAllowed,
} from '../../scripts/deploy-check.ts';
import { writeAdmin } from '../../scripts/lib/cms-admin.ts';
import { writeHostHeaders } from '../../scripts/lib/headers.ts';

const work = mkdtempSync(join(tmpdir(), 'deploy-check-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const production: Env = {
  PUBLIC_SUPABASE_URL: 'https://abcdefghijklmnopqrst.supabase.co',
  PUBLIC_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_Xk3v9QmT2pLw8RzN4bYc1A_7hJdEfGuS',
  SITE_URL: 'https://signalone.example',
};
const jwt = (payload: object) =>
  `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2lnbmF0dXJl`;

describe('checkEnv', () => {
  it('passes a complete production env', () => {
    expect(checkEnv(production)).toEqual([]);
  });

  it.each<[string, Env, string]>([
    ['no Supabase URL', { ...production, PUBLIC_SUPABASE_URL: undefined }, 'PUBLIC_SUPABASE_URL is not set'],
    [
      'an http Supabase URL',
      { ...production, PUBLIC_SUPABASE_URL: 'http://abc.supabase.co' },
      'PUBLIC_SUPABASE_URL must be an https:// address',
    ],
    [
      'the local stack',
      { ...production, PUBLIC_SUPABASE_URL: 'https://127.0.0.1:54321' },
      'PUBLIC_SUPABASE_URL points at this machine',
    ],
    ['no site URL', { ...production, SITE_URL: undefined }, 'SITE_URL is not set'],
    ['a local site URL', { ...production, SITE_URL: 'http://localhost:4321' }, 'SITE_URL must be an https:// address'],
    [
      'no key',
      { ...production, PUBLIC_SUPABASE_PUBLISHABLE_KEY: undefined },
      'PUBLIC_SUPABASE_PUBLISHABLE_KEY is not set',
    ],
    [
      'the demo publishable key',
      { ...production, PUBLIC_SUPABASE_PUBLISHABLE_KEY: DEMO_PUBLISHABLE_KEY },
      'PUBLIC_SUPABASE_PUBLISHABLE_KEY is the local demo publishable key',
    ],
    [
      'the demo anon key',
      { ...production, PUBLIC_SUPABASE_PUBLISHABLE_KEY: undefined, PUBLIC_SUPABASE_ANON_KEY: DEMO_ANON_KEY },
      'PUBLIC_SUPABASE_ANON_KEY is the local demo anon key',
    ],
    [
      'a secret key',
      { ...production, PUBLIC_SUPABASE_PUBLISHABLE_KEY: 'sb_secret_abcdefghijklmnop' },
      'is a secret (service_role) key',
    ],
    [
      'a service_role JWT',
      { ...production, PUBLIC_SUPABASE_ANON_KEY: jwt({ role: 'service_role', iss: 'supabase' }) },
      'PUBLIC_SUPABASE_ANON_KEY is a secret (service_role) key',
    ],
    [
      'something else as publishable key',
      { ...production, PUBLIC_SUPABASE_PUBLISHABLE_KEY: 'my-key' },
      'does not look like a publishable key',
    ],
  ])('refuses %s', (_, env, message) => {
    expect(checkEnv(env).join('\n')).toContain(message);
  });
});

/** A built site of two pages with their CSP <meta> and the header files written for `supabaseUrl`. */
function site(name: string, extra: Record<string, string> = {}, supabaseUrl = production.PUBLIC_SUPABASE_URL) {
  const dir = join(work, name);
  const meta = `<meta http-equiv="content-security-policy" content="script-src 'self' 'sha256-AAAA'; style-src 'self'">`;
  mkdirSync(join(dir, 'faq'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), `<link rel="canonical" href="https://signalone.example/">${meta}`);
  writeFileSync(join(dir, 'faq', 'index.html'), meta);
  writeHostHeaders(dir, supabaseUrl as string);
  for (const [file, text] of Object.entries(extra)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe('checkBuild', () => {
  it('passes a clean build', () => {
    expect(checkBuild(site('clean'), production)).toEqual([]);
  });

  it.each([
    ['the demo anon key', `const k="${DEMO_ANON_KEY}"`, 'the build contains the local demo anon key: _astro/app.js'],
    ['the demo JWT secret', `"${DEMO_JWT_SECRET}"`, 'the local demo JWT secret'],
    ['the demo service_role key', DEMO_SERVICE_ROLE_KEY, 'the local demo service_role key'],
    ['another service_role JWT', jwt({ role: 'service_role' }), 'a service_role JWT'],
    ['a secret key', 'k="sb_secret_0123456789abcdef"', 'a secret key (sb_secret_…)'],
    ['the local API', 'fetch("http://127.0.0.1:54321/rest/v1")', 'a local address (http://127.0.0.1:54321)'],
  ])('finds %s', (name, code, message) => {
    const dir = site(`build-${name.replaceAll(' ', '-')}`, { '_astro/app.js': code });
    expect(checkBuild(dir, production).join('\n')).toContain(message);
  });

  it("ignores auth-js's built-in default address", () => {
    expect(checkBuild(site('gotrue-default', { '_astro/a.js': 'u="http://localhost:9999"' }), production)).toEqual([]);
  });

  it('notices a build for another site address', () => {
    expect(checkBuild(site('other-site'), { ...production, SITE_URL: 'https://other.example' })).toContain(
      "the build's canonical URLs are on https://signalone.example, not SITE_URL https://other.example: build again with this env",
    );
  });

  it('says when there is no build', () => {
    expect(checkBuild(join(work, 'nothing'), production)).toEqual([
      `${join(work, 'nothing')} holds no built site: run npm run build first`,
    ]);
  });
});

describe('checkHeaders', () => {
  it('passes the header files the build writes', () => {
    expect(checkHeaders(site('headers-ok'), production)).toEqual([]);
  });

  it('notices missing header files', () => {
    const dir = site('headers-missing');
    rmSync(join(dir, '_headers'));
    expect(checkHeaders(dir, production)).toEqual([
      `${dir}/_headers is missing: build with npm run build (it writes the headers)`,
    ]);
  });

  it('notices a page the rules do not cover, and rules written for another Supabase project', () => {
    const dir = site('headers-stale', {}, 'https://zyxwvutsrqponmlkjihg.supabase.co');
    mkdirSync(join(dir, 'news'));
    writeFileSync(join(dir, 'news', 'index.html'), '<title>added later</title>');
    const problems = checkHeaders(dir, production);
    expect(problems).toContain('_headers has no Content-Security-Policy for /news, /news/');
    expect(problems).toContain(
      "the CSP's connect-src does not allow PUBLIC_SUPABASE_URL (https://abcdefghijklmnopqrst.supabase.co), build again with this env: /, /faq, /faq/",
    );
  });

  it("notices 'unsafe-inline' and a missing frame-ancestors", () => {
    const dir = site('headers-weak', {
      _headers:
        "/*\n  Strict-Transport-Security: max-age=1\n/\n  Content-Security-Policy: script-src 'unsafe-inline'\n",
    });
    const problems = checkHeaders(dir, production);
    expect(problems).toContain('the CSP allows unsafe sources on /');
    expect(problems).toContain("the CSP lacks frame-ancestors 'none' on /");
    expect(problems).toContain('_headers sends no X-Content-Type-Options');
  });

  it("keeps within Cloudflare Pages' limits", () => {
    const long = `/*\n  X-Long: ${'x'.repeat(2100)}\n`;
    expect(checkHeaders(site('headers-long', { _headers: long }), production)).toContain(
      "_headers has 1 lines over Cloudflare's 2000 characters",
    );
  });
});

/** A supabase/ folder: config.toml as given, function folders, and the project root holding templates/. */
function project(name: string, toml: string, functions: string[] = ['hello'], templates: string[] = []) {
  const root = join(work, name);
  const supabase = join(root, 'supabase');
  for (const fn of functions) {
    mkdirSync(join(supabase, 'functions', fn), { recursive: true });
    writeFileSync(join(supabase, 'functions', fn, 'index.ts'), '');
    writeFileSync(join(supabase, 'functions', fn, 'deno.json'), '{}');
  }
  mkdirSync(join(supabase, 'functions', '_shared'), { recursive: true });
  mkdirSync(join(supabase, 'templates'), { recursive: true });
  for (const t of templates) writeFileSync(join(supabase, 'templates', t), '<p>{{ .ConfirmationURL }}</p>');
  writeFileSync(join(supabase, 'config.toml'), toml);
  return supabase;
}

const goodToml = `
[auth]
site_url = "env(SITE_URL)"
additional_redirect_urls = ["https://preview.signalone.example/**"]
[auth.email.template.confirmation]
subject = "Confirm"
content_path = "./supabase/templates/confirmation.html"
[functions.hello]
verify_jwt = false
entrypoint = "./functions/hello/index.ts"
import_map = "./functions/hello/deno.json"
`;

describe('checkSupabaseConfig', () => {
  it("passes this project's own config.toml with a production SITE_URL", () => {
    expect(checkSupabaseConfig(resolve('supabase'), production)).toEqual([]);
  });

  it('passes a consistent fixture', () => {
    expect(checkSupabaseConfig(project('good', goodToml, ['hello'], ['confirmation.html']), production)).toEqual([]);
  });

  it('lists function folders and entries that do not match', () => {
    const problems = checkSupabaseConfig(
      project(
        'functions',
        `${goodToml}\n[functions.gone]\nverify_jwt = true\n`,
        ['hello', 'extra'],
        ['confirmation.html'],
      ),
      production,
    );
    expect(problems).toContain('supabase/functions/extra has no [functions.extra] in config.toml');
    expect(problems).toContain('config.toml [functions.gone] names no folder supabase/functions/gone');
    expect(problems).toContain(
      'config.toml [functions.gone] entrypoint supabase/functions/gone/index.ts does not exist',
    );
  });

  it('wants verify_jwt said and the import map present', () => {
    const toml = goodToml.replace('verify_jwt = false\n', '').replace('hello/deno.json', 'hello/import_map.json');
    const problems = checkSupabaseConfig(project('jwt', toml, ['hello'], ['confirmation.html']), production);
    expect(problems).toContain(
      "config.toml [functions.hello] verify_jwt is not set (the CLI's default is true: every call would need a JWT)",
    );
    expect(problems).toContain(
      'config.toml [functions.hello] import_map ./functions/hello/import_map.json does not exist',
    );
  });

  it('finds a template that is not there', () => {
    expect(checkSupabaseConfig(project('template', goodToml), production)).toEqual([
      'config.toml [auth.email.template.confirmation] content_path ./supabase/templates/confirmation.html does not exist',
    ]);
  });

  it('names an env() the CLI could not fill', () => {
    const problems = checkSupabaseConfig(project('unset', goodToml, ['hello'], ['confirmation.html']), {});
    expect(problems).toEqual([
      'config.toml auth.site_url: env(SITE_URL) is unset, so the CLI would push the text "env(SITE_URL)"',
    ]);
  });

  it('wants the site URL and its auth landing pages allowed', () => {
    const toml = goodToml.replace('"env(SITE_URL)"', '"https://old.example"');
    const problems = checkSupabaseConfig(project('redirects', toml, ['hello'], ['confirmation.html']), production);
    expect(problems).toEqual([
      'config.toml auth.site_url is https://old.example, not SITE_URL https://signalone.example',
      'config.toml auth: the sign-up confirmation link goes to https://signalone.example/newsletter-verified?type=user, which site_url and additional_redirect_urls do not allow',
      'config.toml auth: the password reset link goes to https://signalone.example/auth?tab=reset, which site_url and additional_redirect_urls do not allow',
    ]);
  });
});

describe('loopback redirect entries', () => {
  it('are refused in the pushed config: they would reach the hosted project', () => {
    const toml = goodToml.replace(
      '["https://preview.signalone.example/**"]',
      '["http://127.0.0.1:4321/**", "http://localhost:4321/**", "https://preview.signalone.example/**"]',
    );
    const problems = checkSupabaseConfig(project('loopback', toml, ['hello'], ['confirmation.html']), production);
    expect(problems).toEqual([
      'config.toml auth.additional_redirect_urls has http://127.0.0.1:4321/**, a loopback address, which supabase config push would send to the hosted project (the local stack reads LOCAL_REDIRECT_URLS)',
      'config.toml auth.additional_redirect_urls has http://localhost:4321/**, a loopback address, which supabase config push would send to the hosted project (the local stack reads LOCAL_REDIRECT_URLS)',
    ]);
  });
});

describe('redirectAllowed', () => {
  it.each([
    ['https://site.example', [], 'https://site.example/auth?tab=reset', true],
    ['https://site.example', [], 'http://site.example/auth', false],
    ['https://site.example', [], 'https://evil.example/auth', false],
    ['https://site.example', ['https://*--site.netlify.app/**'], 'https://pr-1--site.netlify.app/auth?tab=reset', true],
    ['https://site.example', ['https://*--site.netlify.app/**'], 'https://a.b--site.netlify.app/auth', false],
  ])('%s %j %s', (site, globs, target, allowed) => {
    expect(redirectAllowed(site, globs, target)).toBe(allowed);
  });
});

describe('npm run deploy:check on a build made with the demo keys', () => {
  it('fails, naming the demo key in the build', { timeout: 240_000 }, () => {
    const outDir = join(work, 'demo-build');
    const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
    for (const name of ['PUBLIC_SUPABASE_PUBLISHABLE_KEY', 'PUBLIC_SUPABASE_ANON_KEY']) delete env[name];
    Object.assign(env, { PUBLIC_SUPABASE_URL: production.PUBLIC_SUPABASE_URL, SITE_URL: production.SITE_URL });
    const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build', '--outDir', outDir], {
      env,
      encoding: 'utf8',
    });
    expect(build.status, build.stderr).toBe(0);
    const check = spawnSync(process.execPath, ['scripts/deploy-check.ts', outDir], { env, encoding: 'utf8' });
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(
      '✗ PUBLIC_SUPABASE_PUBLISHABLE_KEY is not set (nor PUBLIC_SUPABASE_ANON_KEY): the pages would send the local demo key',
    );
    expect(check.stdout).toMatch(/✗ the build contains the local demo anon key: _astro\/[\w.-]+\.js/);
    expect(check.stdout).toMatch(/deploy:check: \d+ problems/);
    // Built for this env, its header files are sound: the key is what is wrong.
    expect(check.stdout).not.toContain('_headers');
  });
});

describe('the content editor in the build', () => {
  /** A built site with /admin/ as `astro build` writes it (scripts/lib/cms-admin.ts), then its header files. */
  function withAdmin(name: string, repo: string) {
    const dir = site(name);
    writeAdmin(dir, { repo });
    writeHostHeaders(dir, production.PUBLIC_SUPABASE_URL as string);
    return dir;
  }

  it('passes /admin/: its own policy, noindex, and Decap’s unused local-proxy default address', () => {
    const dir = withAdmin('admin-ok', 'owner/site');
    expect(checkBuild(dir, production)).toEqual([]);
    expect(checkHeaders(dir, production)).toEqual([]);
    expect(checkAdmin(dir)).toEqual([]);
  });

  it('notices an editor built without CMS_GITHUB_REPO, and an admin without its policy', () => {
    const dir = withAdmin('admin-no-repo', 'OWNER/REPOSITORY');
    writeFileSync(join(dir, '_headers'), readFileSync(join(dir, '_headers'), 'utf8').split('\n/admin\n')[0]);
    expect(checkAdmin(dir)).toEqual([
      'admin/config.yml names no GitHub repository: build with CMS_GITHUB_REPO=owner/name',
      "_headers gives /admin/ not the editor's own policy (src/lib/admin-headers.ts): build again",
    ]);
  });
});
