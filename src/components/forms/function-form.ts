// The custom element behind the site's two plain forms (newsletter card, contact form): it takes the form's
// submit, keeps a second one out while a request runs, answers a filled honeypot without sending anything,
// and gives the subclass `call` (the function over plain fetch with the form's CAPTCHA token, the button busy
// meanwhile) and the answers both forms give. The subclass checks its own fields and says what its function's
// answers mean.
import { honeypotFilled } from '../../../supabase/functions/_shared/form-rules.ts';
import { bodyWithCaptcha, CAPTCHA_MESSAGE, isCaptchaRefusal } from '../../lib/captcha.ts';
import { type FunctionAnswer, type FunctionPayloads, invokeFunction } from '../../lib/functions.ts';
import { toast } from '../../stores/toasts.ts';
import type { CaptchaWidget } from '../captcha/captcha-widget.ts';
import { clearErrorsOnInput, setBusy, showFieldErrors } from './form-client.ts';

/** The functions the plain forms post to. */
export type FormFunction = 'newsletter-signup' | 'send-contact-email';

/**
 * Whether the build has a CAPTCHA site key. Written in by the build, so a page built without one carries none of
 * the CAPTCHA's code: every use below sits behind it.
 */
const CAPTCHA = !!import.meta.env.PUBLIC_TURNSTILE_SITE_KEY;

/**
 * What a filled honeypot (the hidden `website` field) gets, per the spec's validation rules: the newsletter
 * "aborts with 'Please try again later'" (`data-honeypot-message`, an error toast), the contact form is
 * "silently ignored" (the success a person would see). Either way nothing is sent.
 */
export type HoneypotAnswer = 'success' | 'try-later';

/**
 * Texts come from the element's data attributes: data-success-title, data-success-description,
 * data-failure-title, data-failure-description, and data-honeypot-message for a 'try-later' answer.
 */
export abstract class FunctionForm extends HTMLElement {
  protected abstract readonly honeypotAnswer: HoneypotAnswer;
  protected form!: HTMLFormElement;
  private captcha: Promise<CaptchaWidget> | undefined;

  connectedCallback() {
    const form = this.querySelector('form');
    if (!form) return;
    this.form = form;
    clearErrorsOnInput(form);
    // The widget's place at the end of the form, filled on the form's first use.
    if (CAPTCHA) {
      const slot = document.createElement('div');
      slot.dataset.captcha = this.localName;
      form.append(slot);
      this.captcha = import('../captcha/captcha-widget.ts').then((m) => m.armCaptcha(form, slot, this.localName));
    }
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.onSubmit();
    });
  }

  private async onSubmit() {
    // A second submit (Enter pressed again) while the first request runs does nothing.
    if (this.form.getAttribute('aria-busy') === 'true') return;
    const data = new FormData(this.form);
    if (honeypotFilled({ website: data.get('website') })) {
      if (this.honeypotAnswer === 'success') this.succeeded();
      else this.failed(this.dataset.honeypotMessage);
      return;
    }
    await this.send(data);
  }

  /** Checks the fields of `data` and, when they pass, sends them with `call`. */
  protected abstract send(data: FormData): Promise<void>;

  /** POSTs `payload` to the function with the form's CAPTCHA token, the submit button busy meanwhile. */
  protected async call<N extends FormFunction>(name: N, payload: FunctionPayloads[N]): Promise<FunctionAnswer> {
    setBusy(this.form, true);
    const body = CAPTCHA
      ? bodyWithCaptcha(
          payload,
          await this.captcha?.then(
            (widget) => widget.token(),
            () => undefined,
          ),
        )
      : payload;
    const answer = await invokeFunction(name, body);
    setBusy(this.form, false);
    return answer;
  }

  /** The function refused the CAPTCHA token: the error toast says so (the fields keep what was typed). */
  protected captchaRefused(answer: FunctionAnswer): boolean {
    if (!CAPTCHA || answer.ok || !isCaptchaRefusal(answer.error)) return false;
    this.failed(answer.error.message ?? CAPTCHA_MESSAGE);
    return true;
  }

  /** The form was taken: it empties, and the success toast says what happens next. */
  protected succeeded(): void {
    this.form.reset();
    showFieldErrors(this.form, {});
    toast({ title: this.dataset.successTitle ?? '', description: this.dataset.successDescription });
  }

  /** The error toast, with the failure text unless another is given; the fields keep what was typed. */
  protected failed(description = this.dataset.failureDescription): void {
    toast({ title: this.dataset.failureTitle ?? '', description, variant: 'destructive' });
  }
}
