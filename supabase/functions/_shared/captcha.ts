// The CAPTCHA (Cloudflare Turnstile) on the forms that functions take. A form built with a site key
// (PUBLIC_TURNSTILE_SITE_KEY) sends the widget's token as `captchaToken`. Functions that act on the form
// themselves (send-contact-email, newsletter-signup) ask Turnstile's siteverify whether the token is good;
// functions that pass the form on to the auth service (user-signup, password-reset) hand the token on to it
// instead, because a token is good for one siteverify call only and the auth service checks it itself
// ([auth.captcha] in config.toml).
//
// TURNSTILE_SECRET_KEY switches the check on; without it nothing is checked (a site built without a key).
// TURNSTILE_VERIFY_URL replaces Cloudflare's siteverify address, for tests against a verifier on 127.0.0.1.
import type { Env } from './env.ts';
import type { ErrorCode } from './errors.ts';
import { errorResponse } from './http.ts';
import type { Validation } from './schemas.ts';

export const TURNSTILE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
export const CAPTCHA_SECRET_ENV = 'TURNSTILE_SECRET_KEY';
export const CAPTCHA_VERIFY_URL_ENV = 'TURNSTILE_VERIFY_URL';

/** The body field that carries the widget's token to a function. */
export const CAPTCHA_TOKEN_FIELD = 'captchaToken';

/** Turnstile's tokens are at most 2048 characters. */
export const MAX_CAPTCHA_TOKEN_LENGTH = 2048;

/** The error code of a refused token: the auth service's own (GoTrue's ErrorCodeCaptchaFailed). */
export const CAPTCHA_FAILED_CODE = 'captcha_failed' satisfies ErrorCode;

/** What a person sees when the check refused the request (a missing, used, expired or forged token). */
export const CAPTCHA_MESSAGE = 'The security check did not pass. Please try again.';

/** What a person sees when Turnstile could not be asked. */
export const CAPTCHA_UNAVAILABLE_MESSAGE = 'The security check is briefly unavailable. Please try again in a minute.';

/** How long a function waits for siteverify (GoTrue's captcha timeout). */
const VERIFY_TIMEOUT_MS = 10_000;

/** A token as a body carries it: a non-empty string of at most 2048 characters, else none. */
export function captchaTokenOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[CAPTCHA_TOKEN_FIELD];
  if (typeof value !== 'string') return undefined;
  const token = value.trim();
  return token && token.length <= MAX_CAPTCHA_TOKEN_LENGTH ? token : undefined;
}

export interface WithCaptchaToken<T> {
  fields: T;
  captchaToken: string | undefined;
}

/** A form's validation that also keeps the token (which the payload schemas drop as an unknown key). */
export function withCaptchaToken<T>(
  validate: (body: unknown) => Validation<T>,
): (body: unknown) => Validation<WithCaptchaToken<T>> {
  return (body) => {
    const result = validate(body);
    return result.ok ? { ok: true, data: { fields: result.data, captchaToken: captchaTokenOf(body) } } : result;
  };
}

export type CaptchaCheck =
  | { ok: true; checked: boolean }
  | { ok: false; reason: 'missing' | 'refused'; codes: string[] }
  | { ok: false; reason: 'unavailable'; detail: string };

export interface CaptchaVerifier {
  /** Whether a secret is set, i.e. whether tokens are checked at all. */
  readonly enabled: boolean;
  check(token: string | undefined, ip: string): Promise<CaptchaCheck>;
}

interface SiteverifyAnswer {
  success?: unknown;
  'error-codes'?: unknown;
}

/** Turnstile's siteverify with the function's secret; every token passes when no secret is set. */
export function captchaVerifier(env: Env, fetchImpl: typeof fetch = fetch): CaptchaVerifier {
  const secret = env.get(CAPTCHA_SECRET_ENV)?.trim();
  if (!secret) return { enabled: false, check: async () => ({ ok: true, checked: false }) };
  const url = env.get(CAPTCHA_VERIFY_URL_ENV)?.trim() || TURNSTILE_SITEVERIFY_URL;
  return {
    enabled: true,
    async check(token, ip) {
      if (!token) return { ok: false, reason: 'missing', codes: ['missing-input-response'] };
      const form = new URLSearchParams({ secret, response: token });
      if (ip !== 'unknown') form.set('remoteip', ip);
      let answer: SiteverifyAnswer;
      try {
        const res = await fetchImpl(url, {
          method: 'POST',
          body: form,
          signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
        });
        // Its verdict is the JSON's `success`, whatever the status; an answer without one is no verdict.
        answer = (await res.json().catch(() => ({}))) as SiteverifyAnswer;
        if (typeof answer.success !== 'boolean') {
          return { ok: false, reason: 'unavailable', detail: `siteverify answered ${res.status} without a verdict` };
        }
      } catch (err) {
        return { ok: false, reason: 'unavailable', detail: err instanceof Error ? err.message : String(err) };
      }
      const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].map(String) : [];
      if (answer.success === true) return { ok: true, checked: true };
      // Cloudflare's own failure: not the visitor's doing.
      if (codes.includes('internal-error')) return { ok: false, reason: 'unavailable', detail: codes.join(', ') };
      return { ok: false, reason: 'refused', codes };
    },
  };
}

/**
 * What a function answers a check that did not pass, or null when the request may go on. A refused or missing
 * token gets 400 with the auth service's error code; when Turnstile cannot be asked, `whenUnavailable` decides
 * as the function's rate limiter does: 'closed' answers 503, 'open' lets the request through (logged).
 */
export function captchaRefusal(check: CaptchaCheck, name: string, whenUnavailable: 'open' | 'closed'): Response | null {
  if (check.ok) return null;
  if (check.reason === 'unavailable') {
    console.error(`${name}: captcha check unavailable:`, check.detail);
    return whenUnavailable === 'open'
      ? null
      : errorResponse(503, CAPTCHA_FAILED_CODE, CAPTCHA_UNAVAILABLE_MESSAGE, { headers: { 'Retry-After': '60' } });
  }
  return errorResponse(400, CAPTCHA_FAILED_CODE, CAPTCHA_MESSAGE);
}
