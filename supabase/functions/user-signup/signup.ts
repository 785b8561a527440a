// user-signup's logic: the auth service creates the user and sends the confirmation mail itself, so on
// hosted Supabase the mail uses the project's SMTP settings and its "Confirm signup" template.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { CAPTCHA_FAILED_CODE, CAPTCHA_MESSAGE } from '../_shared/captcha.ts';
import type { ErrorCode } from '../_shared/errors.ts';
import type { SignupInput } from '../_shared/schemas.ts';
import type { PendingAccounts } from './pending.ts';

/** The answer on success; the site shows it as is. */
export const SUCCESS_MESSAGE = 'Please check your email to verify your account before signing in.';
/** Answered with the code `account_exists`, which the site turns into 'Account exists: ...'. */
export const EXISTS_MESSAGE = 'A user with this email address has already been registered.';
export const FAILURE_MESSAGE = 'Failed to create account';
/** The auth service could not send the confirmation mail (its relay is down): nothing was created. */
export const MAIL_FAILURE_MESSAGE =
  'We could not send the confirmation email, so your account was not created. Please try again in a few minutes.';
/**
 * The resend answer, the same whether the address waits for confirmation, is confirmed already or is
 * unknown (the auth service answers all three alike), and when a mail went to it less than a minute ago.
 */
export const RESEND_MESSAGE =
  'If this address is waiting to be confirmed, a new confirmation email is on its way. Please check your inbox.';
/** The project's hourly mail budget is spent: nothing tells one address from another here. */
export const RESEND_BUSY_MESSAGE = 'Too many emails have been sent. Please try again later.';
/** GoTrue's text when the confirmation mail fails (500 unexpected_failure); the user is not kept. */
const CONFIRMATION_MAIL_FAILED = 'Error sending confirmation email';

export interface SignupDeps {
  /** supabase-js with the anon key, implicit flow, no stored session. */
  auth: SupabaseClient<Database>;
  /** Where the confirmation link lands (SITE_URL + /newsletter-verified?type=user). */
  emailRedirectTo: string;
  /** Removes an unconfirmed account at the address before it signs up afresh. */
  pending: PendingAccounts;
}

export type SignupResult =
  | { ok: true; message: string }
  | { ok: false; status: number; error: string; code: ErrorCode };

/** The auth service refused the request's CAPTCHA token ([auth.captcha]): the visitor tries again. */
const captchaRefused: SignupResult = { ok: false, status: 400, error: CAPTCHA_MESSAGE, code: CAPTCHA_FAILED_CODE };

export function confirmationRedirect(siteUrl: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/newsletter-verified?type=user`;
}

/**
 * Signs the user up; first_name and last_name go into user_metadata, where the profile trigger reads them.
 * An address that is already confirmed comes back from the auth service as an obfuscated user with no
 * identities (so sign-up does not reveal who has an account to everyone); this function says so plainly,
 * as the form needs to offer "sign in instead".
 *
 * An address that exists unconfirmed is signed up afresh: the earlier, unproven registration is removed
 * first (see pending.ts), with its password, names and links.
 *
 * `captchaToken` is passed on for the auth service to check when this function did not check it itself.
 */
export async function signUpUser(input: SignupInput, deps: SignupDeps, captchaToken?: string): Promise<SignupResult> {
  // An unconfirmed account at this address was made by someone who never proved owning it (maybe a
  // stranger, directly at the auth service): it goes, so that the password confirmed by the newest link
  // is this sign-up's. A confirmed account is left alone and answered below.
  await deps.pending.removeUnconfirmed(input.email);
  const { data, error } = await deps.auth.auth.signUp({
    email: input.email,
    password: input.password,
    options: {
      emailRedirectTo: deps.emailRedirectTo,
      data: { first_name: input.firstName, last_name: input.lastName },
      captchaToken,
    },
  });
  if (error) {
    if (error.code === CAPTCHA_FAILED_CODE) return captchaRefused;
    if (error.code === 'user_already_exists' || error.code === 'email_exists' || /already/i.test(error.message)) {
      return { ok: false, status: 409, error: EXISTS_MESSAGE, code: 'account_exists' };
    }
    if (error.message === CONFIRMATION_MAIL_FAILED) {
      console.error('user-signup: auth service could not send the confirmation mail');
      return { ok: false, status: 503, error: MAIL_FAILURE_MESSAGE, code: 'mail_unavailable' };
    }
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 502;
    if (status === 502) {
      console.error('user-signup: auth service:', error.status, error.message);
      return { ok: false, status, error: FAILURE_MESSAGE, code: 'upstream_failure' };
    }
    return { ok: false, status, error: error.message, code: status === 429 ? 'rate_limited' : 'auth_refused' };
  }
  if (data.user && Array.isArray(data.user.identities) && data.user.identities.length === 0) {
    return { ok: false, status: 409, error: EXISTS_MESSAGE, code: 'account_exists' };
  }
  return { ok: true, message: SUCCESS_MESSAGE };
}

/**
 * Sends the confirmation mail again (the auth service's /resend, type signup). Its per-address answer, 429
 * "For security purposes, you can only request this after N seconds", would tell that the address has an
 * account waiting; the mail it refers to went out less than a minute ago, so it gets the usual answer.
 */
export async function resendConfirmation(
  email: string,
  deps: SignupDeps,
  captchaToken?: string,
): Promise<SignupResult> {
  const { error } = await deps.auth.auth.resend({
    type: 'signup',
    email,
    options: { emailRedirectTo: deps.emailRedirectTo, captchaToken },
  });
  if (error?.code === CAPTCHA_FAILED_CODE) return captchaRefused;
  if (!error || /^For security purposes/.test(error.message)) return { ok: true, message: RESEND_MESSAGE };
  if (error.status === 429) return { ok: false, status: 429, error: RESEND_BUSY_MESSAGE, code: 'rate_limited' };
  console.error('user-signup: resend: auth service:', error.status, error.message);
  return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
}
