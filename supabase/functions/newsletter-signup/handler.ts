// newsletter-signup over HTTP. POST signs an address up (CORS, rate limit, body, honeypot, validation);
// GET ?token= is the link in the verification mail: it verifies and redirects (303) to the site's landing page.
// /unsubscribe?id=&token= is the unsubscribe link of every mail to a subscriber: GET (a click) unsubscribes and
// redirects to the landing page, POST with `List-Unsubscribe=One-Click` (RFC 8058, sent by mail clients)
// unsubscribes and answers 200. Each link mailed, confirmation and withdrawal is appended to the consent record
// with the request's IP address and user agent. The logic is in newsletter.ts, unsubscribe.ts and
// consent-events.ts.
import { createClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { captchaRefusal, captchaVerifier, withCaptchaToken } from '../_shared/captcha.ts';
import { clientIp, userAgent } from '../_shared/client-ip.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { readFormPost } from '../_shared/form-post.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { mailerFromEnv } from '../_shared/mail.ts';
import { functionRateLimiter, type RateLimitRule, refuseOverLimit } from '../_shared/rate-limit.ts';
import { validateNewsletter } from '../_shared/schemas.ts';
import {
  FUNCTION_NAME,
  landingUrl,
  type NewsletterDeps,
  type RequestMeta,
  subscribe,
  TABLE,
  verify,
} from './newsletter.ts';
import {
  isOneClickBody,
  isUnsubscribePath,
  type UnsubscribeKey,
  type UnsubscribeOutcome,
  unsubscribe,
  unsubscribeKey,
} from './unsubscribe.ts';

/** Sign-ups per IP address per window. */
export const RATE_LIMIT: RateLimitRule = { max: 5, windowMs: 10 * 60_000 };
/** Verification link opens per IP address per window. */
export const VERIFY_RATE_LIMIT: RateLimitRule = { max: 30, windowMs: 10 * 60_000 };

/** The text the site shows when subscribing fails (`failure` in content/labels/newsletter.md). */
export const FAILURE_MESSAGE = 'Failed to subscribe. Please try again later.';
export const VERIFY_FAILURE_MESSAGE = 'Could not verify your email right now. Please open the link again later.';
export const UNSUBSCRIBE_FAILURE_MESSAGE = 'Could not unsubscribe you right now. Please open the link again later.';
export const UNSUBSCRIBE_INVALID_MESSAGE = 'This unsubscribe link is not valid.';
export const ONE_CLICK_MESSAGE = 'Send List-Unsubscribe=One-Click as a form body (RFC 8058).';

/**
 * The API's public URL, which links in mail are built on: SUPABASE_URL on hosted Supabase (the project's
 * https://<ref>.supabase.co). Where the functions reach the API at an inner address (the local stack, a
 * self-hosted box behind a proxy, `supabase functions serve`), API_EXTERNAL_URL names the public one.
 */
export function publicApiUrl(env: Env): string {
  return env.get('API_EXTERNAL_URL')?.trim() || requireEnv(env, 'SUPABASE_URL');
}

/** Where a clicked unsubscribe link lands: /newsletter-verified?status=unsubscribed (or unsubscribe-invalid). */
export function unsubscribeLandingUrl(siteUrl: string, outcome: UnsubscribeOutcome): string {
  const status = outcome === 'unsubscribed' ? 'unsubscribed' : 'unsubscribe-invalid';
  return `${siteUrl.replace(/\/+$/, '')}/newsletter-verified?status=${status}`;
}

/** Who sent a request, as the consent record keeps it. */
function requestMeta(req: Request, ip: string): RequestMeta {
  return { ip: ip === 'unknown' ? null : ip, userAgent: userAgent(req) };
}

/** The one answer to every accepted sign-up, whether the address is new, pending or verified. */
const ACCEPTED = { success: true };

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  // Sign-ups fail closed: each one mails a confirmation to an address the caller chooses, from the project's
  // sender, so an unchecked limit would let anyone mail strangers at will. Opening the link fails open: it
  // mails nothing, the token is the gate, and a reader whose click was refused might not click again.
  const signups = functionRateLimiter(env, 'newsletter-signup', RATE_LIMIT, 'closed');
  const verifications = functionRateLimiter(env, 'newsletter-verify', VERIFY_RATE_LIMIT, 'open');
  // TURNSTILE_SECRET_KEY set: a sign-up needs a good token from the card's widget. The links in mail need none.
  const captcha = captchaVerifier(env);
  let deps: NewsletterDeps | undefined;
  // The key is made once per isolate; a failure (no secret) is not kept, so a later request tries again.
  let key: Promise<UnsubscribeKey> | undefined;
  const getKey = (): Promise<UnsubscribeKey> => {
    key ??= unsubscribeKey(env).catch((err) => {
      key = undefined;
      throw err;
    });
    return key;
  };
  const getDeps = (): NewsletterDeps => {
    deps ??= {
      db: createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      }),
      mailer: mailerFromEnv(env),
      siteUrl: requireEnv(env, 'SITE_URL'),
      apiUrl: publicApiUrl(env),
      unsubscribeKey: getKey,
    };
    return deps;
  };

  async function signUp(req: Request, ip: string): Promise<Response> {
    const post = await readFormPost(req, ip, {
      limiter: signups,
      // A robot filled the hidden field: answer as an accepted sign-up would, keep nothing, mail nothing.
      honeypot: () => json(ACCEPTED),
      validate: withCaptchaToken(validateNewsletter),
    });
    if (!post.ok) return post.response;
    const { fields, captchaToken } = post.input;
    // Closed when Turnstile cannot be asked, as the limit: a sign-up mails an address the caller chooses.
    const refused = captchaRefusal(await captcha.check(captchaToken, ip), FUNCTION_NAME, 'closed');
    if (refused) return refused;

    try {
      const meta = { ...requestMeta(req, ip), consentVersion: fields.consentVersion };
      await subscribe(fields.email, meta, getDeps());
      return json(ACCEPTED);
    } catch (err) {
      console.error('newsletter-signup:', err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
  }

  async function openLink(req: Request, ip: string): Promise<Response> {
    const refused = await refuseOverLimit(verifications, ip);
    if (refused) return refused;
    try {
      const d = getDeps();
      const outcome = await verify(new URL(req.url).searchParams.get('token'), d, requestMeta(req, ip));
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
      return errorResponse(500, 'unexpected_failure', VERIFY_FAILURE_MESSAGE);
    }
  }

  /**
   * The unsubscribe link. No rate limit: a token is checked by its HMAC before any database work, and the
   * one-click POSTs of a large mail provider come from few addresses. GET redirects to the site's page; POST
   * (RFC 8058 one-click, from a mail client) answers 200 with JSON, or 403 for a token that is not the id's.
   */
  async function openUnsubscribe(req: Request): Promise<Response> {
    if (req.method !== 'GET' && req.method !== 'POST') return methodNotAllowed(['GET', 'POST']);
    if (req.method === 'POST' && !(await isOneClickBody(req)))
      return errorResponse(400, 'invalid_input', ONE_CLICK_MESSAGE, { field: 'List-Unsubscribe' });
    const query = new URL(req.url).searchParams;
    const request = { ...requestMeta(req, clientIp(req)), via: req.method === 'POST' ? 'one-click' : 'link' } as const;
    let outcome: UnsubscribeOutcome;
    try {
      const d = getDeps();
      outcome = await unsubscribe(
        query.get('id'),
        query.get('token'),
        request,
        { db: d.db, key: await getKey() },
        TABLE,
      );
    } catch (err) {
      console.error(`${FUNCTION_NAME} unsubscribe:`, err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', UNSUBSCRIBE_FAILURE_MESSAGE);
    }
    if (req.method === 'POST') {
      return outcome === 'unsubscribed'
        ? json({ success: true })
        : errorResponse(403, 'invalid_link', UNSUBSCRIBE_INVALID_MESSAGE);
    }
    return new Response(null, {
      status: 303,
      headers: {
        Location: unsubscribeLandingUrl(getDeps().siteUrl, outcome),
        'Cache-Control': 'no-store',
        // The token is in this URL: the landing page must not receive it as a referrer.
        'Referrer-Policy': 'no-referrer',
      },
    });
  }

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (isUnsubscribePath(req)) return openUnsubscribe(req);
    const ip = clientIp(req);
    if (req.method === 'POST') return signUp(req, ip);
    if (req.method === 'GET') return openLink(req, ip);
    return methodNotAllowed(['GET', 'POST']);
  };
}
