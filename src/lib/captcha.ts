// The CAPTCHA on the site's forms (Cloudflare Turnstile), the parts without DOM or network: which key the build
// has, what the pages' CSP allows, and how a token reaches each service. How the widget's single-use tokens
// reach the forms: ./captcha-tokens.ts. The widget itself: src/components/captcha/.
import { CAPTCHA_FAILED_CODE, CAPTCHA_MESSAGE, CAPTCHA_TOKEN_FIELD } from '../../supabase/functions/_shared/captcha.ts';

export { CAPTCHA_MESSAGE };

/**
 * Turnstile's script, and the origin of the frame it puts its challenge in. A page with a form allows exactly
 * this script URL and frames from that origin, and only when the build has a site key (src/lib/csp.ts).
 */
export const TURNSTILE_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js';
export const TURNSTILE_FRAME_ORIGIN = 'https://challenges.cloudflare.com';

/** The script as the widget loads it: rendered by the site's code only (CSP ignores the query). */
export const TURNSTILE_SCRIPT_SRC = `${TURNSTILE_SCRIPT}?render=explicit`;

// Turnstile's site keys: "0x4AAAAAAA…" for real widgets, "1x00000000000000000000AA" and the like for tests.
const SITE_KEY = /^[0-9A-Za-z_-]{1,100}$/;

/**
 * The site key the build was given (PUBLIC_TURNSTILE_SITE_KEY), or '' for none, which leaves every form as it
 * was: no script, no CSP change, no token. A value that cannot be a key stops the build.
 */
export function captchaSiteKey(value: unknown): string {
  const key = typeof value === 'string' ? value.trim() : '';
  if (key && !SITE_KEY.test(key)) {
    throw new Error(`PUBLIC_TURNSTILE_SITE_KEY "${key}" is not a Turnstile site key (letters, digits, - and _)`);
  }
  return key;
}

/** A function's JSON body with the token in `captchaToken`, or unchanged when there is none. */
export function bodyWithCaptcha<T extends Record<string, unknown>>(
  body: T,
  token: string | undefined,
): T & { captchaToken?: string } {
  return token ? { ...body, [CAPTCHA_TOKEN_FIELD]: token } : body;
}

/** Whether an answer (the auth service's error, or a function's JSON body) is a refused CAPTCHA. */
export function isCaptchaRefusal(answer: { code?: unknown } | null | undefined): boolean {
  return answer?.code === CAPTCHA_FAILED_CODE;
}
