// The CAPTCHA of one /auth form, as a hook: the form's ref, the slot the widget renders into (only when the
// build has a site key), and `token()` for each request the form sends (src/components/captcha/captcha-widget.ts).
import { createElement, type ReactElement, type RefObject, useCallback, useEffect, useRef } from 'react';
import { armCaptcha, CAPTCHA_SITE_KEY, type CaptchaWidget } from '../../components/captcha/captcha-widget.ts';

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
  const widget = useRef<CaptchaWidget | null>(null);

  useEffect(() => {
    if (!formRef.current || !slotRef.current) return;
    const armed = armCaptcha(formRef.current, slotRef.current, action);
    widget.current = armed;
    return () => {
      armed.dispose();
      widget.current = null;
    };
  }, [action]);

  const token = useCallback(async () => widget.current?.token(), []);
  const slot = CAPTCHA_SITE_KEY ? createElement('div', { ref: slotRef, 'data-captcha': action }) : null;
  return { formRef, slot, token };
}
