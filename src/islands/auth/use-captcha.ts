// The CAPTCHA of one /auth form, as a hook: the form's ref, the slot the widget renders into (only when the
// build has a site key), and `token()` for each request the form sends (src/components/captcha/captcha-widget.ts).
import { createElement, type ReactElement, type RefObject, useCallback, useEffect, useRef } from 'react';
import type { CaptchaWidget } from '../../components/captcha/captcha-widget.ts';

/**
 * Whether the build has a CAPTCHA site key. Written in by the build, so an island built without one carries
 * none of the CAPTCHA's code: every use below sits behind it.
 */
const CAPTCHA = !!import.meta.env.PUBLIC_TURNSTILE_SITE_KEY;

export interface FormCaptcha {
  formRef: RefObject<HTMLFormElement | null>;
  /** The widget's place in the form; nothing without a site key. */
  slot: ReactElement | null;
  /** A fresh token for one request; undefined without a site key or when the widget failed. */
  token(): Promise<string | undefined>;
}

export function useCaptcha(action: string): FormCaptcha {
  const formRef = useRef<HTMLFormElement>(null);
  const slotRef = useRef<HTMLDivElement>(null);
  const widget = useRef<Promise<CaptchaWidget> | null>(null);

  useEffect(() => {
    const form = formRef.current;
    const slot = slotRef.current;
    if (!CAPTCHA || !form || !slot) return;
    // Its module is small; Turnstile itself loads on the form's first focus or input.
    const armed = import('../../components/captcha/captcha-widget.ts').then((m) => m.armCaptcha(form, slot, action));
    widget.current = armed;
    return () => {
      armed.then((w) => w.dispose()).catch(() => {});
      widget.current = null;
    };
  }, [action]);

  const token = useCallback(
    async () =>
      CAPTCHA
        ? widget.current?.then(
            (w) => w.token(),
            () => undefined,
          )
        : undefined,
    [],
  );
  const slot = CAPTCHA ? createElement('div', { ref: slotRef, 'data-captcha': action }) : null;
  return { formRef, slot, token };
}
