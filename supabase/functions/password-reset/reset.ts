// password-reset's logic: the auth service mails the recovery link itself, so on hosted Supabase the mail
// uses the project's SMTP settings and its "Reset password" template. The answer never says whether the
// address has an account.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { CAPTCHA_FAILED_CODE, CAPTCHA_MESSAGE } from '../_shared/captcha.ts';
import type { ErrorCode } from '../_shared/errors.ts';
import type { PasswordResetInput } from '../_shared/schemas.ts';
import { type RedirectPolicy, resetRedirect } from './redirect.ts';

/** The same answer for every address. */
export const SENT_MESSAGE = 'If an account exists for this email, a password reset link is on its way.';
export const FAILURE_MESSAGE = 'Failed to send reset email.';

export interface ResetDeps {
  /** supabase-js with the anon key, implicit flow (the link carries hash tokens and works in any browser). */
  auth: SupabaseClient<Database>;
  policy: RedirectPolicy;
}

export type ResetResult = { ok: true; message: string } | { ok: false; status: number; error: string; code: ErrorCode };

/**
 * Asks the auth service for the recovery mail. `captchaToken` is the form's CAPTCHA token, passed on as is: the
 * auth service checks it when [auth.captcha] is on, and a token is good for one check only.
 */
export async function requestPasswordReset(
  input: PasswordResetInput,
  deps: ResetDeps,
  captchaToken?: string,
): Promise<ResetResult> {
  const { error } = await deps.auth.auth.resetPasswordForEmail(input.email, {
    redirectTo: resetRedirect(input.redirectTo, deps.policy),
    captchaToken,
  });
  if (error) {
    // The one refusal that says nothing about the address, and that the visitor can fix: a new check.
    if (error.code === CAPTCHA_FAILED_CODE) {
      return { ok: false, status: 400, error: CAPTCHA_MESSAGE, code: CAPTCHA_FAILED_CODE };
    }
    // 4xx answers (one mail per address per minute, the hourly mail quota) only happen for addresses that
    // exist or would reveal as much: log them and answer as usual.
    if (error.status && error.status >= 400 && error.status < 500) {
      console.warn('password-reset: auth service refused:', error.status, error.code ?? '', error.message);
      return { ok: true, message: SENT_MESSAGE };
    }
    console.error('password-reset: auth service:', error.status, error.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
  }
  return { ok: true, message: SENT_MESSAGE };
}
