// What the site sends each function: one map from the name it is called by to its JSON body, the input side
// of the functions' own zod schemas (schemas.ts), so a renamed or retyped field fails the site's type check.
// Types only: importing this puts no code in a page.
import type {
  ContactPayload,
  NewsletterPayload,
  PasswordResetPayload,
  ResendPayload,
  SignupPayload,
} from './schemas.ts';

/** The CAPTCHA widget's token, which every form-like function takes beside its fields (captcha.ts). */
export type CaptchaField = { captchaToken?: string };

/** account's POST: deletes the member's account (GET, the data export, has no body). */
export type AccountDeletePayload = CaptchaField & {
  password: string;
  /** The 6-digit code from the authenticator app, when two-factor is on. */
  code?: string;
};

/** Each function (and entry, `<function>/<entry>`) the site calls, with its request body. */
export interface FunctionPayloads {
  'user-signup': SignupPayload & CaptchaField;
  'user-signup/resend': ResendPayload & CaptchaField;
  'password-reset': PasswordResetPayload & CaptchaField;
  'newsletter-signup': NewsletterPayload & CaptchaField;
  'send-contact-email': ContactPayload & CaptchaField;
  account: AccountDeletePayload;
}

export type FunctionName = keyof FunctionPayloads;
