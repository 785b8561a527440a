import type { CardContent, MemberFrame } from '../lib/member-content.ts';
import type { PasswordChecklistLabels } from './auth/PasswordChecklist.tsx';
import ComingSoonCards from './member/ComingSoonCards.tsx';
import MemberShell from './member/MemberShell.tsx';
import SettingsDataRights from './settings/SettingsDataRights.tsx';
import SettingsDevices from './settings/SettingsDevices.tsx';
import SettingsPassword from './settings/SettingsPassword.tsx';
import SettingsProfileForm from './settings/SettingsProfileForm.tsx';
import SettingsTwoFactor from './settings/SettingsTwoFactor.tsx';

export const settingsLabelKeys = [
  'profileHeading',
  'firstName',
  'lastName',
  'email',
  'emailHint',
  'save',
  'saving',
  'errorTitle',
  'loadFailed',
  'updateFailed',
  'unexpected',
  'nameTooLong',
  'successTitle',
  'success',
  'securityHeading',
  'passwordHeading',
  'currentPassword',
  'newPassword',
  'confirmPassword',
  'updatePassword',
  'updatingPassword',
  'mismatchTitle',
  'mismatch',
  'weakTitle',
  'weak',
  'passwordUpdatedTitle',
  'passwordUpdated',
  'passwordFailedTitle',
  'samePassword',
  'currentPasswordWrongTitle',
  'currentPasswordWrong',
  'reauthenticate',
  'sessionExpired',
  'twoFactorHeading',
  'twoFactorLoading',
  'twoFactorText',
  'twoFactorSetup',
  'twoFactorStarting',
  'twoFactorPassword',
  'twoFactorPasswordText',
  'twoFactorContinue',
  'twoFactorPasswordWrong',
  'twoFactorSetupHeading',
  'twoFactorScan',
  'twoFactorQrAlt',
  'twoFactorSecret',
  'twoFactorCopy',
  'twoFactorCopied',
  'twoFactorCode',
  'twoFactorHint',
  'twoFactorConfirm',
  'twoFactorChecking',
  'twoFactorFormat',
  'twoFactorWrong',
  'twoFactorFailed',
  'twoFactorEnabledTitle',
  'twoFactorEnabled',
  'twoFactorOn',
  'twoFactorListLabel',
  'twoFactorApp',
  'twoFactorRemove',
  'twoFactorRemoveHeading',
  'twoFactorRemoveText',
  'twoFactorRemoveConfirm',
  'twoFactorRemoving',
  'twoFactorRemovedTitle',
  'twoFactorRemoved',
  'devicesHeading',
  'devicesText',
  'devicesSignOut',
  'devicesSigningOut',
  'devicesDoneTitle',
  'devicesDone',
  'devicesFailedTitle',
  'devicesFailed',
  'dataHeading',
  'dataText',
  'privacyLink',
  'downloadHeading',
  'downloadText',
  'download',
  'downloading',
  'downloadedTitle',
  'downloaded',
  'downloadFailedTitle',
  'deleteHeading',
  'deleteText',
  'deleteOpen',
  'deleteDialogTitle',
  'deleteWhat',
  'deleteKept',
  'deletePassword',
  'deleteCode',
  'deleteConfirm',
  'deleting',
  'cancel',
  'deletedTitle',
  'deleted',
] as const;

export type SettingsLabels = Record<(typeof settingsLabelKeys)[number], string>;

interface Props {
  frame: MemberFrame;
  labels: SettingsLabels;
  checklist: PasswordChecklistLabels;
  panels: { heading: string; cards: CardContent[] };
}

/**
 * /settings: Profile Settings, Security Settings (Change password; two-factor authentication; sign out of
 * other devices), Your data (Download my data, Delete my account), more panels.
 */
export default function Settings({ frame, labels, checklist, panels }: Props) {
  return (
    <MemberShell frame={frame}>
      {(user) => (
        <>
          <SettingsProfileForm userId={user.id} email={user.email ?? ''} labels={labels} />
          <section
            aria-labelledby="security-settings"
            className="mt-10 rounded-2xl border border-navy-700 bg-navy-900 p-6"
          >
            <h2 id="security-settings" className="text-2xl font-semibold">
              {labels.securityHeading}
            </h2>
            <div className="mt-6 grid gap-8 lg:grid-cols-2">
              <SettingsPassword email={user.email ?? ''} labels={labels} checklist={checklist} />
              <SettingsTwoFactor email={user.email ?? ''} labels={labels} />
              <SettingsDevices labels={labels} />
            </div>
          </section>
          <SettingsDataRights labels={labels} />
          <ComingSoonCards heading={panels.heading} cards={panels.cards} />
        </>
      )}
    </MemberShell>
  );
}
