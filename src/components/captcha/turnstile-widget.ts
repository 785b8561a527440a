// The Turnstile widget of one form, in the browser: fetches Turnstile's script (once per page) and renders the
// widget into the form's slot, where it shows itself only when Cloudflare wants the visitor to click. This
// module itself is loaded on the form's first use (./captcha-widget.ts). Rules without DOM: src/lib/captcha.ts.
import { TURNSTILE_SCRIPT_SRC } from '../../lib/captcha.ts';
import { createTokenSlot } from '../../lib/captcha-tokens.ts';

/** What the site uses of Turnstile's API (developers.cloudflare.com/turnstile/get-started/client-side-rendering). */
interface Turnstile {
  render(container: HTMLElement, options: Record<string, unknown>): string | undefined;
  reset(widgetId: string): void;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: Turnstile;
  }
}

/** How long the script may take to arrive before the form gives up waiting for it. */
const SCRIPT_TIMEOUT_MS = 20_000;

let script: Promise<Turnstile> | undefined;

/** Turnstile's script, fetched once per page. */
function loadTurnstile(): Promise<Turnstile> {
  script ??= new Promise<Turnstile>((resolve, reject) => {
    const el = document.createElement('script');
    el.src = TURNSTILE_SCRIPT_SRC;
    el.async = true;
    const timer = setTimeout(() => reject(new Error('Turnstile did not load in time')), SCRIPT_TIMEOUT_MS);
    el.addEventListener('load', () => {
      clearTimeout(timer);
      window.turnstile ? resolve(window.turnstile) : reject(new Error('Turnstile loaded without its API'));
    });
    el.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error('Turnstile could not be loaded'));
    });
    document.head.append(el);
  });
  // A failed load is tried again by the next form that asks.
  script.catch(() => {
    script = undefined;
  });
  return script;
}

export interface CaptchaWidget {
  /** A fresh token for one request, waiting for the widget if need be; undefined without a key or on failure. */
  token(): Promise<string | undefined>;
  /** Removes the widget (a React form that unmounts). */
  dispose(): void;
}

/**
 * Loads Turnstile now and renders the widget with `siteKey` into `slot` (an empty element inside the form).
 * `action` names the form in Cloudflare's analytics.
 */
export function turnstileWidget(slot: HTMLElement, siteKey: string, action: string): CaptchaWidget {
  const tokens = createTokenSlot();
  let widgetId: string | undefined;
  let turnstile: Turnstile | undefined;
  let started = false;
  let disposed = false;

  function start() {
    if (started) return;
    started = true;
    loadTurnstile().then(
      (api) => {
        if (disposed) return;
        turnstile = api;
        widgetId = api.render(slot, {
          sitekey: siteKey,
          action,
          appearance: 'interaction-only',
          size: 'flexible',
          theme: 'dark',
          callback: (token: string) => tokens.put(token),
          'expired-callback': () => tokens.expire(),
          'error-callback': () => tokens.fail(),
          'timeout-callback': () => tokens.fail(),
        });
      },
      (err: unknown) => {
        console.error('CAPTCHA:', err instanceof Error ? err.message : err);
        // The next request tries to load it again.
        started = false;
        tokens.fail();
      },
    );
  }

  start();
  return {
    async token() {
      start();
      const token = await tokens.take();
      // Used once: the widget makes the next one meanwhile.
      if (token && turnstile && widgetId !== undefined) turnstile.reset(widgetId);
      return token;
    },
    dispose() {
      disposed = true;
      if (turnstile && widgetId !== undefined) turnstile.remove(widgetId);
    },
  };
}
