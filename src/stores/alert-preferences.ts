// The member's email alert preferences on /settings (Notification Preferences): read once, saved as an upsert of
// their row in public.alert_preferences (RLS limits a member to their own, at the level their factors require).
// Reads and writes go through the `from` it is handed (the browser client's, under the member's session), so the
// unit tests drive a real postgrest-js client over a fake HTTP answer. No row means alerts off (docs/alerts.md).
import type { PostgrestClient } from '@supabase/postgrest-js';
import { atom } from 'nanostores';
import type { Database } from '../../supabase/database.types.ts';

export const ALERT_TIERS = ['foundation', 'growth', 'momentum'] as const;
export type AlertTier = (typeof ALERT_TIERS)[number];
/** new_signal: a signal issued; tp_hit: TP1, TP2 or TP3 hit; sl_hit: the stop loss hit. */
export const ALERT_EVENTS = ['new_signal', 'tp_hit', 'sl_hit'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export interface AlertPreferences {
  emailEnabled: boolean;
  tiers: AlertTier[];
  events: AlertEvent[];
}

/** What a member who never saved has: alerts off; all tiers and events ticked, ready for the day they turn it on. */
export const DEFAULT_ALERT_PREFERENCES: AlertPreferences = {
  emailEnabled: false,
  tiers: [...ALERT_TIERS],
  events: [...ALERT_EVENTS],
};

/** A fresh copy of the defaults (the panel changes its arrays). */
const defaults = (): AlertPreferences => ({
  ...DEFAULT_ALERT_PREFERENCES,
  tiers: [...DEFAULT_ALERT_PREFERENCES.tiers],
  events: [...DEFAULT_ALERT_PREFERENCES.events],
});

export type AlertPreferencesState =
  | { status: 'idle' | 'loading'; prefs: AlertPreferences }
  /** `stored`: the member has a row (false: the defaults are shown). */
  | { status: 'loaded'; prefs: AlertPreferences; stored: boolean }
  | { status: 'error'; prefs: AlertPreferences };

/** Why a save did not happen: alerts on with no tier or no event chosen, or the database refused or failed. */
export type SaveOutcome = 'saved' | 'needTier' | 'needEvent' | 'failed';

export interface AlertPreferencesDeps {
  from: PostgrestClient<Database>['from'];
}

const COLUMNS = 'email_enabled, tiers, events';

/** Keeps the known values, once each, in the panel's order. */
function ordered<T extends string>(all: readonly T[], values: readonly string[]): T[] {
  return all.filter((v) => values.includes(v));
}

/** The preferences a stored row (or none) stands for. */
export function preferencesOf(
  row: { email_enabled: boolean; tiers: string[]; events: string[] } | null | undefined,
): AlertPreferences {
  if (!row) return defaults();
  return {
    emailEnabled: row.email_enabled,
    tiers: ordered(ALERT_TIERS, row.tiers),
    events: ordered(ALERT_EVENTS, row.events),
  };
}

/** Alerts on need at least one tier and one event, or nothing would ever be sent; off, anything goes. */
export function checkAlertPreferences(prefs: AlertPreferences): 'ok' | 'needTier' | 'needEvent' {
  if (!prefs.emailEnabled) return 'ok';
  if (prefs.tiers.length === 0) return 'needTier';
  if (prefs.events.length === 0) return 'needEvent';
  return 'ok';
}

export function createAlertPreferences(deps: AlertPreferencesDeps) {
  const $state = atom<AlertPreferencesState>({ status: 'idle', prefs: defaults() });
  const $saving = atom(false);

  /** Reads the member's row; a failed read keeps what was shown and says so (status error). */
  async function load(userId: string): Promise<void> {
    const previous = $state.get().prefs;
    $state.set({ status: 'loading', prefs: previous });
    try {
      const { data, error } = await deps.from('alert_preferences').select(COLUMNS).eq('user_id', userId).maybeSingle();
      if (error) throw error;
      $state.set({ status: 'loaded', prefs: preferencesOf(data), stored: data !== null });
    } catch (err) {
      console.error('Alert preferences load failed:', err);
      $state.set({ status: 'error', prefs: previous });
    }
  }

  /** Saves `prefs` as the member's row (insert or update) and shows what the database stored. */
  async function save(userId: string, prefs: AlertPreferences): Promise<SaveOutcome> {
    const check = checkAlertPreferences(prefs);
    if (check !== 'ok') return check;
    $saving.set(true);
    try {
      const { data, error } = await deps
        .from('alert_preferences')
        .upsert(
          {
            user_id: userId,
            email_enabled: prefs.emailEnabled,
            tiers: ordered(ALERT_TIERS, prefs.tiers),
            events: ordered(ALERT_EVENTS, prefs.events),
          },
          { onConflict: 'user_id' },
        )
        .select(COLUMNS)
        .single();
      if (error || !data) {
        console.error('Alert preferences save failed:', error);
        return 'failed';
      }
      $state.set({ status: 'loaded', prefs: preferencesOf(data), stored: true });
      return 'saved';
    } catch (err) {
      console.error('Alert preferences save failed unexpectedly:', err);
      return 'failed';
    } finally {
      $saving.set(false);
    }
  }

  return { $state, $saving, load, save };
}

export type AlertPreferencesStore = ReturnType<typeof createAlertPreferences>;
