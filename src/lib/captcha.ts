// The CAPTCHA on the site's forms (Cloudflare Turnstile), the parts without DOM or network: which key the build
// has, what the pages' CSP allows, how a token reaches each service, and how the single-use token is handed
// from the widget to the form that sends it. The widget itself: src/components/captcha/captcha-widget.ts.
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

/**
 * Hands the widget's tokens to whoever sends the form. A token is good for one check only: `take` gives the
 * current one and forgets it (the widget is then reset for the next). Waiting callers get the next token, or
 * undefined once the widget reports a failure (the request then goes without one, and the server says why).
 */
export interface TokenSlot {
  /** A token arrived from the widget. */
  put(token: string): void;
  /** The widget's token expired before it was used. */
  expire(): void;
  /** The widget failed (script blocked, network, challenge timed out): waiting callers go on without a token. */
  fail(): void;
  /** The current token, or the next one the widget gives; undefined after a failure. */
  take(): Promise<string | undefined>;
}

export function createTokenSlot(): TokenSlot {
  let current: string | undefined;
  let waiting: ((token: string | undefined) => void)[] = [];
  const settle = (token: string | undefined) => {
    const callers = waiting;
    waiting = [];
    for (const resolve of callers) resolve(token);
  };
  return {
    put(token) {
      if (waiting.length > 0) {
        // A caller was waiting for it: it is theirs, and used.
        const [first, ...rest] = waiting;
        waiting = rest;
        first?.(token);
        return;
      }
      current = token;
    },
    expire() {
      current = undefined;
    },
    fail() {
      current = undefined;
      settle(undefined);
    },
    take() {
      if (current !== undefined) {
        const token = current;
        current = undefined;
        return Promise.resolve(token);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
