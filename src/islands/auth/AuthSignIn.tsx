import { type FormEvent, useState } from 'react';
import { LIMITS } from '../../../supabase/functions/_shared/form-rules.ts';
import { PASSWORD_MAX_LENGTH } from '../../../supabase/functions/_shared/password.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { type CodeStep, isNotConfirmed, signInFailure } from '../../lib/auth-forms.ts';
import { needsSecondFactor } from '../../lib/mfa.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';
import { queueToast } from '../../stores/toasts.ts';
import { requestReset } from './auth-mail.ts';
import { problemToast } from './auth-toast.ts';
import type { AuthLabels } from './labels.ts';
import { useCaptcha } from './use-captcha.ts';

interface Props {
  labels: AuthLabels;
  /**
   * Opens the step for an emailed code: the confirmation's (with the password that was typed, when the auth
   * service found it right but the address unconfirmed), or the reset mail's once it was sent.
   */
  onCodeStep(step: CodeStep, email: string, password?: string): void;
  /** The password was right and the member has two-factor: the authenticator code comes next. */
  onSecondFactor(): void;
}

/** The two quieter actions under the form, shown as links. */
const textButtonClass =
  'min-h-12 w-full rounded-lg text-sm font-medium text-accent underline-offset-4 hover:underline disabled:opacity-60';

/** Sign in with email and password, and the forgot-password action. */
export default function AuthSignIn({ labels, onCodeStep, onSecondFactor }: Props) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState<'signin' | 'reset' | null>(null);
  // Sign-in and the reset mail each send a token of their own (the auth service checks the first, the
  // password-reset function passes the second on to it).
  const captcha = useCaptcha('sign-in');

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy('signin');
    try {
      const captchaToken = await captcha.token();
      const { auth } = await loadSupabase();
      const { error } = await auth.signInWithPassword({
        email: email.trim(),
        password,
        options: { captchaToken },
      });
      if (error) {
        problemToast(labels, signInFailure(error));
        setBusy(null);
        // The password was right but the address never confirmed: the code, or a new mail, finishes it.
        if (isNotConfirmed(error)) onCodeStep('confirm', email.trim(), password);
        return;
      }
      const { data: level } = await auth.mfa.getAuthenticatorAssuranceLevel();
      if (needsSecondFactor(level)) {
        setBusy(null);
        onSecondFactor();
        return;
      }
      queueToast({ title: labels.welcomeBack });
      location.assign('/dashboard');
    } catch (err) {
      console.error('Sign in failed:', err);
      problemToast(labels, { title: 'unexpectedTitle', description: 'unexpectedDescription' });
      setBusy(null);
    }
  }

  async function onForgot() {
    const address = email.trim();
    if (!address) {
      problemToast(labels, { title: 'emailRequiredTitle', description: 'emailRequiredDescription' });
      return;
    }
    setBusy('reset');
    const sent = await requestReset(labels, address, await captcha.token());
    setBusy(null);
    if (sent) onCodeStep('recover', address);
  }

  return (
    <form ref={captcha.formRef} onSubmit={onSubmit} className="space-y-4">
      <Field
        id="signin-email"
        label={labels.email}
        type="email"
        autoComplete="email"
        required
        maxLength={LIMITS.email}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <Field
        id="signin-password"
        label={labels.password}
        type="password"
        autoComplete="current-password"
        required
        maxLength={PASSWORD_MAX_LENGTH}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      {captcha.slot}
      <Button type="submit" className="w-full" disabled={busy !== null}>
        {busy === 'signin' ? labels.signingIn : labels.signIn}
      </Button>
      <button type="button" className={textButtonClass} onClick={onForgot} disabled={busy !== null}>
        {busy === 'reset' ? labels.sendingReset : labels.forgotPassword}
      </button>
      <button
        type="button"
        className={textButtonClass}
        onClick={() => onCodeStep('confirm', email.trim())}
        disabled={busy !== null}
      >
        {labels.resendLink}
      </button>
    </form>
  );
}
