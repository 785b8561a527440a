// newsletter-signup over HTTP. POST signs an address up (CORS, rate limit, body, honeypot, validation);
// GET ?token= is the link in the verification mail: it verifies and redirects (303) to the site's landing page.
// The logic is in newsletter.ts.
import { createClient } from '@supabase/supabase-js';
import { clientIp, userAgent } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { readFormPost } from '../_shared/form-post.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { mailerFromEnv } from '../_shared/mail.ts';
import { functionRateLimiter, type RateLimitRule, refuseOverLimit } from '../_shared/rate-limit.ts';
import { validateNewsletter } from '../_shared/schemas.ts';
import { landingUrl, type NewsletterDeps, subscribe, verify } from './newsletter.ts';

/** Sign-ups per IP address per window. */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 10 * 60_000 };
/** Verification link opens per IP address per window. */
export const VERIFY_RATE_LIMIT: RateLimitRule = { max: 30, windowMs: 10 * 60_000 };

/** The text the site shows when subscribing fails (`failure` in content/labels/newsletter.md). */
export const FAILURE_MESSAGE = 'Failed to subscribe. Please try again later.';
export const VERIFY_FAILURE_MESSAGE = 'Could not verify your email right now. Please open the link again later.';

/** The one answer to every accepted sign-up, whether the address is new, pending or verified. */
const ACCEPTED = { success: true };

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Sign-ups fail closed: each one mails a confirmation to an address the caller chooses, from the project's
  // sender, so an unchecked limit would let anyone mail strangers at will. Opening the link fails open: it
  // mails nothing, the token is the gate, and a reader whose click was refused might not click again.
  const signups = functionRateLimiter(env, 'newsletter-signup', RATE_LIMIT, 'closed');
  const verifications = functionRateLimiter(env, 'newsletter-verify', VERIFY_RATE_LIMIT, 'open');
  let deps: NewsletterDeps | undefined;
  const getDeps = (): NewsletterDeps => {
    deps ??= {
      db: createClient(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      }),
      mailer: mailerFromEnv(env),
      siteUrl: requireEnv(env, 'SITE_URL'),
      apiUrl: requireEnv(env, 'SUPABASE_URL'),
    };
    return deps;
  };

  async function signUp(req: Request, ip: string): Promise<Response> {
    const post = await readFormPost(req, ip, {
      limiter: signups,
      // A robot filled the hidden field: answer as an accepted sign-up would, keep nothing, mail nothing.
      honeypot: () => json(ACCEPTED),
      validate: validateNewsletter,
    });
    if (!post.ok) return post.response;

    try {
      await subscribe(post.input.email, { ip: ip === 'unknown' ? null : ip, userAgent: userAgent(req) }, getDeps());
      return json(ACCEPTED);
    } catch (err) {
      console.error('newsletter-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, FAILURE_MESSAGE);
    }
  }

  async function openLink(req: Request, ip: string): Promise<Response> {
    const refused = await refuseOverLimit(verifications, ip);
    if (refused) return refused;
    try {
      const d = getDeps();
      const outcome = await verify(new URL(req.url).searchParams.get('token'), d);
      return new Response(null, {
        status: 303,
        headers: {
          Location: landingUrl(d.siteUrl, outcome),
          'Cache-Control': 'no-store',
          // The token is in this URL: the landing page must not receive it as a referrer.
          'Referrer-Policy': 'no-referrer',
        },
      });
    } catch (err) {
      console.error('newsletter-signup verify:', err instanceof Error ? err.message : err);
      return errorResponse(500, VERIFY_FAILURE_MESSAGE);
    }
  }

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    const ip = clientIp(req);
    if (req.method === 'POST') return signUp(req, ip);
    if (req.method === 'GET') return openLink(req, ip);
    return methodNotAllowed(['GET', 'POST']);
  };
}
