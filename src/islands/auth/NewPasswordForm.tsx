import { type FormEvent, useState } from 'react';
import { PASSWORD_MAX_LENGTH, passwordMeetsRules } from '../../../supabase/functions/_shared/password.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { resetProblem } from '../../lib/auth-forms.ts';
import { problemToast } from './auth-toast.ts';
import type { AuthLabels, PasswordChecklistLabels } from './labels.ts';
import PasswordChecklist from './PasswordChecklist.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
  heading: string;
  lead: string;
  /** Saves a password that matched its confirmation and met the rules; the button is busy until it settles. */
  onSave(password: string): Promise<void>;
  onCancel(): void;
}

/**
 * New Password + Confirm New Password with the live checklist, Update Password and Cancel: the reset form, and
 * the form that confirms a new account by setting its password.
 */
export default function NewPasswordForm({ labels, passwordLabels, heading, lead, onSave, onCancel }: Props) {
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
      await onSave(password);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="reset-heading">
      <div>
        <h2 id="reset-heading" className="text-xl font-semibold text-white">
          {heading}
        </h2>
        <p className="mt-1 text-sm text-muted">{lead}</p>
      </div>
      <div>
        <Field
          id="reset-password"
          label={labels.newPassword}
          type="password"
          autoComplete="new-password"
          required
          maxLength={PASSWORD_MAX_LENGTH}
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
        maxLength={PASSWORD_MAX_LENGTH}
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" className="w-full" disabled={busy || !passwordMeetsRules(password)}>
        {busy ? labels.updating : labels.updatePassword}
      </Button>
      <Button variant="ghost" className="w-full" onClick={onCancel}>
        {labels.cancel}
      </Button>
    </form>
  );
}
