// GoTrue's CAPTCHA check (supabase/auth internal/api/middleware.go verifyCaptcha, internal/security/captcha.go),
// switched on by config.toml's [auth.captcha] as the Supabase CLI passes it (GOTRUE_SECURITY_CAPTCHA_*).
//
// The routes it guards are GoTrue's (api.go): /signup, /recover, /resend, /magiclink, /otp and /token, except a
// /token whose grant_type is pkce, refresh_token or id_token. /verify and the factors' challenge and verify
// are not guarded there, so neither here. The token is the JSON body's gotrue_meta_security.captcha_token; a
// caller with an admin token (service_role) is not asked for one. The check is the provider's siteverify, a
// form POST of secret, response and remoteip; the stack sends it to CAPTCHA_VERIFY_URL when that is set (tests
// point it at a verifier on 127.0.0.1), else where GoTrue does.
//
// As the CLI, the stack lets SUPABASE_AUTH_CAPTCHA_ENABLED, _PROVIDER and _SECRET of its environment override
// the file's keys, and resolves the secret's env(NAME) there.
//
// GoTrue rate-limits /recover, /resend, /magiclink and /otp before the check, and the stack counts its limits
// inside the routes, after it: a caller over the limit without a token is told about the token first.
import type { Context, MiddlewareHandler } from 'hono';
import { bearer, verifyWithKeys } from '../jwt.ts';
import { type TomlTable, tomlTable as table } from '../project.ts';
import { AuthError, badRequest, errorResponse } from './errors.ts';
import { type AuthContext, clientIp, readBody } from './request.ts';

export type CaptchaProvider = 'hcaptcha' | 'turnstile';

export interface CaptchaSettings {
  provider: CaptchaProvider;
  secret: string;
  /** The provider's siteverify, or CAPTCHA_VERIFY_URL. */
  verifyUrl: string;
  /** GoTrue's GOTRUE_SECURITY_CAPTCHA_TIMEOUT default. */
  timeoutMs: number;
}

/** GoTrue's getCaptchaURL. */
export const SITEVERIFY_URLS: Record<CaptchaProvider, string> = {
  hcaptcha: 'https://hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
};

type Env = Record<string, string | undefined>;

/** The CLI's env(NAME): the whole string names a variable; unset, it stays as written (the CLI only warns). */
function resolveEnv(value: string, env: Env): string {
  const name = /^env\((.*)\)$/.exec(value)?.[1];
  return name ? (env[name] ?? value) : value;
}

/** Go's strconv.ParseBool, as the CLI reads SUPABASE_AUTH_CAPTCHA_ENABLED over the file's value. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/**
 * [auth.captcha] of config.toml, or null when it is off. `env` may override its keys and resolves the secret's
 * env(NAME), as the CLI does; CAPTCHA_VERIFY_URL is the stack's own. Switched on without a secret, the stack
 * refuses to start, as GoTrue does.
 */
export function loadCaptchaSettings(toml: TomlTable, env: Env): CaptchaSettings | null {
  const captcha = table(table(toml.auth).captcha);
  const override = env.SUPABASE_AUTH_CAPTCHA_ENABLED?.trim();
  const fromEnv = override ? parseBool(override) : undefined;
  if (override && fromEnv === undefined) {
    throw new Error(`SUPABASE_AUTH_CAPTCHA_ENABLED="${override}" is not true or false`);
  }
  if (!(fromEnv ?? captcha.enabled === true)) return null;
  // GoTrue's default provider; the CLI asks for one whenever the CAPTCHA is on.
  const provider = env.SUPABASE_AUTH_CAPTCHA_PROVIDER?.trim() || String(captcha.provider ?? 'hcaptcha');
  if (provider !== 'hcaptcha' && provider !== 'turnstile') {
    throw new Error(`config.toml [auth.captcha] provider "${provider}": GoTrue knows hcaptcha and turnstile`);
  }
  const secret = resolveEnv(env.SUPABASE_AUTH_CAPTCHA_SECRET?.trim() || String(captcha.secret ?? ''), env).trim();
  if (!secret || /^env\(.*\)$/.test(secret)) {
    throw new Error(
      `config.toml [auth.captcha] is on but its secret is empty${secret ? ` (${secret} is unset)` : ''}: ` +
        'GoTrue does not start so ("captcha provider secret is empty")',
    );
  }
  return {
    provider,
    secret,
    verifyUrl: env.CAPTCHA_VERIFY_URL?.trim() || SITEVERIFY_URLS[provider],
    timeoutMs: 10_000,
  };
}

const ADMIN_ROLES = ['service_role', 'supabase_admin'];

/** GoTrue's requireAdminCredentials, as verifyCaptcha uses it: any failure just means "not an admin". */
async function isAdmin(c: Context, ctx: AuthContext): Promise<boolean> {
  const token = bearer(c.req.header('authorization'));
  if (!token) return false;
  try {
    const claims = await verifyWithKeys(token, ctx.settings.jwtKeys);
    return typeof claims.role === 'string' && ADMIN_ROLES.includes(claims.role);
  } catch {
    return false;
  }
}

/** GoTrue's isIgnoreCaptchaRoute: /token with these grants needs no token. */
const UNGUARDED_GRANTS = ['pkce', 'refresh_token', 'id_token'];

interface SiteverifyAnswer {
  success?: unknown;
  'error-codes'?: unknown;
}

/** The provider's verdict on `token`, as GoTrue's HTTPCaptchaVerifier asks for it. */
async function siteverify(settings: CaptchaSettings, token: string, ip: string | null): Promise<SiteverifyAnswer> {
  const form = new URLSearchParams({ secret: settings.secret, response: token, remoteip: ip ?? '' });
  const res = await fetch(settings.verifyUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
    signal: AbortSignal.timeout(settings.timeoutMs),
  });
  return (await res.json()) as SiteverifyAnswer;
}

/** The check, as a middleware for the guarded routes; a no-op when [auth.captcha] is off. */
export function captchaGuard(ctx: AuthContext): MiddlewareHandler {
  return async (c, next) => {
    const settings = ctx.settings.captcha;
    if (!settings) return next();
    try {
      if (await isAdmin(c, ctx)) return next();
      if (c.req.path.endsWith('/token') && UNGUARDED_GRANTS.includes(c.req.query('grant_type') ?? '')) return next();
      const body = await readBody(c);
      const security = body.gotrue_meta_security;
      const raw =
        security && typeof security === 'object' ? (security as Record<string, unknown>).captcha_token : undefined;
      const token = typeof raw === 'string' ? raw.trim() : '';
      if (!token) throw badRequest('captcha_failed', 'captcha protection: request disallowed (no captcha_token found)');
      let answer: SiteverifyAnswer;
      try {
        answer = await siteverify(settings, token, clientIp(c, ctx));
      } catch {
        throw new AuthError(500, 'unexpected_failure', 'captcha verification process failed');
      }
      if (answer.success !== true) {
        const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].map(String) : [];
        throw badRequest('captcha_failed', `captcha protection: request disallowed (${codes.join(', ')})`);
      }
    } catch (err) {
      return errorResponse(c, err);
    }
    return next();
  };
}
