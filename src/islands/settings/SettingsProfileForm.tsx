import { useStore } from '@nanostores/preact';
import { type SubmitEvent, useEffect, useState } from 'react';
import { LIMITS } from '../../../supabase/functions/_shared/form-rules.ts';
import Button from '../../components/ui/Button.tsx';
import Field from '../../components/ui/Field.tsx';
import { profileNames } from '../../lib/profile.ts';
import { $profile, $profileSaving, saveProfileNames } from '../../stores/profile.ts';
import { toast } from '../../stores/toasts.ts';
import type { SettingsLabels } from './labels.ts';

interface Props {
  userId: string;
  email: string;
  labels: SettingsLabels;
}

/** Profile Settings: first and last name (trimmed when saved), the email read-only. */
export default function SettingsProfileForm({ userId, email, labels }: Props) {
  const state = useStore($profile);
  const saving = useStore($profileSaving);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const busy = saving || state.status === 'loading' || state.status === 'idle';
  const profile = state.status === 'loaded' ? state.profile : undefined;
  // Names that could not be read are not offered for editing: saving blanks would overwrite the real ones.
  const disabled = busy || !profile;

  // The fields follow the stored row: on first load and again after an update.
  useEffect(() => {
    if (!profile) return;
    setFirstName(profile.first_name ?? '');
    setLastName(profile.last_name ?? '');
  }, [profile]);

  useEffect(() => {
    if (state.status === 'error') {
      toast({ title: labels.errorTitle, description: labels.loadFailed, variant: 'destructive' });
    }
  }, [state.status, labels]);

  const onSubmit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (disabled) return;
    const checked = profileNames(firstName, lastName);
    if (!checked.ok) {
      toast({ title: labels.errorTitle, description: labels.nameTooLong, variant: 'destructive' });
      return;
    }
    const result = await saveProfileNames(userId, checked.names);
    if (result === 'saved') toast({ title: labels.successTitle, description: labels.success });
    else {
      const description = result === 'failed' ? labels.updateFailed : labels.unexpected;
      toast({ title: labels.errorTitle, description, variant: 'destructive' });
    }
  };

  return (
    <section aria-labelledby="profile-settings" className="mt-10 rounded-2xl border border-navy-700 bg-navy-900 p-6">
      <h2 id="profile-settings" className="text-2xl font-semibold">
        {labels.profileHeading}
      </h2>
      <form onSubmit={onSubmit} aria-busy={busy} className="mt-6 grid gap-5 sm:grid-cols-2">
        <Field
          id="first-name"
          label={labels.firstName}
          name="first_name"
          autoComplete="given-name"
          maxLength={LIMITS.name}
          value={firstName}
          onChange={(e) => setFirstName(e.target.value)}
          disabled={disabled}
        />
        <Field
          id="last-name"
          label={labels.lastName}
          name="last_name"
          autoComplete="family-name"
          maxLength={LIMITS.name}
          value={lastName}
          onChange={(e) => setLastName(e.target.value)}
          disabled={disabled}
        />
        <Field
          id="profile-email"
          label={labels.email}
          hint={labels.emailHint}
          type="email"
          value={profile?.email ?? email}
          readOnly
          className="sm:col-span-2"
        />
        <div className="sm:col-span-2">
          <Button type="submit" disabled={disabled}>
            {saving ? labels.saving : labels.save}
          </Button>
        </div>
      </form>
    </section>
  );
}
