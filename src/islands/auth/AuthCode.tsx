import { type FormEvent, useEffect, useRef, useState } from 'react';
import { LIMITS } from '../../../supabase/functions/_shared/form-rules.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { type CodeStep, chosenPasswordResult, cleanCode, codeFailure, codeProblem } from '../../lib/auth-forms.ts';
import type { ConfirmTarget, KnownPassword } from '../../stores/auth-flow.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';
import { queueToast } from '../../stores/toasts.ts';
import { requestReset, resendConfirmation } from './auth-mail.ts';
import { problemToast } from './auth-toast.ts';
import { confirmAccount } from './confirm-account.ts';
import type { AuthLabels } from './labels.ts';
import OneTimeCodeField from './OneTimeCodeField.tsx';
import { useCaptcha } from './use-captcha.ts';

interface Props {
  labels: AuthLabels;
  step: CodeStep;
  /** The address the mail went to, when the page knows it. */
  email: string;
  onBack(): void;
  /** A reset code was accepted: the session it started may set a new password. */
  onRecovered(): void;
  /** For the confirmation code: the password to set with it, when this page knows it for the address. */
  knownPassword?: KnownPassword | null;
  /** Said under the code field at first: the code the password form sent was refused. */
  initialError?: string;
  /** A confirmation code without a known password (or whose password was refused): the password form. */
  onChoosePassword(target: ConfirmTarget): void;
}

/**
 * The emailed 6-digit code: a confirmation code is verified together with the password chosen at sign-up
 * (src/islands/auth/confirm-account.ts), or opens the password form when this page does not know it, then
 * signs the new member in on /dashboard; a reset code opens the new-password form (type recovery). Also asks
 * for a new mail. A refused code is said under the field (an alert, so screen readers announce it) and the
 * step stays.
 */
export default function AuthCode({
  labels,
  step,
  email: knownEmail,
  onBack,
  onRecovered,
  knownPassword,
  initialError = '',
  onChoosePassword,
}: Props) {
  const [email, setEmail] = useState(knownEmail);
  const [code, setCode] = useState('');
  const [error, setError] = useState(initialError);
  const [busy, setBusy] = useState<'verify' | 'send' | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const recover = step === 'recover';
  // Only asking for a new mail needs a token: the auth service does not check one on the code itself.
  const captcha = useCaptcha(recover ? 'reset-code' : 'confirm-code');

  // The step replaces the form that was in use: focus moves to the field to fill next.
  useEffect(() => {
    (knownEmail ? codeRef : emailRef).current?.focus();
  }, [knownEmail]);

  function fail(message: string) {
    setError(message);
    codeRef.current?.focus();
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const token = cleanCode(code);
    // Cleared first, so the same message said twice is announced twice.
    setError('');
    const problem = codeProblem(token);
    if (problem) {
      // After a render with the message cleared.
      setTimeout(() => fail(labels[problem]), 0);
      return;
    }
    setBusy('verify');
    const address = email.trim();
    try {
      if (!recover) {
        const password =
          knownPassword && knownPassword.email.toLowerCase() === address.toLowerCase() ? knownPassword.password : null;
        // Nothing is verified without the password that goes with it: the form asks for one first.
        if (password === null) {
          onChoosePassword({ proof: { email: address, code: token }, via: 'code' });
          return;
        }
        const outcome = await confirmAccount({ email: address, code: token }, password, 'others');
        if (outcome.kind === 'refused') {
          const failure = codeFailure(outcome.error);
          fail(failure.text ?? labels[failure.label ?? 'codeFailed']);
          setBusy(null);
          return;
        }
        if (outcome.kind === 'password') {
          // Confirmed, but the auth service refused this password: the form asks for another.
          const result = chosenPasswordResult(outcome.error);
          if (typeof result === 'object') problemToast(labels, result);
          onChoosePassword({ proof: null, via: 'code' });
          return;
        }
        queueToast({ title: labels.confirmedTitle });
        location.assign('/dashboard');
        return;
      }
      const { error: refused } = await (await loadSupabase()).auth.verifyOtp({
        email: address,
        token,
        type: 'recovery',
      });
      if (refused) {
        const failure = codeFailure(refused);
        fail(failure.text ?? labels[failure.label ?? 'codeFailed']);
        setBusy(null);
        return;
      }
      setBusy(null);
      onRecovered();
    } catch (err) {
      console.error('Code check failed:', err);
      fail(labels.codeFailed);
      setBusy(null);
    }
  }

  async function onSend() {
    const address = email.trim();
    if (!address) {
      problemToast(labels, { title: 'emailRequiredTitle', description: 'emailRequiredDescription' });
      emailRef.current?.focus();
      return;
    }
    setBusy('send');
    const captchaToken = await captcha.token();
    if (recover) await requestReset(labels, address, captchaToken);
    else await resendConfirmation(labels, address, captchaToken);
    setBusy(null);
  }

  const heading = recover ? labels.recoverHeading : labels.codeHeading;
  return (
    <form ref={captcha.formRef} onSubmit={onSubmit} className="space-y-4" aria-labelledby="code-heading">
      <div>
        <h2 id="code-heading" className="text-xl font-semibold text-white">
          {heading}
        </h2>
        <p className="mt-1 text-sm text-muted">{recover ? labels.recoverLead : labels.codeLead}</p>
      </div>
      <Field
        ref={emailRef}
        id="code-email"
        label={labels.email}
        type="email"
        autoComplete="email"
        required
        maxLength={LIMITS.email}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <OneTimeCodeField
        ref={codeRef}
        id="code-input"
        label={labels.code}
        hint={labels.codeHint}
        error={error}
        value={code}
        onChange={setCode}
      />
      {captcha.slot}
      <Button type="submit" className="w-full" disabled={busy !== null}>
        {busy === 'verify' ? labels.confirming : recover ? labels.confirmRecoverCode : labels.confirmCode}
      </Button>
      <Button variant="ghost" className="w-full" onClick={onSend} disabled={busy !== null}>
        {busy === 'send' ? labels.sendingCode : recover ? labels.sendNewResetCode : labels.sendNewCode}
      </Button>
      <Button variant="ghost" className="w-full" onClick={onBack}>
        {labels.backToSignIn}
      </Button>
    </form>
  );
}
