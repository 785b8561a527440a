import { type FormEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { cleanTotp, isTotpFormat, totpFailure, verifiedTotpFactors } from '../../lib/mfa.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';
import type { AuthLabels } from './labels.ts';
import OneTimeCodeField from './OneTimeCodeField.tsx';

interface Props {
  labels: AuthLabels;
  /** The code was accepted: the session is at aal2. */
  onVerified(): void;
  /** The member has no verified factor after all: nothing to ask. */
  onNoFactor(): void;
  /** Cancel: the password-only session is dropped and the Sign In tab shown. */
  onCancel(): void;
}

/**
 * The two-factor step: the 6-digit code of the member's authenticator app, checked with
 * auth.mfa.challengeAndVerify against their verified factor, which raises the session to aal2. A refused code
 * is said under the field (an alert, so screen readers announce it) and the step stays.
 */
export default function AuthMfa({ labels, onVerified, onNoFactor, onCancel }: Props) {
  const [factorId, setFactorId] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let active = true;
    loadSupabase()
      .then(({ auth }) => auth.mfa.listFactors())
      .then(({ data }) => {
        if (!active) return;
        const factor = verifiedTotpFactors(data?.all)[0];
        if (factor) setFactorId(factor.id);
        else onNoFactor();
      })
      .catch(() => {
        if (active) onNoFactor();
      });
    return () => {
      active = false;
    };
  }, [onNoFactor]);

  // The step replaces the password form: focus moves to the code field.
  useEffect(() => {
    codeRef.current?.focus();
  }, []);

  function fail(message: string) {
    setError(message);
    codeRef.current?.focus();
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const token = cleanTotp(code);
    // Cleared first, so the same message said twice is announced twice.
    setError('');
    if (!isTotpFormat(token)) {
      setTimeout(() => fail(labels.mfaFormat), 0);
      return;
    }
    if (!factorId) return;
    setBusy(true);
    try {
      const { error: refused } = await (await loadSupabase()).auth.mfa.challengeAndVerify({
        factorId,
        code: token,
      });
      if (refused) {
        const failure = totpFailure(refused);
        setCode('');
        fail(failure.kind === 'wrong' ? labels.mfaWrong : (failure.text ?? labels.mfaFailed));
        setBusy(false);
        return;
      }
      onVerified();
    } catch (err) {
      console.error('Two-factor check failed:', err);
      fail(labels.mfaFailed);
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="mfa-heading">
      <div>
        <h2 id="mfa-heading" className="text-xl font-semibold text-white">
          {labels.mfaHeading}
        </h2>
        <p className="mt-1 text-sm text-muted">{labels.mfaLead}</p>
      </div>
      <OneTimeCodeField
        ref={codeRef}
        id="mfa-code"
        label={labels.mfaCode}
        hint={labels.mfaHint}
        error={error}
        value={code}
        onChange={setCode}
      />
      <Button type="submit" className="w-full" disabled={busy || !factorId}>
        {busy ? labels.mfaVerifying : labels.mfaVerify}
      </Button>
      <Button variant="ghost" className="w-full" onClick={onCancel} disabled={busy}>
        {labels.mfaSignOut}
      </Button>
    </form>
  );
}
