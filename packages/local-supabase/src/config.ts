// Settings of the local stack: the Supabase CLI's ports and demo keys, overridable through the environment.
import { join, resolve } from 'node:path';
import { functionSecrets, readEnvFile } from './functions/secrets.ts';

export const DEMO_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEMO_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const DEMO_SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';

/** The CLI's local publishable and secret keys (new format), accepted beside the legacy JWT keys. */
export const DEMO_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
export const DEMO_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';

export interface Ports {
  /** API gateway: /auth/v1, /rest/v1, /functions/v1. */
  api: number;
  /** Postgres wire protocol (PGlite only). */
  db: number;
  /** Mail catcher page and Mailpit-compatible API. */
  mailWeb: number;
  /** SMTP receiver of the mail catcher. */
  smtp: number;
}

export interface StackConfig {
  ports: Ports;
  /** BIND_ADDRESS: where every service listens (default 127.0.0.1, loopback only). */
  host: string;
  /** Where PGlite keeps its files. */
  dataDir: string;
  /** A PostgreSQL URL; when set, PGlite is not used. */
  databaseUrl?: string;
  jwtSecret: string;
  /** JWT_SIGNING: how access tokens are signed, ES256 (default, as new hosted projects) or HS256 (legacy). */
  jwtSigning: 'ES256' | 'HS256';
  anonKey: string;
  serviceRoleKey: string;
  /** New-format keys: the publishable key acts as anon, the secret key as service_role. */
  publishableKey: string;
  secretKey: string;
  /** The site the auth redirects go to by default. */
  siteUrl: string;
  /**
   * LOCAL_REDIRECT_URLS: comma-separated globs the local auth also allows as redirect targets, beside
   * config.toml's additional_redirect_urls (which `supabase config push` sends to the hosted project, so
   * loopback entries stay out of it), e.g. http://localhost:4321/**.
   */
  localRedirectUrls: string[];
  /** The public URL of the API, used in email links. */
  apiExternalUrl: string;
  /** Where the stack's own services (auth mail, functions) send mail. */
  smtpUrl: string;
  /** MAIL_FROM: the sender of auth mail, and of the functions' mail unless their own MAIL_FROM says otherwise. */
  mailFrom: string;
  /**
   * REALTIME: Realtime runs unless it is `off` (or `false`), as it does on every hosted project; switched off,
   * /realtime/v1 answers as the CLI's gateway with Realtime disabled.
   */
  realtime: boolean;
  rateLimits: boolean;
  /**
   * REQUIRE_CURRENT_PASSWORD: a password change through PUT /auth/v1/user needs the current password, as
   * the hosted project's "Require current password when updating" (default on; `off` turns it off).
   * config.toml has no key for it: the Supabase CLI does not know that setting.
   */
  requireCurrentPassword: boolean;
  /**
   * OTP_SIGNUPS: whether /auth/v1/otp may create a user for an unknown address (GoTrue does; default on).
   * `off` refuses as GoTrue does for create_user=false (422 otp_disabled): the site has no magic-link
   * sign-up, and each such user costs a mail from the project's hourly budget.
   */
  otpSignups: boolean;
  /** TRUSTED_PROXIES: IPs / CIDRs of proxies whose X-Forwarded-For names the client (default none). */
  trustedProxies: string;
  /**
   * The functions' own secrets: supabase/functions/.env as the Supabase CLI loads it for local functions, a
   * non-empty environment variable of a name it lists winning (functions/secrets.ts). Given to loadConfig's
   * overrides, entries are merged over the file's.
   */
  functionSecrets: Record<string, string>;
  /**
   * CRON_SECONDS: jobs the migrations schedule (cron.ts) run every so many seconds instead of on their
   * schedule, by job name (`*`: every job); 0 turns a job off.
   */
  cron: Record<string, number>;
  /** Folder holding config.toml, migrations/ and functions/. */
  supabaseDir: string;
  /** Overrides of config.toml's [auth] timings (tests shorten them instead of waiting). */
  authOverrides?: AuthOverrides;
}

export interface AuthOverrides {
  /** Seconds a revoked refresh token may still be used ([auth] refresh_token_reuse_interval). */
  refreshTokenReuseInterval?: number;
  /** Seconds before another email may go to the same address ([auth.email] max_frequency). */
  emailMaxFrequency?: number;
  /** Seconds an email link stays valid ([auth.email] otp_expiry). */
  otpExpiry?: number;
  /** Seconds an access token lives ([auth] jwt_expiry). */
  jwtExpiry?: number;
  /** Seconds a PKCE auth code may wait before it is exchanged. */
  flowStateExpiry?: number;
}

type Env = Record<string, string | undefined>;

/**
 * CRON_SECONDS: runs jobs every N seconds instead of on their schedule, for development and tests:
 * `nightly-cleanup=5,*=0` (by pg_cron job name; 0 turns a job off; `*` stands for every job).
 */
export function parseCronSeconds(value: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (value ?? '').split(',')) {
    const [name, raw] = part.split('=').map((s) => s.trim());
    const n = Number(raw);
    if (name && raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0) out[name] = n;
  }
  return out;
}

