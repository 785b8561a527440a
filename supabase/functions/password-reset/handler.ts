// password-reset over HTTP: CORS, method, rate limit, body, honeypot, validation; the logic is in reset.ts.
import { visitorAuthClient } from '../_shared/auth-client.ts';
import { withCaptchaToken } from '../_shared/captcha.ts';
import { clientIp } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { readFormPost } from '../_shared/form-post.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { functionRateLimiter, type RateLimitRule } from '../_shared/rate-limit.ts';
import { validatePasswordReset } from '../_shared/schemas.ts';
import { FAILURE_MESSAGE, type ResetDeps, requestPasswordReset, SENT_MESSAGE } from './reset.ts';

/**
 * Reset requests per IP address per window. Each one may cost a mail from the project's hourly auth
 * budget (config.toml's email_sent): one address gets a small share of it.
 */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 60 * 60_000 };

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Fails closed, as user-signup: each request mails an address the caller chooses; a refused visitor retries.
  const limiter = functionRateLimiter(env, 'password-reset', RATE_LIMIT, 'closed');
  const deps = (ip: string): ResetDeps => ({
    auth: visitorAuthClient(env, ip),
    policy: { siteUrl: requireEnv(env, 'SITE_URL'), additional: env.get('AUTH_REDIRECT_URLS') },
  });

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'POST') return methodNotAllowed(['POST']);

    const ip = clientIp(req);
    const post = await readFormPost(req, ip, {
      limiter,
      // A robot filled the hidden field: the usual answer, no mail.
      honeypot: () => json({ message: SENT_MESSAGE }),
      // The form's CAPTCHA token goes on to the auth service, which checks it ([auth.captcha]).
      validate: withCaptchaToken(validatePasswordReset),
    });
    if (!post.ok) return post.response;

    try {
      const { fields, captchaToken } = post.input;
      const result = await requestPasswordReset(fields, deps(ip), captchaToken);
      return result.ok ? json({ message: result.message }) : errorResponse(result.status, result.code, result.error);
    } catch (err) {
      console.error('password-reset:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
  };
}
