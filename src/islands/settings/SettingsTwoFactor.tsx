import { type ReactNode, type SubmitEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { cleanTotp, isTotpFormat, qrImageSrc, totpFailure, verifiedTotpFactors } from '../../lib/mfa.ts';
import { passwordCheckFailure } from '../../lib/password-check.ts';
import { checkCurrentPassword } from '../../stores/password-check.ts';
import { supabase } from '../../stores/supabase.ts';
import { toast } from '../../stores/toasts.ts';
import OneTimeCodeField from '../auth/OneTimeCodeField.tsx';
import type { SettingsLabels } from '../Settings.tsx';
import PasswordConfirmForm from './PasswordConfirmForm.tsx';
import TwoFactorEnrolForm from './TwoFactorEnrolForm.tsx';

interface Props {
  /** The signed-in member's address: the current password is checked by signing in with it. */
  email: string;
  labels: SettingsLabels;
}

interface Factor {
  id: string;
  friendly_name?: string;
}

/**
 * Where the section is: the Set up button ('idle'), the password asked before enrolling ('password'), the
 * new factor's QR code waiting for its first code ('code'), or a factor's removal asking the password.
 */
type Step =
  | { kind: 'idle' }
  | { kind: 'password' }
  | { kind: 'code'; id: string; qrCode: string; secret: string }
  | { kind: 'remove'; factor: Factor };

/** Every factor of the signed-in member (GET /user), whatever its status. */
async function listFactors() {
  const { data, error } = await supabase().auth.mfa.listFactors();
  if (error) throw error;
  return data?.all ?? [];
}

/**
 * Two-factor authentication (TOTP). Set up asks for the current password (a fresh sign-in), then enrolls an
 * authenticator-app factor (auth.mfa.enroll), shows its QR code and key, and turns it on once the first code
 * checks (challengeAndVerify, which also raises the session to aal2). A verified factor is listed with
 * Remove, which asks for the current password before unenroll: the auth service needs aal2 only, and a
 * member who lost the phone still knows the password (a code would lock them out).
 */
export default function SettingsTwoFactor({ email, labels }: Props) {
  const [factors, setFactors] = useState<Factor[] | null>(null);
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  const fieldRef = useRef<HTMLInputElement>(null);
  const setupRef = useRef<HTMLButtonElement>(null);

  /** Lists the member's verified factors; answers every factor, unverified ones too. */
  async function loadFactors() {
    const all = await listFactors();
    setFactors(verifiedTotpFactors(all));
    return all;
  }

  useEffect(() => {
    listFactors()
      .then((all) => setFactors(verifiedTotpFactors(all)))
      .catch((err) => {
        console.error('Two-factor factors failed to load:', err);
        setFactors([]);
      });
  }, []);

  // The field is the next thing to fill once a step's form appears.
  useEffect(() => {
    if (step.kind !== 'idle') fieldRef.current?.focus();
  }, [step]);

  /** Says `message` under the field; cleared first, so the same message said twice is announced twice. */
  function fail(message: string) {
    setError('');
    setTimeout(() => setError(message), 0);
  }

  // A field with a message gets the focus back, once the form is no longer busy (a disabled input cannot).
  useEffect(() => {
    if (error && !busy) fieldRef.current?.focus();
  }, [error, busy]);

  function goTo(next: Step) {
    setPassword('');
    setCode('');
    setError('');
    setCopied(false);
    setStep(next);
  }

  /** Checks the password typed (with the form's CAPTCHA token); true when it is right, else the field says why. */
  async function passwordChecks(captchaToken: () => Promise<string | undefined>): Promise<boolean> {
    const refused = await checkCurrentPassword(email, password, await captchaToken());
    if (!refused) return true;
    const failure = passwordCheckFailure(refused);
    setPassword('');
    if (failure.kind === 'wrong') fail(labels.twoFactorPasswordWrong);
    else if (failure.kind === 'expired') fail(labels.sessionExpired);
    else fail(failure.text ?? labels.twoFactorFailed);
    return false;
  }

  async function onPassword(event: SubmitEvent<HTMLFormElement>, captchaToken: () => Promise<string | undefined>) {
    event.preventDefault();
    if (step.kind !== 'password' || !password || busy) return;
    setBusy(true);
    try {
      if (!(await passwordChecks(captchaToken))) return;
      const mfa = supabase().auth.mfa;
      // An enrolment left half-way would count against the factor limit: it is dropped first.
      const all = await loadFactors();
      for (const f of all) if (f.status !== 'verified') await mfa.unenroll({ factorId: f.id });
      const { data, error: failed } = await mfa.enroll({ factorType: 'totp' });
      if (failed || !data) throw failed ?? new Error('no factor');
      goTo({ kind: 'code', id: data.id, qrCode: qrImageSrc(data.totp.qr_code), secret: data.totp.secret });
    } catch (err) {
      console.error('Two-factor setup failed:', err);
      fail(labels.twoFactorFailed);
    } finally {
      setBusy(false);
    }
  }

  async function onConfirm(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (step.kind !== 'code' || busy) return;
    const token = cleanTotp(code);
    if (!isTotpFormat(token)) return fail(labels.twoFactorFormat);
    setBusy(true);
    try {
      const { error: refused } = await supabase().auth.mfa.challengeAndVerify({ factorId: step.id, code: token });
      if (refused) {
        const failure = totpFailure(refused);
        setCode('');
        fail(failure.kind === 'wrong' ? labels.twoFactorWrong : (failure.text ?? labels.twoFactorFailed));
        return;
      }
      goTo({ kind: 'idle' });
      await loadFactors();
      toast({ title: labels.twoFactorEnabledTitle, description: labels.twoFactorEnabled });
    } catch (err) {
      console.error('Two-factor confirmation failed:', err);
      fail(labels.twoFactorFailed);
    } finally {
      setBusy(false);
    }
  }

  async function onRemove(event: SubmitEvent<HTMLFormElement>, captchaToken: () => Promise<string | undefined>) {
    event.preventDefault();
    if (step.kind !== 'remove' || !password || busy) return;
    setBusy(true);
    try {
      if (!(await passwordChecks(captchaToken))) return;
      const { error: failed } = await supabase().auth.mfa.unenroll({ factorId: step.factor.id });
      if (failed) return fail(failed.message || labels.twoFactorFailed);
      goTo({ kind: 'idle' });
      await loadFactors();
      toast({ title: labels.twoFactorRemovedTitle, description: labels.twoFactorRemoved });
      // Focus goes where the removed form was: Set up, once it has rendered.
      setTimeout(() => setupRef.current?.focus(), 0);
    } catch (err) {
      console.error('Two-factor removal failed:', err);
      fail(labels.twoFactorFailed);
    } finally {
      setBusy(false);
    }
  }

  async function onCopy() {
    if (step.kind !== 'code') return;
    try {
      await navigator.clipboard.writeText(step.secret);
      setCopied(true);
    } catch {
      // No clipboard (permissions): the key stays selectable in its box.
    }
  }

  function cancel() {
    const wasSetup = step.kind === 'password' || step.kind === 'code';
    goTo({ kind: 'idle' });
    if (wasSetup) setTimeout(() => setupRef.current?.focus(), 0);
  }

  const passwordForm = (id: string, heading: string, text: string, submit: string, busyText: string) => (
    <PasswordConfirmForm
      ref={fieldRef}
      id={id}
      heading={heading}
      text={text}
      label={labels.twoFactorPassword}
      submit={submit}
      busyText={busyText}
      cancel={labels.cancel}
      busy={busy}
      error={error}
      value={password}
      onChange={setPassword}
      onSubmit={step.kind === 'remove' ? onRemove : onPassword}
      onCancel={cancel}
    />
  );

  let body: ReactNode;
  if (factors === null) {
    body = (
      <p role="status" className="text-muted">
        {labels.twoFactorLoading}
      </p>
    );
  } else if (factors.length > 0) {
    body = (
      <>
        <p className="text-muted">{labels.twoFactorOn}</p>
        <ul aria-label={labels.twoFactorListLabel} className="grid gap-3">
          {factors.map((f) => (
            <li
              key={f.id}
              className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-navy-700 p-4"
            >
              <span className="font-medium">{f.friendly_name || labels.twoFactorApp}</span>
              {!(step.kind === 'remove' && step.factor.id === f.id) && (
                <Button variant="outline" onClick={() => goTo({ kind: 'remove', factor: f })} disabled={busy}>
                  {labels.twoFactorRemove}
                </Button>
              )}
            </li>
          ))}
        </ul>
        {step.kind === 'remove' &&
          passwordForm(
            'two-factor-remove',
            labels.twoFactorRemoveHeading,
            labels.twoFactorRemoveText,
            labels.twoFactorRemoveConfirm,
            labels.twoFactorRemoving,
          )}
      </>
    );
  } else if (step.kind === 'password') {
    body = passwordForm(
      'two-factor-password',
      labels.twoFactorSetup,
      labels.twoFactorPasswordText,
      labels.twoFactorContinue,
      labels.twoFactorStarting,
    );
  } else if (step.kind === 'code') {
    body = (
      <TwoFactorEnrolForm
        labels={labels}
        qrCode={step.qrCode}
        secret={step.secret}
        copied={copied}
        onCopy={onCopy}
        busy={busy}
        codeField={
          <OneTimeCodeField
            ref={fieldRef}
            id="two-factor-code"
            label={labels.twoFactorCode}
            hint={labels.twoFactorHint}
            error={error}
            value={code}
            onChange={setCode}
          />
        }
        onSubmit={onConfirm}
        onCancel={cancel}
      />
    );
  } else {
    body = (
      <>
        <p className="text-muted">{labels.twoFactorText}</p>
        <div>
          <Button ref={setupRef} onClick={() => goTo({ kind: 'password' })}>
            {labels.twoFactorSetup}
          </Button>
        </div>
      </>
    );
  }

  return (
    <section aria-labelledby="two-factor" className="grid content-start gap-4">
      <h3 id="two-factor" className="text-xl font-semibold">
        {labels.twoFactorHeading}
      </h3>
      {body}
    </section>
  );
}
