// user-signup over HTTP: CORS, method, rate limit, body, honeypot, validation; the logic is in signup.ts.
import { visitorAuthClient } from '../_shared/auth-client.ts';
import { clientIp } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { readFormPost } from '../_shared/form-post.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { functionRateLimiter, type RateLimitRule } from '../_shared/rate-limit.ts';
import { validateResend, validateSignup } from '../_shared/schemas.ts';
import { pendingAccounts } from './pending.ts';
import {
  confirmationRedirect,
  FAILURE_MESSAGE,
  RESEND_MESSAGE,
  resendConfirmation,
  type SignupDeps,
  signUpUser,
} from './signup.ts';

/**
 * Sign-ups per IP address per window. Each one may cost a mail from the project's hourly auth budget
 * (config.toml's email_sent): one address gets a small share of it.
 */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 60 * 60_000 };

/** What a filled honeypot gets (the site's own text for it). */
export const HONEYPOT_MESSAGE = 'Please try again later';

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Fails closed: each sign-up mails an address the caller chooses and spends the project's mail budget, so a
  // caller able to make the database slow must not switch the limit off; a real visitor refused (503, Retry-After)
  // tries again a minute later.
  const limiter = functionRateLimiter(env, 'user-signup', RATE_LIMIT, 'closed');
  const pending = pendingAccounts(env);
  const deps = (ip: string): SignupDeps => ({
    auth: visitorAuthClient(env, ip),
    emailRedirectTo: confirmationRedirect(requireEnv(env, 'SITE_URL')),
    pending,
  });

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'POST') return methodNotAllowed(['POST']);

    const ip = clientIp(req);
    // POST /user-signup/resend {email}: the confirmation mail again, under the same limit as a sign-up (one
    // counter for both), so asking again costs the project's mail budget no more than signing up does.
    if (/\/resend\/?$/.test(new URL(req.url).pathname)) {
      const post = await readFormPost(req, ip, {
        limiter,
        honeypot: () => json({ message: RESEND_MESSAGE }),
        validate: validateResend,
      });
      if (!post.ok) return post.response;
      try {
        const result = await resendConfirmation(post.input.email, deps(ip));
        return result.ok ? json({ message: result.message }) : errorResponse(result.status, result.error);
      } catch (err) {
        console.error('user-signup: resend:', err instanceof Error ? err.message : err);
        return errorResponse(500, FAILURE_MESSAGE);
      }
    }

    const post = await readFormPost(req, ip, {
      limiter,
      honeypot: () => errorResponse(400, HONEYPOT_MESSAGE),
      validate: validateSignup,
    });
    if (!post.ok) return post.response;

    try {
      const result = await signUpUser(post.input, deps(ip));
      return result.ok ? json({ message: result.message }) : errorResponse(result.status, result.error);
    } catch (err) {
      console.error('user-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, FAILURE_MESSAGE);
    }
  };
}
