import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEMO_ANON_KEY, DEMO_JWT_SECRET, DEMO_PUBLISHABLE_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEditor } from '../../integrations/cms-admin.ts';
import { writeHostHeaders } from '../../integrations/headers.ts';
import {
  CONFIRM_LINK,
  checkBuild,
  checkCompany,
  checkEnv,
  checkHeaders,
  checkSupabaseConfig,
  deployCheck,
  type Env,
  parseArgs,
  redirectAllowed,
} from '../../scripts/deploy-check.ts';

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

  it("finds the company block's placeholders in the pages", () => {
    const block =
      '<div data-company data-placeholders="companyNumber email" class="mt-4"><p>[Company number]</p></div>';
    const dir = site('company-placeholders', { 'terms/index.html': block });
    expect(checkBuild(dir, production)).toEqual([
      "the build contains the company details' placeholders (fill in content/company/company.md, then build again): terms/index.html",
    ]);
    const filled = site('company-filled', {
      'terms/index.html': '<div data-company class="mt-4"><p>SignalOne Ltd</p></div>',
    });
    expect(checkBuild(filled, production)).toEqual([]);
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

/** A content/ folder holding company/company.md with `frontmatter` (YAML). */
function content(name: string, frontmatter: string | undefined): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'company'), { recursive: true });
  if (frontmatter !== undefined)
    writeFileSync(join(dir, 'company', 'company.md'), `---\n${frontmatter}\n---\n\nNotes.\n`);
  return dir;
}

const filledCompany = [
  'registeredName: SignalOne Ltd',
  'companyNumber: "12345678"',
  'placeOfRegistration: England and Wales',
  'registeredOffice: 1 Example Street, London EC1A 1AA',
  'email: hello@signalone.example',
].join('\n');

