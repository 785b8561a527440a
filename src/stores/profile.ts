// The signed-in member's profile row, read once per page and shared by the sidebar, the dashboard and the
// settings form; reloaded after a successful update. Only island pages import this (it loads supabase-js).
import { atom } from 'nanostores';
import type { Tables } from '../../supabase/database.types.ts';
import type { ProfileNames } from '../lib/profile.ts';
import { supabase } from './supabase.ts';

export type ProfileState =
  | { status: 'idle' }
  | { status: 'loading'; userId: string; profile?: Tables<'profiles'> }
  | { status: 'loaded'; userId: string; profile: Tables<'profiles'> }
  | { status: 'error'; userId: string; profile?: Tables<'profiles'> };

export const $profile = atom<ProfileState>({ status: 'idle' });

/** True while an update is on its way (the settings form is busy then too). */
export const $profileSaving = atom(false);

/** Reads the member's row (RLS limits it to their own); `force` reads again even when already loaded. */
export async function loadProfile(userId: string, force = false): Promise<void> {
  const current = $profile.get();
  if (!force && current.status !== 'idle' && current.userId === userId && current.status !== 'error') return;
  const previous = current.status !== 'idle' && current.userId === userId ? current.profile : undefined;
  $profile.set({ status: 'loading', userId, profile: previous });
  try {
    const { data, error } = await supabase().from('profiles').select('*').eq('user_id', userId).single();
    if (error) throw error;
    $profile.set({ status: 'loaded', userId, profile: data });
  } catch (err) {
    console.error('Profile load failed:', err);
    $profile.set({ status: 'error', userId, profile: previous });
  }
}

export type SaveResult = 'saved' | 'failed' | 'unexpected';

/** Updates the two names the member may change, then reads the row again. */
export async function saveProfileNames(userId: string, names: ProfileNames): Promise<SaveResult> {
  $profileSaving.set(true);
  try {
    const { error } = await supabase()
      .from('profiles')
      .update({ first_name: names.first_name, last_name: names.last_name })
      .eq('user_id', userId);
    if (error) {
      console.error('Profile update failed:', error);
      return 'failed';
    }
    await loadProfile(userId, true);
    return 'saved';
  } catch (err) {
    console.error('Profile update failed unexpectedly:', err);
    return 'unexpected';
  } finally {
    $profileSaving.set(false);
  }
}

/** Forgets the row, e.g. after sign-out. */
export function clearProfile(): void {
  $profile.set({ status: 'idle' });
}
