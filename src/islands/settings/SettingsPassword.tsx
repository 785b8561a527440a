import { type SubmitEvent, useState } from 'react';
import { passwordMeetsRules } from '../../../supabase/functions/_shared/password.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { passwordCheckFailure } from '../../lib/password-check.ts';
import { checkCurrentPassword } from '../../stores/password-check.ts';
import { supabase } from '../../stores/supabase.ts';
import { toast } from '../../stores/toasts.ts';
import type { PasswordChecklistLabels } from '../auth/labels.ts';
import PasswordChecklist from '../auth/PasswordChecklist.tsx';
import { useCaptcha } from '../auth/use-captcha.ts';
import type { SettingsLabels } from './labels.ts';

interface Props {
  /** The signed-in member's address: the current password is checked by signing in with it. */
  email: string;
  labels: SettingsLabels;
  checklist: PasswordChecklistLabels;
}

/** Which message an auth error from signInWithPassword or updateUser({ password }) gets. */
function failureText(error: { code?: string; name?: string; message: string }, labels: SettingsLabels) {
  switch (error.code) {
    case 'invalid_credentials':
    case 'current_password_invalid':
    case 'current_password_required':
      return { title: labels.currentPasswordWrongTitle, description: labels.currentPasswordWrong };
    case 'weak_password':
      return { title: labels.weakTitle, description: labels.weak };
    case 'same_password':
      return { title: labels.passwordFailedTitle, description: labels.samePassword };
    case 'reauthentication_needed':
    case 'reauthentication_not_valid':
      return { title: labels.passwordFailedTitle, description: labels.reauthenticate };
    case 'session_not_found':
    case 'session_expired':
    case 'bad_jwt':
      return { title: labels.passwordFailedTitle, description: labels.sessionExpired };
  }
  // The rest as the two-factor steps say it: a session that is gone, a refused CAPTCHA token, the service's words.
  const failure = passwordCheckFailure(error);
  if (failure.kind === 'expired') return { title: labels.passwordFailedTitle, description: labels.sessionExpired };
  return { title: labels.passwordFailedTitle, description: failure.text ?? labels.unexpected };
}

/**
 * Change password: the current password, then the sign-up rules with the live checklist; enabled once both
 * are there. The current password is checked by signing in with it (src/stores/password-check.ts), which for
 * a member without two-factor also makes the session a recent sign-in (secure_password_change asks for a
 * mailed code after 24 hours otherwise), and is sent along as current_password, which the auth service
 * checks itself ("Require current password when updating").
 */
export default function SettingsPassword({ email, labels, checklist }: Props) {
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const meetsRules = passwordMeetsRules(password);
  const mismatch = confirm !== '' && confirm !== password;
  const ready = meetsRules && current !== '';
  // The auth service asks a password sign-in for a CAPTCHA token while [auth.captcha] is on.
  const captcha = useCaptcha('settings-password');

  const onSubmit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!ready || busy) return;
    if (confirm !== password) {
      toast({ title: labels.mismatchTitle, description: labels.mismatch, variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      // The current password is checked by a sign-in first (for a member with two-factor, aside, so this
      // session stays aal2), and the auth service checks current_password again.
      const error =
        (await checkCurrentPassword(email, current, await captcha.token())) ??
        (await supabase().auth.updateUser({ password, current_password: current })).error;
      if (error) {
        toast({ ...failureText(error, labels), variant: 'destructive' });
        return;
      }
      setCurrent('');
      setPassword('');
      setConfirm('');
      toast({ title: labels.passwordUpdatedTitle, description: labels.passwordUpdated });
    } catch (err) {
      console.error('Password update failed:', err);
      toast({ title: labels.passwordFailedTitle, description: labels.unexpected, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={captcha.formRef} onSubmit={onSubmit} aria-labelledby="change-password" className="grid gap-5">
      <h3 id="change-password" className="text-xl font-semibold">
        {labels.passwordHeading}
      </h3>
      <Field
        id="current-password"
        label={labels.currentPassword}
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
        disabled={busy}
      />
      <Field
        id="new-password"
        label={labels.newPassword}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        aria-describedby="new-password-rules"
        disabled={busy}
      >
        <PasswordChecklist id="new-password-rules" password={password} labels={checklist} />
      </Field>
      {/* The mismatch is shown while typing, not announced as an alert at each key. */}
      <Field
        id="confirm-password"
        label={labels.confirmPassword}
        type="password"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        aria-invalid={mismatch || undefined}
        aria-describedby={mismatch ? 'confirm-password-error' : undefined}
        disabled={busy}
      >
        {mismatch && (
          <p id="confirm-password-error" className="mt-1 text-sm text-danger">
            {labels.mismatchTitle}: {labels.mismatch}
          </p>
        )}
      </Field>
      {captcha.slot}
      <div>
        <Button type="submit" disabled={!ready || busy}>
          {busy ? labels.updatingPassword : labels.updatePassword}
        </Button>
      </div>
    </form>
  );
}
