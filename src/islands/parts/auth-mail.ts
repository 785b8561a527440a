// The two mails the /auth page asks for again: a sign-up's confirmation (the auth service's /resend) and a
// password reset (the password-reset function). Each shows its own toast and says whether a mail went out.
import { type AuthLabels, resendOutcome, resetRequestFailure } from '../../lib/auth-forms.ts';
import { supabase } from '../../stores/supabase.ts';
import { toast } from '../../stores/toasts.ts';
import { functionErrorText, problemToast } from './auth-toast.ts';

/** Where a confirmation link lands: the page the user-signup function's mail sends people to as well. */
export function confirmationRedirect(): string {
  return `${location.origin}/newsletter-verified?type=user`;
}

/**
 * A new confirmation mail. The auth service answers the same for an unknown or already confirmed address
 * as for one waiting to be confirmed, and so does the toast; only its 429 (a mail went to the address less
 * than a minute ago, or too many requests) asks the member to wait.
 */
export async function resendConfirmation(labels: AuthLabels, email: string): Promise<void> {
  try {
    const { error } = await supabase().auth.resend({
      type: 'signup',
      email,
      options: { emailRedirectTo: confirmationRedirect() },
    });
    problemToast(labels, resendOutcome(error), error ? 'destructive' : 'default');
  } catch (err) {
    console.error('Resend failed:', err);
    problemToast(labels, { title: 'codeSendFailedTitle', description: 'unexpectedDescription' });
  }
}

/** A password reset mail through the password-reset function; true when it accepted the request. */
export async function requestReset(labels: AuthLabels, email: string): Promise<boolean> {
  try {
    const { error } = await supabase().functions.invoke('password-reset', {
      body: { email, redirectTo: `${location.origin}/auth?tab=reset` },
    });
    if (error) {
      problemToast(labels, resetRequestFailure(await functionErrorText(error)));
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
