import { type FormEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { cleanTotp, isTotpFormat, qrImageSrc, totpFailure, verifiedTotpFactors } from '../../lib/mfa.ts';
import { supabase } from '../../stores/supabase.ts';
import { toast } from '../../stores/toasts.ts';
import OneTimeCodeField from '../auth/OneTimeCodeField.tsx';
import type { SettingsLabels } from '../Settings.tsx';

interface Props {
  labels: SettingsLabels;
}

interface Factor {
  id: string;
  friendly_name?: string;
}

/** An enrolment waiting for its first code: the QR code (an SVG data URI) and the key to type instead. */
interface Pending {
  id: string;
  qrCode: string;
  secret: string;
}

/** Every factor of the signed-in member (GET /user), whatever its status. */
async function listFactors() {
  const { data, error } = await supabase().auth.mfa.listFactors();
  if (error) throw error;
  return data?.all ?? [];
}

/**
 * Two-factor authentication (TOTP): Set up enrolls an authenticator-app factor (auth.mfa.enroll), shows its QR
 * code and key, and turns it on once the first code checks (challengeAndVerify, which also raises the session
 * to aal2). A verified factor is listed with Remove, which asks for a current code before unenroll (the auth
 * service removes a verified factor only at aal2, and the code shows it is the member at the keyboard).
 */
export default function SettingsTwoFactor({ labels }: Props) {
  const [factors, setFactors] = useState<Factor[] | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [removing, setRemoving] = useState<Factor | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);
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

  function fail(message: string) {
    setError(message);
    codeRef.current?.focus();
  }

  function reset() {
    setCode('');
    setError('');
    setCopied(false);
  }

  async function onSetup() {
    setBusy(true);
    reset();
    try {
      const mfa = supabase().auth.mfa;
      // An enrolment left half-way would count against the factor limit: it is dropped first.
      const all = await loadFactors();
      for (const f of all) if (f.status !== 'verified') await mfa.unenroll({ factorId: f.id });
      const { data, error: failed } = await mfa.enroll({ factorType: 'totp' });
      if (failed || !data) throw failed ?? new Error('no factor');
      setPending({ id: data.id, qrCode: qrImageSrc(data.totp.qr_code), secret: data.totp.secret });
    } catch (err) {
      console.error('Two-factor setup failed:', err);
      toast({ title: labels.errorTitle, description: labels.twoFactorFailed, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  }

  // The code field is the next thing to fill once the QR code or the remove form appears.
  useEffect(() => {
    if (pending || removing) codeRef.current?.focus();
  }, [pending, removing]);

  /** Checks the code against `factorId`; true when it was accepted. */
  async function verify(factorId: string): Promise<boolean> {
    const token = cleanTotp(code);
    // Cleared first, so the same message said twice is announced twice.
    setError('');
    if (!isTotpFormat(token)) {
      setTimeout(() => fail(labels.twoFactorFormat), 0);
      return false;
    }
    const { error: refused } = await supabase().auth.mfa.challengeAndVerify({ factorId, code: token });
    if (!refused) return true;
    const failure = totpFailure(refused);
    setCode('');
    fail(failure.kind === 'wrong' ? labels.twoFactorWrong : (failure.text ?? labels.twoFactorFailed));
    return false;
  }

  async function onConfirm(event: FormEvent) {
    event.preventDefault();
    if (!pending || busy) return;
    setBusy(true);
    try {
      if (!(await verify(pending.id))) return;
      setPending(null);
      reset();
      await loadFactors();
      toast({ title: labels.twoFactorEnabledTitle, description: labels.twoFactorEnabled });
    } catch (err) {
      console.error('Two-factor confirmation failed:', err);
      fail(labels.twoFactorFailed);
    } finally {
      setBusy(false);
    }
  }

  async function onRemove(event: FormEvent) {
    event.preventDefault();
    if (!removing || busy) return;
    setBusy(true);
    try {
      if (!(await verify(removing.id))) return;
      const { error: failed } = await supabase().auth.mfa.unenroll({ factorId: removing.id });
      if (failed) {
        fail(failed.message || labels.twoFactorFailed);
        return;
      }
      setRemoving(null);
      reset();
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
    if (!pending) return;
    try {
      await navigator.clipboard.writeText(pending.secret);
      setCopied(true);
    } catch {
      // No clipboard (permissions): the key stays selectable in its box.
    }
  }

  function cancel() {
    setPending(null);
    setRemoving(null);
    reset();
  }

  const codeField = (
    <OneTimeCodeField
      ref={codeRef}
      id="two-factor-code"
      label={labels.twoFactorCode}
      hint={labels.twoFactorHint}
      error={error}
      value={code}
      onChange={setCode}
    />
  );
  const cancelButton = (
    <Button variant="outline" onClick={cancel} disabled={busy}>
      {labels.cancel}
    </Button>
  );

  return (
    <section aria-labelledby="two-factor" className="grid content-start gap-4">
      <h3 id="two-factor" className="text-xl font-semibold">
        {labels.twoFactorHeading}
      </h3>
      {factors === null ? (
        <p role="status" className="text-muted">
          {labels.twoFactorLoading}
        </p>
      ) : factors.length > 0 ? (
        <>
          <p className="text-muted">{labels.twoFactorOn}</p>
          <ul aria-label={labels.twoFactorListLabel} className="grid gap-3">
            {factors.map((f) => (
              <li
                key={f.id}
                className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-navy-700 p-4"
              >
                <span className="font-medium">{f.friendly_name || labels.twoFactorApp}</span>
                {removing?.id !== f.id && (
                  <Button
                    variant="outline"
                    onClick={() => {
                      reset();
                      setRemoving(f);
                    }}
                    disabled={busy}
                  >
                    {labels.twoFactorRemove}
                  </Button>
                )}
              </li>
            ))}
          </ul>
          {removing && (
            <form onSubmit={onRemove} aria-labelledby="two-factor-remove" className="grid gap-4">
              <h4 id="two-factor-remove" className="font-semibold">
                {labels.twoFactorRemoveHeading}
              </h4>
              <p className="text-muted">{labels.twoFactorRemoveText}</p>
              {codeField}
              <div className="flex flex-wrap gap-3">
                <Button type="submit" disabled={busy}>
                  {busy ? labels.twoFactorRemoving : labels.twoFactorRemoveConfirm}
                </Button>
                {cancelButton}
              </div>
            </form>
          )}
        </>
      ) : pending ? (
        <form onSubmit={onConfirm} aria-labelledby="two-factor-setup" className="grid gap-4">
          <h4 id="two-factor-setup" className="font-semibold">
            {labels.twoFactorSetupHeading}
          </h4>
          <p className="text-muted">{labels.twoFactorScan}</p>
          {/* The QR code is drawn dark on white, as authenticator apps read it best. */}
          <img
            src={pending.qrCode}
            alt={labels.twoFactorQrAlt}
            width={192}
            height={192}
            className="size-48 rounded-lg bg-white p-3"
          />
          <div>
            <p id="two-factor-secret-label" className="text-sm font-medium">
              {labels.twoFactorSecret}
            </p>
            <div className="mt-2 flex flex-wrap items-center gap-3">
              <code
                data-testid="two-factor-secret"
                className="rounded-lg border border-navy-600 bg-navy-950 px-3 py-2 font-mono break-all select-all"
              >
                {pending.secret}
              </code>
              <Button variant="outline" onClick={onCopy}>
                {copied ? labels.twoFactorCopied : labels.twoFactorCopy}
              </Button>
            </div>
          </div>
          {codeField}
          <div className="flex flex-wrap gap-3">
            <Button type="submit" disabled={busy}>
              {busy ? labels.twoFactorChecking : labels.twoFactorConfirm}
            </Button>
            {cancelButton}
          </div>
        </form>
      ) : (
        <>
          <p className="text-muted">{labels.twoFactorText}</p>
          <div>
            <Button ref={setupRef} onClick={onSetup} disabled={busy}>
              {busy ? labels.twoFactorStarting : labels.twoFactorSetup}
            </Button>
          </div>
        </>
      )}
    </section>
  );
}
