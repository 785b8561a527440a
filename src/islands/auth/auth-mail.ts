// The two mails the /auth page asks for again: a sign-up's confirmation and a password reset, each through its
// function (user-signup/resend, password-reset), which apply the sign-up's and the reset's per-address limits.
// Each shows its own toast and says whether a mail went out. `captchaToken` is the form's CAPTCHA token, which
// the function passes on to the auth service.
import { resendOutcome, resetRequestFailure } from '../../lib/auth-forms.ts';
import { bodyWithCaptcha } from '../../lib/captcha.ts';
import { invokeFunction } from '../../lib/functions.ts';
import { toast } from '../../stores/toasts.ts';
import { problemToast } from './auth-toast.ts';
import type { AuthLabels } from './labels.ts';

/**
 * A new confirmation mail. The function answers the same for an unknown or already confirmed address as for
 * one waiting to be confirmed, and so does the toast; only its 429 (too many requests from this address, or
 * the project's mail budget spent) asks the member to wait.
 */
export async function resendConfirmation(labels: AuthLabels, email: string, captchaToken?: string): Promise<void> {
  try {
    const answer = await invokeFunction('user-signup/resend', bodyWithCaptcha({ email }, captchaToken));
    const failure = answer.ok ? null : answer.error;
    problemToast(labels, resendOutcome(failure), failure ? 'destructive' : 'default');
  } catch (err) {
    console.error('Resend failed:', err);
    problemToast(labels, { title: 'codeSendFailedTitle', description: 'unexpectedDescription' });
  }
}

/** A password reset mail through the password-reset function; true when it accepted the request. */
export async function requestReset(labels: AuthLabels, email: string, captchaToken?: string): Promise<boolean> {
  try {
    const answer = await invokeFunction(
      'password-reset',
      bodyWithCaptcha({ email, redirectTo: `${location.origin}/auth?tab=reset` }, captchaToken),
    );
    if (!answer.ok) {
      problemToast(labels, resetRequestFailure(answer.error.message));
      return false;
    }
    toast({ title: labels.resetSentTitle, description: labels.resetSentDescription });
    return true;
  } catch (err) {
    console.error('Reset request failed:', err);
    problemToast(labels, resetRequestFailure(undefined));
    return false;
  }
}
