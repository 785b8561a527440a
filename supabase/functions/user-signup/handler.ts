// user-signup over HTTP: CORS, method, rate limit, body, honeypot, validation; the logic is in signup.ts.
import { visitorAuthClient } from '../_shared/auth-client.ts';
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
  const deps = (ip: string): SignupDeps => ({
    auth: visitorAuthClient(env, ip),
    emailRedirectTo: confirmationRedirect(requireEnv(env, 'SITE_URL')),
  });

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'POST') return methodNotAllowed(['POST']);

    const ip = clientIp(req);
    const refused = await refuseOverLimit(limiter, ip);
    if (refused) return refused;

    const body = await readJsonObject(req);
    if (!body.ok) return body.response;
    if (honeypotFilled(body.value)) return errorResponse(400, HONEYPOT_MESSAGE);

    const input = validateSignup(body.value);
    if (!input.ok) return errorResponse(400, input.error, { field: input.field });

    try {
      const result = await signUpUser(input.data, deps(ip));
      return result.ok ? json({ message: result.message }) : errorResponse(result.status, result.error);
    } catch (err) {
      console.error('user-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, FAILURE_MESSAGE);
    }
  };
}
