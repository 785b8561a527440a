// Profile rules shared by the sidebar and the settings form: names are trimmed before saving (no other
// rule but the 100-character input limit), the full name and the member-since date as shown.
import type { Tables, TablesUpdate } from '../../supabase/database.types.ts';

export const NAME_MAX_LENGTH = 100;

/** The names a member may change, as an update of their row sends them (trimmed, never null). */
export type ProfileNames = { [K in 'first_name' | 'last_name']-?: NonNullable<TablesUpdate<'profiles'>[K]> };

export type NamesResult = { ok: true; names: ProfileNames } | { ok: false; field: keyof ProfileNames };

/** The update payload from what was typed: both names trimmed; a name past the limit names its field. */
export function profileNames(firstName: string, lastName: string): NamesResult {
  const names = { first_name: firstName.trim(), last_name: lastName.trim() };
  if ([...names.first_name].length > NAME_MAX_LENGTH) return { ok: false, field: 'first_name' };
  if ([...names.last_name].length > NAME_MAX_LENGTH) return { ok: false, field: 'last_name' };
  return { ok: true, names };
}

/** "First Last", either part left out when blank; '' when both are. */
export function fullName(profile: Pick<Tables<'profiles'>, 'first_name' | 'last_name'>): string {
  return [profile.first_name, profile.last_name]
    .map((part) => part?.trim() ?? '')
    .filter(Boolean)
    .join(' ');
}

/** The member-since date, e.g. "22 November 2026" (British order); '' for an unreadable timestamp. */
export function memberSince(createdAt: string, timeZone?: string): string {
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime())) return '';
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone }).format(date);
}
