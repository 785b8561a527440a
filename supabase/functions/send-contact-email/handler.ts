// send-contact-email over HTTP: CORS, method, rate limit, body, validation; the logic is in contact.ts.
import { createClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { runInBackground } from '../_shared/background.ts';
import { captchaRefusal, captchaVerifier, withCaptchaToken } from '../_shared/captcha.ts';
import { clientIp, userAgent } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { readFormPost } from '../_shared/form-post.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { mailerFromEnv } from '../_shared/mail.ts';
import { functionRateLimiter, type RateLimitRule } from '../_shared/rate-limit.ts';
import { validateContact } from '../_shared/schemas.ts';
import { type ContactDeps, deliverPending, submitContact } from './contact.ts';
import { isRetryPath, retryHandler } from './retry.ts';

/** Messages per IP address per window. */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 10 * 60_000 };

/** The text the site shows when sending fails (`failureDescription` in content/labels/contact.md). */
export const FAILURE_MESSAGE = 'Failed to send message. Please try again.';

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Fails open: a refused message is a visitor's question lost, and a stored message is all an attacker gets
  // past the limit (one row, one mail to the project's own inbox; no mail to addresses they choose).
  const limiter = functionRateLimiter(env, 'send-contact-email', RATE_LIMIT, 'open');
  let deps: ContactDeps | undefined;
  const getDeps = (): ContactDeps => {
    deps ??= {
      db: createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      }),
      mailer: mailerFromEnv(env),
      inbox: requireEnv(env, 'CONTACT_INBOX'),
    };
    return deps;
  };
  const retry = retryHandler(env, getDeps);
  // TURNSTILE_SECRET_KEY set: a message needs a good token from the form's widget.
  const captcha = captchaVerifier(env);

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    // The schedule's entry (service-role key only): sends what earlier mail failures left pending.
    if (isRetryPath(req)) return retry(req);
    if (req.method !== 'POST') return methodNotAllowed(['POST']);

    const ip = clientIp(req);
    const post = await readFormPost(req, ip, {
      limiter,
      // A robot filled the hidden field: answer as if it worked, keep nothing.
      honeypot: () => json({ success: true }),
      validate: withCaptchaToken(validateContact),
    });
    if (!post.ok) return post.response;
    // Open when Turnstile cannot be asked, as the limiter: a visitor's question is not lost to an outage of
    // Cloudflare's, which a caller cannot cause.
    const refused = captchaRefusal(await captcha.check(post.input.captchaToken, ip), 'send-contact-email', 'open');
    if (refused) return refused;

    try {
      const d = getDeps();
      const result = await submitContact(
        post.input.fields,
        { ip: ip === 'unknown' ? null : ip, userAgent: userAgent(req) },
        d,
      );
      if (!result.delivered) return json({ success: true, queued: true }, 202);
      // The relay works: deliver what earlier failures left behind without waiting for the schedule.
      runInBackground('contact retry', () => deliverPending(d));
      return json({ success: true });
    } catch (err) {
      console.error('send-contact-email:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
  };
}
