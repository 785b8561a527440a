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

/**
 * The variables a function sees: the project's secrets (supabase/functions/.env, StackConfig.functionSecrets),
 * then what Supabase sets, from the stack's config, which wins.
 */
export function functionEnv(config: StackConfig): Record<string, string | undefined> {
  const dbHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    ...config.functionSecrets,
    SUPABASE_URL: internalApiUrl(config),
    // The API's public address, for links in mail (hosted Supabase has none: its SUPABASE_URL is public).
    API_EXTERNAL_URL: config.apiExternalUrl,
    SUPABASE_ANON_KEY: config.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
    // The new-format keys as hosted Supabase passes them: JSON dictionaries by key name.
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: config.publishableKey }),
    SUPABASE_SECRET_KEYS: JSON.stringify({ default: config.secretKey }),
    SUPABASE_DB_URL: config.databaseUrl ?? `postgresql://postgres:postgres@${dbHost}:${config.ports.db}/postgres`,
    // The stack's mail catcher (each stack has its own port) and site, as `npm start` runs them.
    SMTP_URL: config.smtpUrl,
    SITE_URL: config.siteUrl,
    RATE_LIMITS: config.rateLimits ? 'on' : 'off',
  };
}
