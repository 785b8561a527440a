// Reading requests as GoTrue's retrieveRequestParams does, and the shared per-request context.
import type { Context } from 'hono';
import type { TrustedProxies } from '../client-address.ts';
import type { Db } from '../db/types.ts';
import { requestClientAddress } from '../http.ts';
import { AuthError, errorResponse } from './errors.ts';
import type { AuthMailer } from './mail.ts';
import type { RateLimiter } from './ratelimit.ts';
import type { RedirectAllowList } from './redirect.ts';
import type { GrantParams } from './sessions.ts';
import type { AuthSettings } from './settings.ts';

export interface AuthContext {
  db: Db;
  settings: AuthSettings;
  allow: RedirectAllowList;
  limiter: RateLimiter;
  mail: AuthMailer;
  trustedProxies: TrustedProxies;
}

export type Body = Record<string, unknown>;

/** The JSON body as an object; a body that is not JSON is 400 bad_json. */
export async function readBody(c: Context, { optional = false } = {}): Promise<Body> {
  const text = await c.req.text();
  if (text.trim() === '' && optional) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = text.trim() === '' ? 'unexpected end of JSON input' : (err as Error).message;
    throw new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${reason}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AuthError(400, 'bad_json', 'Could not parse request body as JSON: the body must be a JSON object');
  }
  return value as Body;
}

/** A string field: absent or null reads as "", any other type is a decoding error as in Go. */
export function str(body: Body, key: string): string {
  const v = body[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') {
    throw new AuthError(400, 'bad_json', `Could not parse request body as JSON: field "${key}" must be a string`);
  }
  return v;
}

/** An object field (metadata); absent or null is undefined. */
export function obj(body: Body, key: string): Record<string, unknown> | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new AuthError(400, 'bad_json', `Could not parse request body as JSON: field "${key}" must be an object`);
  }
  return v as Record<string, unknown>;
}

export function bool(body: Body, key: string): boolean {
  const v = body[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') {
    throw new AuthError(400, 'bad_json', `Could not parse request body as JSON: field "${key}" must be a boolean`);
  }
  return v;
}

/** The caller's address by the stack's one rule: the peer, or X-Forwarded-For from a trusted proxy. */
export function clientIp(c: Context, ctx: AuthContext): string | null {
  return requestClientAddress(c, ctx.trustedProxies) ?? null;
}

export function grantParams(c: Context, ctx: AuthContext): GrantParams {
  return { ip: clientIp(c, ctx), userAgent: c.req.header('user-agent') ?? null };
}

/** The redirect_to a request asks for (query string or header), checked against the allow-list. */
export function referrer(c: Context, ctx: AuthContext): string {
  const requested = c.req.header('redirect_to') || c.req.query('redirect_to');
  return ctx.allow.referrer(requested, c.req.header('referer'));
}

/**
 * GoTrue's per-IP limiters (api.go router, options.go NewLimiterOptions), from config.toml's
 * [auth.rate_limit]: each route has its own counter; /signup, /recover, /resend, /otp and PUT /user all take the
 * sign_in_sign_ups rate (GOTRUE_RATE_LIMIT_OTP), /token the token_refresh one, /verify
 * token_verifications. GoTrue refills a token bucket (burst 30) at that rate per 5 minutes; the stack
 * counts the same number per 5-minute window per address.
 */
export type IpLimit = 'sign_in_sign_ups' | 'token_refresh' | 'verify' | 'recover' | 'resend' | 'otp' | 'user';

export function limitPerIp(c: Context, ctx: AuthContext, bucket: IpLimit) {
  const limits = ctx.settings.rateLimits;
  if (!limits) return;
  const limit =
    bucket === 'token_refresh'
      ? limits.tokenRefresh
      : bucket === 'verify'
        ? limits.tokenVerifications
        : limits.signInSignUps;
  if (!ctx.limiter.allow(`${bucket}:${clientIp(c, ctx) ?? 'unknown'}`, limit, 300)) {
    throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached');
  }
}

type Handler = (c: Context) => Promise<Response>;

/** Turns thrown AuthError / OAuthError into GoTrue's answers. */
export function handle(fn: Handler): Handler {
  return async (c) => {
    try {
      return await fn(c);
    } catch (err) {
      return errorResponse(c, err);
    }
  };
}

/** A named endpoint, as GoTrue's API methods: the request, and the auth service's context. */
export type Endpoint = (c: Context, ctx: AuthContext) => Promise<Response>;

/**
 * Binds endpoints for a route table: `const admin = endpoints(ctx, requireAdmin)` then
 * `app.get('/admin/users', admin(adminUsers))`. The guard runs first; errors become GoTrue's answers.
 */
export function endpoints(ctx: AuthContext, guard?: (c: Context, ctx: AuthContext) => Promise<unknown>) {
  return (endpoint: Endpoint): Handler =>
    handle(async (c) => {
      if (guard) await guard(c, ctx);
      return endpoint(c, ctx);
    });
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