describe('checkCompany', () => {
  it('passes filled-in details', () => {
    expect(checkCompany(content('company-ok', filledCompany))).toEqual([]);
  });

  it("refuses this project's own file while it holds placeholders", () => {
    expect(checkCompany(resolve('content'))).toContainEqual(
      expect.stringMatching(
        /^content\/company\/company\.md still holds placeholders in registeredName, companyNumber, /,
      ),
    );
  });

  it.each([
    [
      'a placeholder left',
      filledCompany.replace('"12345678"', '"[Company number]"'),
      "content/company/company.md still holds placeholders in companyNumber: fill in the company's registered details, then build again",
    ],
    [
      'a nested placeholder',
      `${filledCompany}\nregulatoryStatus:\n  kind: appointed-representative\n  principal: "[Principal firm]"\n  principalKind: authorised`,
      'content/company/company.md still holds placeholders in regulatoryStatus.principal',
    ],
    [
      'a malformed company number',
      filledCompany.replace('"12345678"', '"1234"'),
      'content/company/company.md companyNumber: must be 8 digits, or 2 letters and 6 digits',
    ],
    ['a missing field', filledCompany.replace(/^email: .*$/m, ''), 'content/company/company.md email:'],
    ['no file', undefined, "content/company/company.md is missing: the footer's company details come from it"],
  ])('refuses %s', (name, frontmatter, message) => {
    expect(checkCompany(content(`company-${name.replaceAll(' ', '-')}`, frontmatter)).join('\n')).toContain(message);
  });

  it('is part of deployCheck when content/ is given', () => {
    const dir = content('company-in-deploy', filledCompany.replace('"12345678"', '"[Company number]"'));
    expect(
      deployCheck({ dist: site('company-deploy'), supabaseDir: resolve('supabase'), contentDir: dir, env: production }),
    ).toEqual([
      "content/company/company.md still holds placeholders in companyNumber: fill in the company's registered details, then build again",
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

/** The confirmation mail as this project writes it: HTML escapes the link's `&`. */
const confirmationHtml = `<a href="${CONFIRM_LINK.replaceAll('&', '&amp;')}">Confirm</a>`;

/**
 * A supabase/ folder: config.toml as given, function folders, templates/ (a good confirmation mail in each),
 * and other files by their path from the project root (migrations, notification mails).
 */
function project(
  name: string,
  toml: string,
  functions: string[] = ['hello'],
  templates: string[] = [],
  extra: Record<string, string> = {},
) {
  const root = join(work, name);
  const supabase = join(root, 'supabase');
  for (const fn of functions) {
    mkdirSync(join(supabase, 'functions', fn), { recursive: true });
    writeFileSync(join(supabase, 'functions', fn, 'index.ts'), '');
    writeFileSync(join(supabase, 'functions', fn, 'deno.json'), '{}');
  }
  mkdirSync(join(supabase, 'functions', '_shared'), { recursive: true });
  mkdirSync(join(supabase, 'templates'), { recursive: true });
  for (const t of templates)
    writeFileSync(join(supabase, 'templates', t), t.endsWith('.txt') ? CONFIRM_LINK : confirmationHtml);
  for (const [file, text] of Object.entries(extra)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
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

/** goodToml with the auth settings this project uses: security notifications and the MFA hook. */
const authToml = `${goodToml}
[auth.email.notification.mfa_factor_enrolled]
enabled = true
subject = "Two-factor authentication was turned on"
content_path = "./templates/mfa_factor_enrolled.html"
[auth.email.notification.mfa_factor_unenrolled]
enabled = true
subject = "An authenticator app was removed"
content_path = "./templates/mfa_factor_removed.html"
[auth.hook.mfa_verification_attempt]
enabled = true
uri = "pg-functions://postgres/public/hook_mfa_verification_attempt"
`;
const captchaToml = `${authToml}
[auth.captcha]
enabled = true
provider = "turnstile"
secret = "env(TURNSTILE_SECRET_KEY)"
`;
const hookSql =
  'CREATE OR REPLACE FUNCTION public.hook_mfa_verification_attempt(event jsonb)\nreturns jsonb language plpgsql as $$ begin return event; end $$;\n';
/** The files authToml names, as paths from the project root. */
const authFiles: Record<string, string> = {
  'supabase/templates/mfa_factor_enrolled.html': '<p>{{ .FactorType }} added</p>',
  'supabase/templates/mfa_factor_removed.html': '<p>{{ .FactorType }} removed</p>',
  'supabase/migrations/20260101000000_hook.sql': hookSql,
};
const withKey: Env = {
  ...production,
  PUBLIC_TURNSTILE_SITE_KEY: '0x4AAAAAAAB1c2d3e4f5g6h7',
  TURNSTILE_SECRET_KEY: 'x',
};

describe('auth settings in config.toml', () => {
  let cases = 0;
  /** config.toml and files as given (on top of authFiles and a good confirmation mail), checked with `env`. */
  const check = (toml: string, files: Record<string, string> = {}, env: Env = production) =>
    checkSupabaseConfig(
      project(`auth-${++cases}`, toml, ['hello'], ['confirmation.html', 'confirmation.txt'], {
        ...authFiles,
        ...files,
      }),
      env,
    );

  it.each<[string, string, Env]>([
    ['notifications and the hook', authToml, production],
    ['CAPTCHA on with the site key', captchaToml, withKey],
    ['a hook and a notification switched off', authToml.replaceAll('enabled = true', 'enabled = false'), production],
  ])('passes %s', (_, toml, env) => {
    expect(check(toml, {}, env)).toEqual([]);
  });

  it.each<[string, string, Record<string, string>, Env, string[]]>([
    // Security notifications: content_path relative to supabase/, unlike the templates.
    [
      'a notification without its subject',
      authToml.replace('subject = "An authenticator app was removed"\n', ''),
      {},
      production,
      ['config.toml [auth.email.notification.mfa_factor_unenrolled] is enabled with no subject: add subject = "…"'],
    ],
    [
      'a notification file written relative to the project root',
      authToml.replace('"./templates/mfa_factor_enrolled.html"', '"./supabase/templates/mfa_factor_enrolled.html"'),
      {},
      production,
      [
        'config.toml [auth.email.notification.mfa_factor_enrolled] content_path ./supabase/templates/mfa_factor_enrolled.html does not exist (the CLI reads it relative to supabase/)',
      ],
    ],
    [
      'a notification without content_path',
      authToml.replace('content_path = "./templates/mfa_factor_removed.html"\n', ''),
      {},
      production,
      [
        'config.toml [auth.email.notification.mfa_factor_unenrolled] is enabled with no content_path: add one (relative to supabase/)',
      ],
    ],
    // The MFA hook: a function some migration creates, by GoTrue's quoted, case-sensitive name.
    [
      'a hook function no migration creates',
      authToml,
      { 'supabase/migrations/20260101000000_hook.sql': '-- dropped\n' },
      production,
      [
        'config.toml [auth.hook.mfa_verification_attempt] uri names public.hook_mfa_verification_attempt, which no file in supabase/migrations creates: add the migration (create function public.hook_mfa_verification_attempt(event jsonb)) or correct the name, case included',
      ],
    ],
    [
      'a hook name in another case than Postgres stores it',
      authToml.replace('/hook_mfa_verification_attempt"', '/Hook_MFA_Verification_Attempt"'),
      {},
      production,
      [
        'config.toml [auth.hook.mfa_verification_attempt] uri names public.Hook_MFA_Verification_Attempt, which no file in supabase/migrations creates: add the migration (create function public.Hook_MFA_Verification_Attempt(event jsonb)) or correct the name, case included',
      ],
    ],
    [
      'a hook in another schema',
      authToml.replace('postgres/public/', 'postgres/auth/'),
      {},
      production,
      [
        'config.toml [auth.hook.mfa_verification_attempt] uri names auth.hook_mfa_verification_attempt, which no file in supabase/migrations creates: add the migration (create function auth.hook_mfa_verification_attempt(event jsonb)) or correct the name, case included',
      ],
    ],
    [
      'a hook uri without a schema',
      authToml.replace('postgres/public/hook_mfa_verification_attempt', 'hook_mfa_verification_attempt'),
      {},
      production,
      [
        'config.toml [auth.hook.mfa_verification_attempt] uri pg-functions://hook_mfa_verification_attempt is not pg-functions://postgres/<schema>/<function>',
      ],
    ],
    [
      'an enabled hook without a uri',
      authToml.replace('uri = "pg-functions://postgres/public/hook_mfa_verification_attempt"\n', ''),
      {},
      production,
      [
        'config.toml [auth.hook.mfa_verification_attempt] is enabled with no uri: set uri = "pg-functions://postgres/<schema>/<function>"',
      ],
    ],
    // The confirmation mail links to /auth, never to {{ .ConfirmationURL }}.
    [
      'a confirmation mail that verifies on a GET',
      authToml,
      { 'supabase/templates/confirmation.html': '<a href="{{.ConfirmationURL}}">Confirm</a>' },
      production,
      [
        'supabase/templates/confirmation.html uses {{ .ConfirmationURL }}, which confirms the address on a GET by whoever opens it, keeping the password set at sign-up: link to {{ .SiteURL }}/auth?tab=confirm&token_hash={{ .TokenHash }}&type=signup instead',
        'supabase/templates/confirmation.html does not link to {{ .SiteURL }}/auth?tab=confirm&token_hash={{ .TokenHash }}&type=signup, where /auth confirms the address only with the password chosen there',
      ],
    ],
    [
      'a plain-text part with another link',
      authToml,
      { 'supabase/templates/confirmation.txt': '{{ .SiteURL }}/auth?tab=confirm&token_hash={{ .Token }}&type=signup' },
      production,
      [
        'supabase/templates/confirmation.txt does not link to {{ .SiteURL }}/auth?tab=confirm&token_hash={{ .TokenHash }}&type=signup, where /auth confirms the address only with the password chosen there',
      ],
    ],
    [
      "hosted's default confirmation mail",
      authToml.replace(
        '[auth.email.template.confirmation]\nsubject = "Confirm"\ncontent_path = "./supabase/templates/confirmation.html"\n',
        '',
      ),
      {},
      production,
      [
        'config.toml has no [auth.email.template.confirmation], so hosted sends its default mail, which links {{ .ConfirmationURL }}: add it with content_path = "./supabase/templates/confirmation.html"',
      ],
    ],
    [
      'a SITE_URL ending with a slash',
      authToml,
      {},
      { ...production, SITE_URL: 'https://signalone.example/' },
      [
        'config.toml auth.site_url (env(SITE_URL)) is https://signalone.example/, ending with a slash, so the mailed links would read https://signalone.example//auth…: drop the trailing slash',
      ],
    ],
    // CAPTCHA: the build's site key and [auth.captcha] go together.
    [
      'a site key without [auth.captcha]',
      authToml,
      {},
      withKey,
      [
        'the build has PUBLIC_TURNSTILE_SITE_KEY but config.toml [auth.captcha] is not enabled, so sign-ins and sign-ups go unchecked: set enabled = true, provider = "turnstile" and secret = "env(…)"',
      ],
    ],
    [
      'a site key with [auth.captcha] switched off',
      captchaToml.replace('[auth.captcha]\nenabled = true', '[auth.captcha]\nenabled = false'),
      {},
      withKey,
      [
        'the build has PUBLIC_TURNSTILE_SITE_KEY but config.toml [auth.captcha] is not enabled, so sign-ins and sign-ups go unchecked: set enabled = true, provider = "turnstile" and secret = "env(…)"',
      ],
    ],
    [
      '[auth.captcha] on without the site key',
      captchaToml,
      {},
      { ...withKey, PUBLIC_TURNSTILE_SITE_KEY: ' ' },
      [
        'config.toml [auth.captcha] is enabled but the build env has no PUBLIC_TURNSTILE_SITE_KEY, so the pages send no token and every sign-in and sign-up fails: build with the site key',
      ],
    ],
    [
      'another CAPTCHA provider',
      captchaToml.replace('provider = "turnstile"', 'provider = "hcaptcha"'),
      {},
      withKey,
      [
        'config.toml [auth.captcha] provider is "hcaptcha", but the site\'s widget is Turnstile (src/lib/captcha.ts): set provider = "turnstile"',
      ],
    ],
  ])('names %s', (_, toml, files, env, expected) => {
    expect(check(toml, files, env)).toEqual(expected);
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
  // A whole astro build: about 30 s here, minutes on a loaded machine. A hang still ends at the limit.
  it('fails, naming the demo key in the build', { timeout: 600_000 }, () => {
    const outDir = join(work, 'demo-build');
    const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
    for (const name of ['PUBLIC_SUPABASE_PUBLISHABLE_KEY', 'PUBLIC_SUPABASE_ANON_KEY']) delete env[name];
    Object.assign(env, { PUBLIC_SUPABASE_URL: production.PUBLIC_SUPABASE_URL, SITE_URL: production.SITE_URL });
    // What this build is about is the key; the copy's claims are checked by their own tests (docs/claims.md).
    env.CLAIMS_CHECK = 'warn';
    const build = spawnSync(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build', '--outDir', outDir], {
      env,
      encoding: 'utf8',
    });
    expect(build.status, build.stderr).toBe(0);
    const noEditor = join(work, 'no-editor-build');
    const check = spawnSync(process.execPath, ['scripts/deploy-check.ts', outDir, '--cms', noEditor], {
      env,
      encoding: 'utf8',
    });
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(
      '✗ PUBLIC_SUPABASE_PUBLISHABLE_KEY is not set (nor PUBLIC_SUPABASE_ANON_KEY): the pages would send the local demo key',
    );
    expect(check.stdout).toMatch(/✗ the build contains the local demo anon key: _astro\/[\w.-]+\.js/);
    expect(check.stdout).toContain(`✗ ${noEditor} holds no editor: run node scripts/cms.ts build`);
    // content/company/company.md ships with placeholders: refused in the file and in every built page.
    expect(check.stdout).toContain('✗ content/company/company.md still holds placeholders in registeredName');
    expect(check.stdout).toMatch(/✗ the build contains the company details' placeholders \([^)]*\): 404\.html, /);
    expect(check.stdout).toMatch(/deploy:check: \d+ problems/);
    // Built for this env, its header files are sound and it holds no editor: the key is what is wrong.
    expect(check.stdout).not.toContain('_headers');
    expect(check.stdout).not.toContain('admin/');
  });
});

describe('the content editor, built apart from the site', () => {
  const editor = join(work, 'dist-cms');
  const supabaseDir = project('editor-project', goodToml, ['hello'], ['confirmation.html']);
  beforeAll(async () => {
    await buildEditor(editor, { CMS_GITHUB_REPO: 'owner/site', CMS_AUTH_URL: 'https://auth.example.com/' });
  }, 60_000);

  /** A copy of the editor's build, changed by `edit`. */
  function editorCopy(name: string, edit: (dir: string) => void) {
    const dir = join(work, name);
    cpSync(editor, dir, { recursive: true });
    edit(dir);
    return dir;
  }

  it('passes a site without an editor, with the editor built by npm run build:cms', () => {
    expect(deployCheck({ dist: site('editor-apart'), cms: editor, supabaseDir, env: production })).toEqual([]);
  });

  it.each<[string, () => { dist: string; cms?: string }, (dist: string, cms: string) => string[]]>([
    [
      'an editor left inside the site',
      () => ({ dist: site('editor-inside', { 'admin/index.html': '<title>Content editor</title>' }) }),
      (dist) => [
        // Written after the header files, as an old build's leftover would be.
        '_headers has no Content-Security-Policy for /admin, /admin/',
        `${dist}/admin/ holds a content editor: it belongs on an origin of its own (node scripts/cms.ts build); build the site again`,
      ],
    ],
    [
      "a rule allowing 'unsafe-eval' in the site's headers",
      () => {
        const dist = site('editor-eval');
        const rule = "/legacy/*\n  Content-Security-Policy: script-src 'self' 'unsafe-eval'\n";
        writeFileSync(join(dist, '_headers'), `${readFileSync(join(dist, '_headers'), 'utf8')}\n${rule}`);
        return { dist };
      },
      (dist) => [`${dist}/_headers allows 'unsafe-eval' on /legacy/*`],
    ],
    [
      '--cms naming no editor',
      () => ({ dist: site('editor-missing'), cms: join(work, 'no-editor') }),
      (_, cms) => [`${cms} holds no editor: run node scripts/cms.ts build`],
    ],
    [
      'an editor built without CMS_GITHUB_REPO',
      () => ({
        dist: site('editor-no-repo'),
        cms: editorCopy('dist-cms-no-repo', (dir) => {
          const config = join(dir, 'config.yml');
          writeFileSync(config, readFileSync(config, 'utf8').replace('"owner/site"', '"OWNER/REPOSITORY"'));
        }),
      }),
      (_, cms) => [`${cms}/config.yml names no GitHub repository: build with CMS_GITHUB_REPO=owner/name`],
    ],
    [
      'an editor without its header files',
      () => ({
        dist: site('editor-no-headers'),
        cms: editorCopy('dist-cms-no-headers', (dir) => {
          rmSync(join(dir, '_headers'));
          rmSync(join(dir, '_headers.nginx.conf'));
        }),
      }),
      (_, cms) => [
        `${cms}/_headers gives /, /index.html, /config.yml, /decap-cms.js, /preview.css not the editor's policy: build again`,
        `${cms}/_headers.nginx.conf is missing: build again`,
      ],
    ],
  ])('names %s', (_, arrange, expected) => {
    const { dist, cms } = arrange();
    expect(deployCheck({ dist, cms, supabaseDir, env: production })).toEqual(expected(dist, cms ?? ''));
  });

  it.each<[string[], boolean, { dist: string; cms?: string }]>([
    [[], false, { dist: 'dist', cms: undefined }],
    [[], true, { dist: 'dist', cms: 'dist-cms' }],
    [['out'], false, { dist: 'out', cms: undefined }],
    [['out', '--cms', 'editor'], false, { dist: 'out', cms: 'editor' }],
    [['--cms=editor'], true, { dist: 'dist', cms: 'editor' }],
  ])('reads %j (dist-cms/ present: %s) as %j', (args, present, expected) => {
    expect(parseArgs(args, (path) => present && path === 'dist-cms')).toEqual(expected);
  });

  it.each([
    [['--cms'], "--cms needs the editor's build folder"],
    [['--cms', '--x'], "--cms needs the editor's build folder"],
    [['--editor', 'x'], 'unknown option --editor'],
    [['a', 'b'], 'one site folder only (a, then b)'],
  ])('refuses %j', (args, message) => {
    expect(() => parseArgs(args, () => false)).toThrow(message);
  });
});