/** Builds the configuration from the environment; `overrides` wins (tests use it for ports and folders). */
export function loadConfig(env: Env = process.env, overrides: Partial<StackConfig> = {}): StackConfig {
  const ports: Ports = {
    api: Number(env.SUPABASE_API_PORT ?? 54321),
    db: Number(env.SUPABASE_DB_PORT ?? 54322),
    mailWeb: Number(env.SUPABASE_MAIL_PORT ?? 54324),
    smtp: Number(env.SUPABASE_SMTP_PORT ?? 54325),
    ...overrides.ports,
  };
  // Loopback only unless told otherwise: the stack is for development and CI (see assertSafeToExpose).
  const host = overrides.host ?? (env.BIND_ADDRESS || '127.0.0.1');
  const sitePort = Number(env.PORT || 4321);
  const jwtSecret = env.JWT_SECRET ?? DEMO_JWT_SECRET;
  const supabaseDir = overrides.supabaseDir ?? resolve(env.SUPABASE_DIR ?? 'supabase');
  const secrets = {
    ...functionSecrets(readEnvFile(join(supabaseDir, 'functions', '.env')), env),
    ...overrides.functionSecrets,
  };
  return {
    host,
    dataDir: resolve(env.DATA_DIR ?? '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    jwtSecret,
    jwtSigning: (env.JWT_SIGNING ?? '').toLowerCase() === 'hs256' ? 'HS256' : 'ES256',
    // The demo keys are signed with the demo secret; with another secret the stack signs its own legacy keys
    // and generates its own new-format keys at start (server.ts), unless these variables give them.
    anonKey: env.SUPABASE_ANON_KEY ?? DEMO_ANON_KEY,
    serviceRoleKey: env.SUPABASE_SERVICE_ROLE_KEY ?? DEMO_SERVICE_ROLE_KEY,
    publishableKey: env.SUPABASE_PUBLISHABLE_KEY ?? DEMO_PUBLISHABLE_KEY,
    secretKey: env.SUPABASE_SECRET_KEY ?? DEMO_SECRET_KEY,
    siteUrl: env.SITE_URL ?? `http://127.0.0.1:${sitePort}`,
    localRedirectUrls: (env.LOCAL_REDIRECT_URLS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    apiExternalUrl: env.API_EXTERNAL_URL || `http://${host}:${ports.api}`,
    // The catcher listens on loopback whatever BIND_ADDRESS says (server.ts).
    smtpUrl: env.SMTP_URL ?? `smtp://${isLoopbackHost(host) ? host : '127.0.0.1'}:${ports.smtp}`,
    mailFrom: env.MAIL_FROM || secrets.MAIL_FROM || 'Supabase Auth <noreply@mail.app.supabase.io>',
    realtime: !['off', 'false'].includes(env.REALTIME?.trim().toLowerCase() ?? ''),
    rateLimits: env.RATE_LIMITS !== 'off',
    requireCurrentPassword: env.REQUIRE_CURRENT_PASSWORD !== 'off',
    otpSignups: env.OTP_SIGNUPS?.trim().toLowerCase() !== 'off',
    trustedProxies: env.TRUSTED_PROXIES ?? '',
    cron: parseCronSeconds(env.CRON_SECONDS),
    ...overrides,
    supabaseDir,
    functionSecrets: secrets,
    ports,
  };
}

/** Whether `host` (a bind address or a URL's hostname) reaches only this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** Whether a secret's name says it is one: its value must not be public where others can reach the stack. */
const SECRET_NAME = /SECRET|KEY|TOKEN|PASSWORD/i;

/**
 * The public values still in use: the CLI's demo keys, which anyone can use against a stack that has them,
 * and any function secret whose value is the one written in supabase/functions/.env (a committed file).
 */
export function demoValuesInUse(
  config: Pick<
    StackConfig,
    'jwtSecret' | 'anonKey' | 'serviceRoleKey' | 'publishableKey' | 'secretKey' | 'functionSecrets' | 'supabaseDir'
  >,
): string[] {
  const found: string[] = [];
  if (config.jwtSecret === DEMO_JWT_SECRET) found.push('JWT_SECRET');
  if (config.anonKey === DEMO_ANON_KEY) found.push('SUPABASE_ANON_KEY');
  if (config.serviceRoleKey === DEMO_SERVICE_ROLE_KEY) found.push('SUPABASE_SERVICE_ROLE_KEY');
  if (config.publishableKey === DEMO_PUBLISHABLE_KEY) found.push('SUPABASE_PUBLISHABLE_KEY');
  if (config.secretKey === DEMO_SECRET_KEY) found.push('SUPABASE_SECRET_KEY');
  const committed = readEnvFile(join(config.supabaseDir, 'functions', '.env')).values;
  for (const [name, value] of Object.entries(config.functionSecrets)) {
    if (SECRET_NAME.test(name) && value !== '' && committed[name] === value) found.push(name);
  }
  return found;
}

/**
 * The stack is for development and CI. On an address other machines can reach (BIND_ADDRESS), it refuses
 * to start while any public value is in use: with the CLI's keys anyone is service_role, with a function
 * secret from the committed file anyone can do what that secret guards.
 */
export function assertSafeToExpose(config: StackConfig): void {
  if (isLoopbackHost(config.host)) return;
  const demo = demoValuesInUse(config);
  if (demo.length === 0) return;
  const secrets = ['JWT_SECRET', ...demo.filter((name) => name !== 'JWT_SECRET' && !name.startsWith('SUPABASE_'))];
  throw new Error(
    `BIND_ADDRESS=${config.host} would expose the stack with the public demo value of ${demo.join(', ')}. ` +
      `Set ${secrets.join(' and ')} to random secrets of at least 32 characters and leave ` +
      'SUPABASE_ANON_KEY, SUPABASE_SERVICE_ROLE_KEY, SUPABASE_PUBLISHABLE_KEY and SUPABASE_SECRET_KEY unset ' +
      '(the stack then signs and generates its own keys), or bind to 127.0.0.1. The stack is for development ' +
      'and CI only.',
  );
}
