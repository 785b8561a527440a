import { isExpiredSessionError } from '../../lib/auth-forms.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';
import { queueToast } from '../../stores/toasts.ts';
import { problemToast } from './auth-toast.ts';
import type { AuthLabels, PasswordChecklistLabels } from './labels.ts';
import NewPasswordForm from './NewPasswordForm.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
  /** Back to the tabs: after Cancel, or when the link turns out to have expired. */
  onLeave(expired: boolean): void;
}

/** New Password + Confirm New Password over the recovery session the link started. */
export default function AuthReset({ labels, passwordLabels, onLeave }: Props) {
  async function save(password: string) {
    try {
      const client = await loadSupabase();
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
    }
  }

  return (
    <NewPasswordForm
      labels={labels}
      passwordLabels={passwordLabels}
      heading={labels.resetHeading}
      lead={labels.resetLead}
      onSave={save}
      onCancel={() => onLeave(false)}
    />
  );
}
