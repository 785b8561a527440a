import { type FormEvent, useState } from 'react';
import { passwordMeetsRules } from '../../../supabase/functions/_shared/password.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { type AuthLabels, isExpiredSessionError, resetProblem } from '../../lib/auth-forms.ts';
import { supabase } from '../../stores/supabase.ts';
import { queueToast } from '../../stores/toasts.ts';
import { problemToast } from './auth-toast.ts';
import PasswordChecklist, { type PasswordChecklistLabels } from './PasswordChecklist.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
  /** Back to the tabs: after Cancel, or when the link turns out to have expired. */
  onLeave(expired: boolean): void;
}

/** New Password + Confirm New Password over the recovery session the link started. */
export default function AuthReset({ labels, passwordLabels, onLeave }: Props) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [showRules, setShowRules] = useState(false);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem = resetProblem(password, confirm);
    if (problem) {
      problemToast(labels, problem);
      return;
    }
    setBusy(true);
    try {
      const client = supabase();
      const { data } = await client.auth.getSession();
      if (!data.session) {
        onLeave(true);
        return;
      }
      const { error } = await client.auth.updateUser({ password });
      if (error) {
        if (isExpiredSessionError(error)) onLeave(true);
        else if (error.code === 'weak_password')
          problemToast(labels, { title: 'weakTitle', description: 'weakDescription' });
        else problemToast(labels, { title: 'updateFailedTitle', text: error.message });
        return;
      }
      queueToast({ title: labels.passwordUpdatedTitle, description: labels.passwordUpdatedDescription });
      location.assign('/dashboard');
    } catch (err) {
      console.error('Password update failed:', err);
      problemToast(labels, { title: 'updateFailedTitle', text: labels.unexpectedDescription });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="reset-heading">
      <div>
        <h2 id="reset-heading" className="text-xl font-semibold text-white">
          {labels.resetHeading}
        </h2>
        <p className="mt-1 text-sm text-muted">{labels.resetLead}</p>
      </div>
      <div>
        <Field
          id="reset-password"
          label={labels.newPassword}
          type="password"
          autoComplete="new-password"
          required
          maxLength={72}
          aria-describedby={showRules ? 'reset-password-rules' : undefined}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          onFocus={() => setShowRules(true)}
          onBlur={() => setShowRules(false)}
        />
        {/* The space stays reserved, so buttons below do not move while a click blurs the field. */}
        <div className={showRules ? undefined : 'invisible'}>
          <PasswordChecklist id="reset-password-rules" password={password} labels={passwordLabels} />
        </div>
      </div>
      <Field
        id="reset-confirm"
        label={labels.confirmPassword}
        type="password"
        autoComplete="new-password"
        required
        maxLength={72}
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" className="w-full" disabled={busy || !passwordMeetsRules(password)}>
        {busy ? labels.updating : labels.updatePassword}
      </Button>
      <Button variant="ghost" className="w-full" onClick={() => onLeave(false)}>
        {labels.cancel}
      </Button>
    </form>
  );
}
