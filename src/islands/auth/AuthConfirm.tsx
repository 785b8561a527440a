import { useRef } from 'react';
import { CONFIRM_LINK_EXPIRED, CONFIRMED_PAGE, chosenPasswordResult, codeFailure } from '../../lib/auth-forms.ts';
import type { ConfirmTarget } from '../../stores/auth-flow.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';
import { queueToast } from '../../stores/toasts.ts';
import { problemToast } from './auth-toast.ts';
import { confirmAccount } from './confirm-account.ts';
import type { AuthLabels, PasswordChecklistLabels } from './labels.ts';
import NewPasswordForm from './NewPasswordForm.tsx';

interface Props {
  labels: AuthLabels;
  passwordLabels: PasswordChecklistLabels;
  target: ConfirmTarget;
  /** The code was refused: back to the code step with what to say, keeping the password for the next code. */
  onCodeRefused(message: string, password: string): void;
  /** Back to the tabs (Cancel, or a session that is gone). */
  onLeave(): void;
}

/**
 * Choose your password: the form the confirmation mail's link opens (and the code step's, when this page
 * does not know the password chosen at sign-up). Saving verifies the link or code and sets the password in
 * one go, so opening the link (a mail scanner's GET, or the page loading) confirms nothing. The link ends on
 * the 'Account verified' page, signed out, where the member signs in; the code on /dashboard, signed in.
 */
export default function AuthConfirm({ labels, passwordLabels, target, onCodeRefused, onLeave }: Props) {
  // Set once the link or code has been used: a second try only sets the password.
  const confirmed = useRef(target.proof === null);

  async function save(password: string) {
    try {
      const outcome = await confirmAccount(
        confirmed.current ? null : target.proof,
        password,
        target.via === 'link' ? 'global' : 'others',
      );
      if (outcome.kind === 'refused') {
        const failure = codeFailure(outcome.error);
        if (target.via === 'code') onCodeRefused(failure.text ?? labels[failure.label ?? 'codeFailed'], password);
        else if (failure.label === 'codeWrong') location.replace(CONFIRM_LINK_EXPIRED);
        else problemToast(labels, { title: 'updateFailedTitle', text: outcome.error.message });
        return;
      }
      if (outcome.kind === 'password') {
        confirmed.current = true;
        const result = chosenPasswordResult(outcome.error);
        if (result === 'expired') {
          problemToast(labels, { title: 'linkExpiredTitle', description: 'linkExpiredDescription' });
          onLeave();
        } else if (result !== 'set') problemToast(labels, result);
        return;
      }
      if (target.via === 'link') {
        location.replace(CONFIRMED_PAGE);
        return;
      }
      queueToast({ title: labels.confirmedTitle });
      location.assign('/dashboard');
    } catch (err) {
      console.error('Confirmation failed:', err);
      problemToast(labels, { title: 'updateFailedTitle', text: labels.unexpectedDescription });
    }
  }

  async function cancel() {
    // A confirmed address whose chosen password was refused holds a random one: its session goes too.
    if (confirmed.current) {
      await loadSupabase()
        .then(({ auth }) => auth.signOut({ scope: 'global' }))
        .catch(() => {});
    }
    onLeave();
  }

  return (
    <NewPasswordForm
      labels={labels}
      passwordLabels={passwordLabels}
      heading={labels.chooseHeading}
      lead={labels.chooseLead}
      onSave={save}
      onCancel={cancel}
    />
  );
}
