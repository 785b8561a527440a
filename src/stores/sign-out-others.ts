// "Sign out of other devices" in Settings: ends every session of the member but this browser's. The header's
// and sidebar's Sign Out (sign-out.ts) end this browser's only.
import { supabase } from './supabase.ts';

/**
 * Revokes the member's other sessions (`signOut({ scope: 'others' })`); true when the auth service did.
 * Their refresh tokens die at once; access tokens already handed out stay valid until they expire.
 */
export async function signOutOtherDevices(): Promise<boolean> {
  const auth = supabase().auth;
  // supabase-js answers no error when there is no session to send: that revoked nothing.
  const { data } = await auth.getSession();
  if (!data.session) return false;
  const { error } = await auth.signOut({ scope: 'others' });
  if (error) console.error('Signing out other devices failed:', error);
  return !error;
}
