// A form's CAPTCHA, as the forms use it (src/components/forms/function-form.ts, src/islands/auth/use-captcha.ts).
// They load this module only in a build with a site key (PUBLIC_TURNSTILE_SITE_KEY); a build without one has
// no widget, loads nothing and sends no token. The form's first focus or input loads ./turnstile-widget.ts,
// which fetches Turnstile's script and renders the widget.
import type { CaptchaWidget } from './turnstile-widget.ts';

export type { CaptchaWidget };

/** The build's site key, written in by the build ('' for none). */
const SITE_KEY = String(import.meta.env.PUBLIC_TURNSTILE_SITE_KEY ?? '').trim();

const CAPTCHA_ENABLED = SITE_KEY !== '';

const NO_WIDGET: CaptchaWidget = { token: async () => undefined, dispose() {} };

/**
 * Arms the CAPTCHA of `form`: its first focus or input (or first request) loads the widget into `slot`, an
 * empty element inside the form. `action` names the form in Cloudflare's analytics.
 */
export function armCaptcha(form: HTMLElement, slot: HTMLElement, action: string): CaptchaWidget {
  if (!CAPTCHA_ENABLED) return NO_WIDGET;
  let widget: Promise<CaptchaWidget> | undefined;

  function load(): Promise<CaptchaWidget> {
    form.removeEventListener('focusin', load);
    form.removeEventListener('input', load);
    widget ??= import('./turnstile-widget.ts').then((m) => m.turnstileWidget(slot, SITE_KEY, action));
    // A chunk that failed to load is tried again by the next request.
    widget.catch(() => {
      widget = undefined;
    });
    return widget;
  }

  form.addEventListener('focusin', load);
  form.addEventListener('input', load);
  return {
    async token() {
      try {
        return await (await load()).token();
      } catch (err) {
        console.error('CAPTCHA:', err instanceof Error ? err.message : err);
        return undefined;
      }
    },
    dispose() {
      form.removeEventListener('focusin', load);
      form.removeEventListener('input', load);
      widget?.then((w) => w.dispose()).catch(() => {});
    },
  };
}
