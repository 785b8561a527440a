import { useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import { signOutOtherDevices } from '../../stores/sign-out-others.ts';
import { toast } from '../../stores/toasts.ts';
import type { SettingsLabels } from './labels.ts';

interface Props {
  labels: SettingsLabels;
}

/**
 * Other devices: signs out every other browser and device of the member (their refresh tokens are revoked),
 * keeping this one signed in; the toast says how it went. The header's Sign Out signs out this browser only.
 */
export default function SettingsDevices({ labels }: Props) {
  const [busy, setBusy] = useState(false);

  const onClick = async () => {
    setBusy(true);
    try {
      if (await signOutOtherDevices()) toast({ title: labels.devicesDoneTitle, description: labels.devicesDone });
      else toast({ title: labels.devicesFailedTitle, description: labels.devicesFailed, variant: 'destructive' });
    } catch (err) {
      console.error('Signing out other devices failed:', err);
      toast({ title: labels.devicesFailedTitle, description: labels.devicesFailed, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="other-devices" className="grid content-start gap-4">
      <h3 id="other-devices" className="text-xl font-semibold">
        {labels.devicesHeading}
      </h3>
      <p className="text-muted">{labels.devicesText}</p>
      <div>
        <Button variant="outline" onClick={onClick} disabled={busy}>
          {busy ? labels.devicesSigningOut : labels.devicesSignOut}
        </Button>
      </div>
    </section>
  );
}
