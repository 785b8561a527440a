import type { CardContent, MemberFrame } from '../lib/member-content.ts';
import { supabase } from '../stores/supabase.ts';
import type { PasswordChecklistLabels } from './auth/labels.ts';
import ComingSoonCards from './member/ComingSoonCards.tsx';
import MemberShell from './member/MemberShell.tsx';
import type { SettingsLabels } from './settings/labels.ts';
import NotificationPreferences from './settings/NotificationPreferences.tsx';
import SettingsDataRights from './settings/SettingsDataRights.tsx';
import SettingsDevices from './settings/SettingsDevices.tsx';
import SettingsPassword from './settings/SettingsPassword.tsx';
import SettingsProfileForm from './settings/SettingsProfileForm.tsx';
import SettingsTwoFactor from './settings/SettingsTwoFactor.tsx';

interface Props {
  frame: MemberFrame;
  labels: SettingsLabels;
  checklist: PasswordChecklistLabels;
  panels: { heading: string; cards: CardContent[] };
}

/**
 * /settings: Profile Settings, Notification Preferences (email alerts), Security Settings (Change password;
 * two-factor authentication; sign out of other devices), Your data (Download my data, Delete my account), more
 * panels.
 */
export default function Settings({ frame, labels, checklist, panels }: Props) {
  return (
    <MemberShell frame={frame}>
      {(user) => (
        <>
          <SettingsProfileForm userId={user.id} email={user.email ?? ''} labels={labels} />
          <NotificationPreferences userId={user.id} labels={labels} from={supabase().from} />
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
