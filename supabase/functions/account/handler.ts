// account over HTTP, for the signed-in member whose access token is the bearer: GET exports the member's data
// as JSON, POST { password, code?, captchaToken? } deletes the account (code: from the authenticator app, when
// two-factor is on; captchaToken: the dialog's CAPTCHA token, for the password grant). CORS, method, rate limit, then whose account and at which level; the logic is in account.ts.
import { createClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { visitorAuthClient } from '../_shared/auth-client.ts';
import { captchaTokenOf } from '../_shared/captcha.ts';
import { clientIp } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { errorResponse, json, methodNotAllowed, readJsonObject } from '../_shared/http.ts';
import { functionRateLimiter, type RateLimitRule, refuseOverLimit } from '../_shared/rate-limit.ts';
import {
  type AccountDeps,
  authenticatorCode,
  bearerToken,
  checkAal,
  deleteAccount,
  exportAccount,
  FAILURE_MESSAGE,
  memberOf,
  type Result,
} from './account.ts';

/** Deletion attempts per IP address per window: each one tries a password, so the limit stops guessing. */
export const DELETE_RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 10 * 60_000 };
/** Exports per IP address per window: each reads seven tables. */
export const EXPORT_RATE_LIMIT: RateLimitRule = { max: 10, windowMs: 10 * 60_000 };

/** Passwords are at most 72 bytes to the auth service's bcrypt; anything far longer is not one. */
const MAX_PASSWORD_LENGTH = 1000;

/** `{ error, code }` of a refusal. */
const refusal = (r: Extract<Result<unknown>, { ok: false }>) => errorResponse(r.status, r.code, r.error);

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Fails closed: an unchecked limit would let a stolen token guess the password without end.
  const deleteLimiter = functionRateLimiter(env, 'account-delete', DELETE_RATE_LIMIT, 'closed');
  const exportLimiter = functionRateLimiter(env, 'account-export', EXPORT_RATE_LIMIT, 'closed');
  const deps = (ip: string): AccountDeps => ({
    auth: visitorAuthClient(env, ip),
    admin: createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    }),
  });
  // The anon key as the bearer (supabase-js sends it when no one is signed in) names no member.
  const apiKeys = [env.get('SUPABASE_ANON_KEY'), env.get('SUPABASE_SERVICE_ROLE_KEY')];

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'GET' && req.method !== 'POST') return methodNotAllowed(['GET', 'POST']);

    const ip = clientIp(req);
    const refused = await refuseOverLimit(req.method === 'GET' ? exportLimiter : deleteLimiter, ip);
    if (refused) {
      await req.body?.cancel().catch(() => {});
      return refused;
    }

    try {
      let password = '';
      let code: string | undefined;
      let captchaToken: string | undefined;
      if (req.method === 'POST') {
        const body = await readJsonObject(req);
        if (!body.ok) return body.response;
        const value = body.value.password;
        if (typeof value !== 'string' || value === '' || value.length > MAX_PASSWORD_LENGTH) {
          return errorResponse(400, 'invalid_input', 'Enter your password to delete your account.', {
            field: 'password',
          });
        }
        password = value;
        code = authenticatorCode(body.value.code);
        captchaToken = captchaTokenOf(body.value);
      }
      const d = deps(ip);
      const token = bearerToken(req, apiKeys);
      const member = await memberOf(token, d);
      if (!member.ok) return refusal(member);
      // A password-only session of a member with two-factor on reaches neither the export nor the deletion.
      const level = checkAal(member.value, token as string);
      if (!level.ok) return refusal(level);

      if (req.method === 'GET') {
        return json(await exportAccount(member.value, d), 200, { 'Cache-Control': 'no-store' });
      }
      const result = await deleteAccount(member.value, password, code, d, captchaToken);
      return result.ok ? json({ deleted: true }) : refusal(result);
    } catch (err) {
      console.error('account:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
  };
}
