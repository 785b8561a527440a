// user-signup over HTTP: CORS, method, rate limit, body, honeypot, validation; the logic is in signup.ts.
import { createClient } from '@supabase/supabase-js';
import { clientIp } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { errorResponse, json, methodNotAllowed, readJsonObject } from '../_shared/http.ts';
import { functionRateLimiter, type RateLimitRule, refuseOverLimit } from '../_shared/rate-limit.ts';
import { honeypotFilled, validateSignup } from '../_shared/schemas.ts';
import { confirmationRedirect, FAILURE_MESSAGE, type SignupDeps, signUpUser } from './signup.ts';

/** Sign-ups per IP address per window. */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 10 * 60_000 };

/** What a filled honeypot gets (the site's own text for it). */
export const HONEYPOT_MESSAGE = 'Please try again later';

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  const limiter = functionRateLimiter(env, 'user-signup', RATE_LIMIT);
  let deps: SignupDeps | undefined;
  const getDeps = (): SignupDeps => {
    deps ??= {
      auth: createClient(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_ANON_KEY'), {
        // Implicit flow: the confirmation link works in any browser, not only one holding a PKCE verifier.
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
      }),
      emailRedirectTo: confirmationRedirect(requireEnv(env, 'SITE_URL')),
    };
    return deps;
  };

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'POST') return methodNotAllowed(['POST']);

    const refused = await refuseOverLimit(limiter, clientIp(req));
    if (refused) return refused;

    const body = await readJsonObject(req);
    if (!body.ok) return body.response;
    if (honeypotFilled(body.value)) return errorResponse(400, HONEYPOT_MESSAGE);

    const input = validateSignup(body.value);
    if (!input.ok) return errorResponse(400, input.error, { field: input.field });

    try {
      const result = await signUpUser(input.data, getDeps());
      return result.ok ? json({ message: result.message }) : errorResponse(result.status, result.error);
    } catch (err) {
      console.error('user-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, FAILURE_MESSAGE);
    }
  };
}
