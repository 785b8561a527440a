import { type FormEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { type AuthLabels, type CodeStep, cleanCode, codeFailure, codeProblem } from '../../lib/auth-forms.ts';
import { supabase } from '../../stores/supabase.ts';
import { queueToast } from '../../stores/toasts.ts';
import { requestReset, resendConfirmation } from './auth-mail.ts';
import { problemToast } from './auth-toast.ts';
import OneTimeCodeField from './OneTimeCodeField.tsx';

interface Props {
  labels: AuthLabels;
  step: CodeStep;
  /** The address the mail went to, when the page knows it. */
  email: string;
  onBack(): void;
  /** A reset code was accepted: the session it started may set a new password. */
  onRecovered(): void;
}

/**
 * The emailed 6-digit code: a confirmation code signs the new member in (verifyOtp type signup) and goes to
 * /dashboard, a reset code opens the new-password form (type recovery). Also asks for a new mail. A refused
 * code is said under the field (an alert, so screen readers announce it) and the step stays.
 */
export default function AuthCode({ labels, step, email: knownEmail, onBack, onRecovered }: Props) {
  const [email, setEmail] = useState(knownEmail);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<'verify' | 'send' | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const recover = step === 'recover';

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
    try {
      const { error: refused } = await supabase().auth.verifyOtp({
        email: email.trim(),
        token,
        type: recover ? 'recovery' : 'signup',
      });
      if (refused) {
        const failure = codeFailure(refused);
        fail(failure.text ?? labels[failure.label ?? 'codeFailed']);
        setBusy(null);
        return;
      }
      if (recover) {
        setBusy(null);
        onRecovered();
        return;
      }
      queueToast({ title: labels.confirmedTitle });
      location.assign('/dashboard');
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
    if (recover) await requestReset(labels, address);
    else await resendConfirmation(labels, address);
    setBusy(null);
  }

  const heading = recover ? labels.recoverHeading : labels.codeHeading;
  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="code-heading">
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
        maxLength={254}
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
