// user-signup over HTTP: CORS, method, rate limit, body, honeypot, validation, CAPTCHA; the logic is in signup.ts.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { visitorAuthClient } from '../_shared/auth-client.ts';
import { captchaRefusal, captchaVerifier, withCaptchaToken } from '../_shared/captcha.ts';
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
  type SignupResult,
  signUpUser,
} from './signup.ts';

/**
 * Sign-ups per IP address per window. Each one may cost a mail from the project's hourly auth budget
 * (config.toml's email_sent): one address gets a small share of it.
 */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 60 * 60_000 };

/** What a filled honeypot gets (the site's own text for it). */
export const HONEYPOT_MESSAGE = 'Please try again later';

/**
 * The auth client for a sign-up whose CAPTCHA token this function has checked itself: the visitor's address as
 * visitorAuthClient sends it, with the service role's key as the bearer, which the auth service takes as an
 * admin's call and so does not ask for a token again (GoTrue's verifyCaptcha skips admin callers; a token is
 * good for one check only). Only the sign-up itself goes through it.
 */
function checkedSignupClient(env: Env, ip: string): SupabaseClient<Database> {
  return createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_ANON_KEY'), {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
    global: {
      headers: {
        Authorization: `Bearer ${requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY')}`,
        ...(ip === 'unknown' ? {} : { 'X-Forwarded-For': ip }),
      },
    },
  });
}

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Fails closed: each sign-up mails an address the caller chooses and spends the project's mail budget, so a
  // caller able to make the database slow must not switch the limit off; a real visitor refused (503, Retry-After)
  // tries again a minute later.
  const limiter = functionRateLimiter(env, 'user-signup', RATE_LIMIT, 'closed');
  const pending = pendingAccounts(env);
  // TURNSTILE_SECRET_KEY set: a sign-up's token is checked here, before an unconfirmed account at the address
  // is removed, so a request without a good token changes nothing. Without it, the token goes on to the auth
  // service as it is ([auth.captcha]), and so does a resend's (which changes nothing before that check).
  const captcha = captchaVerifier(env);
  const deps = (ip: string, checked = false): SignupDeps => ({
    auth: checked ? checkedSignupClient(env, ip) : visitorAuthClient(env, ip),
    emailRedirectTo: confirmationRedirect(requireEnv(env, 'SITE_URL')),
    pending,
  });

  const failed = (result: Extract<SignupResult, { ok: false }>) =>
    errorResponse(result.status, result.code, result.error);

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
        validate: withCaptchaToken(validateResend),
      });
      if (!post.ok) return post.response;
      try {
        const { fields, captchaToken } = post.input;
        const result = await resendConfirmation(fields.email, deps(ip), captchaToken);
        return result.ok ? json({ message: result.message }) : failed(result);
      } catch (err) {
        console.error('user-signup: resend:', err instanceof Error ? err.message : err);
        return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
      }
    }

    const post = await readFormPost(req, ip, {
      limiter,
      honeypot: () => errorResponse(400, 'request_rejected', HONEYPOT_MESSAGE),
      validate: withCaptchaToken(validateSignup),
    });
    if (!post.ok) return post.response;
    const { fields, captchaToken } = post.input;
    // Closed when Turnstile cannot be asked, as the limit: a sign-up mails an address the caller chooses.
    const refused = captchaRefusal(await captcha.check(captchaToken, ip), 'user-signup', 'closed');
    if (refused) return refused;

    try {
      const result = await signUpUser(fields, deps(ip, captcha.enabled), captcha.enabled ? undefined : captchaToken);
      return result.ok ? json({ message: result.message }) : failed(result);
    } catch (err) {
      console.error('user-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
  };
}
