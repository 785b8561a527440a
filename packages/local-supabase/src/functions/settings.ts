// What the host gives each function: its [functions.<name>] settings and the environment Supabase sets.
import type { StackConfig } from '../config.ts';
import { type TomlTable, tomlTable } from '../project.ts';

export interface FunctionSettings {
  /** The relay checks the Authorization JWT first (Supabase's default: true). */
  verifyJwt: boolean;
}

/** `[functions.<name>] verify_jwt` from config.toml; a missing entry means the defaults. */
export function readFunctionSettings(toml: TomlTable): (name: string) => FunctionSettings {
  const functions = tomlTable(toml.functions);
  return (name) => {
    const entry = Object.hasOwn(functions, name) ? tomlTable(functions[name]) : {};
    return { verifyJwt: typeof entry.verify_jwt === 'boolean' ? entry.verify_jwt : true };
  };
}

/** The stack's own API URL as the functions reach it (a wildcard listen address is reached on loopback). */
export function internalApiUrl(config: StackConfig): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.ports.api}`;
}

/** The variables a function sees: Supabase's own, then the project's secrets, all from the stack's config. */
export function functionEnv(config: StackConfig): Record<string, string | undefined> {
  const dbHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    SUPABASE_URL: internalApiUrl(config),
    // The API's public address, for links in mail (hosted Supabase has none: its SUPABASE_URL is public).
    API_EXTERNAL_URL: config.apiExternalUrl,
    SUPABASE_ANON_KEY: config.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
    // The new-format keys as hosted Supabase passes them: JSON dictionaries by key name.
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: config.publishableKey }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: config.secretKey }),
    SUPABASE_DB_URL: config.databaseUrl ?? `postgresql://postgres:postgres@${dbHost}:${config.ports.db}/postgres`,
    SMTP_URL: config.smtpUrl,
    MAIL_FROM: config.mailFrom,
    CONTACT_INBOX: config.contactInbox,
    SITE_URL: config.siteUrl,
    UNSUBSCRIBE_SECRET: config.unsubscribeSecret,
    RATE_LIMITS: config.rateLimits ? 'on' : 'off',
    // Unset means the news function's own public defaults.
    NEWS_FEED_URLS: config.news?.feedUrls,
    INVESTING_FEED_URL: config.news?.investingFeedUrl,
    NEWS_CACHE_SECONDS: config.news?.cacheSeconds,
    NEWS_FEED_TIMEOUT_MS: config.news?.feedTimeoutMs,
    // The CAPTCHA check of the functions that take a form (supabase/functions/_shared/captcha.ts): unset, none.
    TURNSTILE_SECRET_KEY: process.env.TURNSTILE_SECRET_KEY,
    TURNSTILE_VERIFY_URL: process.env.TURNSTILE_VERIFY_URL,
  };
}
