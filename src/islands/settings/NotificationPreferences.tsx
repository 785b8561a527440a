import { useStore } from '@nanostores/preact';
import { type SubmitEvent, useEffect, useMemo, useState } from 'react';
import Button from '../../components/ui/Button.tsx';
import {
  ALERT_EVENTS,
  ALERT_TIERS,
  type AlertEvent,
  type AlertPreferences,
  type AlertPreferencesDeps,
  type AlertTier,
  createAlertPreferences,
} from '../../stores/alert-preferences.ts';
import { toast } from '../../stores/toasts.ts';
import type { SettingsLabels } from './labels.ts';

interface Props {
  userId: string;
  labels: SettingsLabels;
  /** The table reader (the browser client's `from`, under the member's session). */
  from: AlertPreferencesDeps['from'];
}

const TIER_LABEL: Record<AlertTier, keyof SettingsLabels> = {
  foundation: 'alertsTierFoundation',
  growth: 'alertsTierGrowth',
  momentum: 'alertsTierMomentum',
};
const EVENT_LABEL: Record<AlertEvent, keyof SettingsLabels> = {
  new_signal: 'alertsEventNewSignal',
  tp_hit: 'alertsEventTakeProfit',
  sl_hit: 'alertsEventStop',
};

const toggled = <T,>(list: T[], value: T, on: boolean) =>
  on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value);

/**
 * Notification Preferences: email alerts on or off, which tiers, which events; Save stores them (an upsert of the
 * member's row) and a toast says how it went. The form keeps its shape while loading and saving (disabled), so
 * nothing moves when the stored values arrive. Opened from an alert's unsubscribe link (`?alerts=off`), a toast
 * says that the link turned alerts off.
 */
export default function NotificationPreferences({ userId, labels, from }: Props) {
  const store = useMemo(() => createAlertPreferences({ from }), [from]);
  const state = useStore(store.$state);
  const saving = useStore(store.$saving);
  const [prefs, setPrefs] = useState<AlertPreferences>(state.prefs);
  const busy = saving || state.status === 'idle' || state.status === 'loading';

  useEffect(() => {
    void store.load(userId);
  }, [store, userId]);

  // The fields follow what is stored: on load and after a save.
  useEffect(() => {
    if (state.status === 'loaded') setPrefs(state.prefs);
    if (state.status === 'error') {
      toast({ title: labels.errorTitle, description: labels.alertsLoadFailed, variant: 'destructive' });
    }
  }, [state, labels]);

  useEffect(() => {
    if (new URLSearchParams(window.location.search).get('alerts') === 'off') {
      toast({ title: labels.alertsHeading, description: labels.alertsOffByLink });
      // Said once: a reload or a bookmark of this address does not say it again.
      history.replaceState(history.state, '', `${window.location.pathname}${window.location.hash}`);
    }
  }, [labels]);

  const onSubmit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy || state.status === 'error') return;
    const outcome = await store.save(userId, prefs);
    if (outcome === 'saved') {
      toast({ title: labels.alertsHeading, description: labels.alertsSaved });
      return;
    }
    const description = outcome === 'failed' ? labels.alertsFailed : labels.alertsNeedChoice;
    toast({ title: labels.errorTitle, description, variant: 'destructive' });
  };

  const disabled = busy || state.status === 'error';
  return (
    <section
      id="notification-preferences"
      aria-labelledby="notification-preferences-heading"
      className="mt-10 scroll-mt-24 rounded-2xl border border-navy-700 bg-navy-900 p-6"
    >
      <h2 id="notification-preferences-heading" className="text-2xl font-semibold">
        {labels.alertsHeading}
      </h2>
      <form onSubmit={onSubmit} aria-busy={busy} className="mt-6 grid gap-6">
        <div>
          <label htmlFor="alerts-email" className="flex min-h-12 cursor-pointer items-center gap-3 font-semibold">
            <input
              id="alerts-email"
              type="checkbox"
              className="size-5 shrink-0 accent-accent"
              checked={prefs.emailEnabled}
              onChange={(e) => setPrefs({ ...prefs, emailEnabled: e.target.checked })}
              disabled={disabled}
              aria-describedby="alerts-email-hint"
            />
            {labels.alertsEmail}
          </label>
          <p id="alerts-email-hint" className="text-sm text-muted">
            {labels.alertsEmailHint}
          </p>
        </div>
        <div className="grid gap-6 sm:grid-cols-2">
          <fieldset className="grid gap-1" disabled={disabled}>
            <legend className="mb-2 font-semibold">{labels.alertsTiers}</legend>
            {ALERT_TIERS.map((tier) => (
              <label key={tier} className="flex min-h-11 cursor-pointer items-center gap-3">
                <input
                  type="checkbox"
                  name="tiers"
                  value={tier}
                  className="size-5 shrink-0 accent-accent"
                  checked={prefs.tiers.includes(tier)}
                  onChange={(e) => setPrefs({ ...prefs, tiers: toggled(prefs.tiers, tier, e.target.checked) })}
                />
                {labels[TIER_LABEL[tier]]}
              </label>
            ))}
          </fieldset>
          <fieldset className="grid gap-1" disabled={disabled}>
            <legend className="mb-2 font-semibold">{labels.alertsEvents}</legend>
            {ALERT_EVENTS.map((kind) => (
              <label key={kind} className="flex min-h-11 cursor-pointer items-center gap-3">
                <input
                  type="checkbox"
                  name="events"
                  value={kind}
                  className="size-5 shrink-0 accent-accent"
                  checked={prefs.events.includes(kind)}
                  onChange={(e) => setPrefs({ ...prefs, events: toggled(prefs.events, kind, e.target.checked) })}
                />
                {labels[EVENT_LABEL[kind]]}
              </label>
            ))}
          </fieldset>
        </div>
        <div>
          <Button type="submit" disabled={disabled}>
            {saving ? labels.saving : labels.alertsSave}
          </Button>
        </div>
      </form>
    </section>
  );
}
