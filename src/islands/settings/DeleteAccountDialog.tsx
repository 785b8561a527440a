import { type RefObject, type SubmitEvent, useEffect, useRef, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { deleteProblem } from '../../lib/account-delete.ts';
import { bodyWithCaptcha } from '../../lib/captcha.ts';
import { cleanTotp, isTotpFormat } from '../../lib/mfa.ts';
import { signOut } from '../../stores/sign-out.ts';
import { supabase } from '../../stores/supabase.ts';
import OneTimeCodeField from '../auth/OneTimeCodeField.tsx';
import { useCaptcha } from '../auth/use-captcha.ts';
import { invokeAccount } from './account-function.ts';
import type { SettingsLabels } from './labels.ts';

interface Props {
  labels: SettingsLabels;
  dialog: RefObject<HTMLDialogElement | null>;
  /** Bumped each time the dialog opens: the form starts empty. */
  opened: number;
}

/**
 * Delete my account's modal <dialog>: says what goes and asks for the password, and for a member with
 * two-factor on also a current code from the authenticator app (the account function checks both, the code
 * through the auth service). A refusal is said, in the function's words, under the field it is about; on
 * success the member is signed out on this device and lands on / with a toast.
 */
export default function DeleteAccountDialog({ labels, dialog, opened }: Props) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [askCode, setAskCode] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [problem, setProblem] = useState<{ field: 'password' | 'code'; text: string } | null>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  // The account function's password check is a sign-in, which asks for a CAPTCHA token while [auth.captcha] is on.
  const captcha = useCaptcha('delete-account');

  useEffect(() => {
    if (!opened) return;
    setPassword('');
    setCode('');
    setProblem(null);
    // The level comes from the access token and the session's factors: no request.
    supabase()
      .auth.mfa.getAuthenticatorAssuranceLevel()
      .then(({ data }) => setAskCode(data?.nextLevel === 'aal2'))
      .catch(() => setAskCode(false));
  }, [opened]);

  // The field that was refused gets the focus back once the form is no longer busy.
  useEffect(() => {
    if (problem && !deleting) (problem.field === 'code' ? codeRef : passwordRef).current?.focus();
  }, [problem, deleting]);

  const onDelete = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!password || deleting) return;
    setProblem(null);
    const token = cleanTotp(code);
    if (askCode && !isTotpFormat(token)) {
      setTimeout(() => setProblem({ field: 'code', text: labels.twoFactorFormat }), 0);
      return;
    }
    setDeleting(true);
    try {
      const body = bodyWithCaptcha(askCode ? { password, code: token } : { password }, await captcha.token());
      const answer = await invokeAccount(body);
      if (!answer.ok) {
        const refused = deleteProblem(answer.error);
        if (refused.askCode) setAskCode(true);
        if (refused.field === 'code') setCode('');
        setProblem({ field: refused.field, text: refused.text ?? labels.unexpected });
        setDeleting(false);
        return;
      }
    } catch (err) {
      console.error('Account deletion failed:', err);
      setProblem({ field: 'password', text: labels.unexpected });
      setDeleting(false);
      return;
    }
    // The account and its sessions are gone on the server: clear this device's session and go to /.
    await signOut({
      signedOutTitle: labels.deletedTitle,
      signedOutDescription: labels.deleted,
      failedTitle: labels.deletedTitle,
      failedDescription: labels.deleted,
    });
  };

  return (
    <dialog
      ref={dialog}
      aria-labelledby="delete-account-title"
      aria-describedby="delete-account-what"
      className="m-auto w-[calc(100%-1rem)] max-w-lg rounded-2xl border border-navy-700 bg-navy-950 p-6 text-white shadow-2xl backdrop:bg-navy-950/85"
    >
      <form ref={captcha.formRef} onSubmit={onDelete} className="grid gap-4">
        <h2 id="delete-account-title" className="text-2xl font-semibold">
          {labels.deleteDialogTitle}
        </h2>
        <div id="delete-account-what" className="grid gap-2 text-muted">
          <p>{labels.deleteWhat}</p>
          <p>{labels.deleteKept}</p>
        </div>
        <Field
          ref={passwordRef}
          id="delete-account-password"
          label={labels.deletePassword}
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={problem?.field === 'password' ? problem.text : ''}
          disabled={deleting}
        />
        {askCode && (
          <OneTimeCodeField
            ref={codeRef}
            id="delete-account-code"
            label={labels.deleteCode}
            hint={labels.twoFactorHint}
            error={problem?.field === 'code' ? problem.text : ''}
            value={code}
            onChange={setCode}
          />
        )}
        {captcha.slot}
        <div className="flex flex-wrap justify-end gap-3">
          <Button variant="outline" onClick={() => dialog.current?.close()} disabled={deleting}>
            {labels.cancel}
          </Button>
          <Button variant="danger" type="submit" disabled={!password || deleting}>
            {deleting ? labels.deleting : labels.deleteConfirm}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
