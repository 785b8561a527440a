// Confirms a new account and gives its password to whoever confirmed it, in one go: the confirmation mail's
// link (token hash) or code is verified only together with the password the visitor chose, then every other
// session ends. Anyone may sign an address up with a password of their own; the owner who confirms it, by link
// or code, replaces that password a moment later, and a stranger who signed in within that moment is out.
import type { AuthError } from '@supabase/auth-js';
import { chosenPasswordResult, unknownPassword } from '../../lib/auth-forms.ts';
import type { ConfirmProof } from '../../stores/auth-flow.ts';
import { loadSupabase } from '../../stores/supabase-lazy.ts';

export type ConfirmOutcome =
  /** Confirmed; the account has the chosen password and no other session. */
  | { kind: 'done' }
  /** The link or code was refused: nothing changed. */
  | { kind: 'refused'; error: AuthError }
  /** Confirmed, but the chosen password was refused: a password nobody knows holds the account meanwhile. */
  | { kind: 'password'; error: AuthError };

/**
 * Verifies `proof` (skipped when null: this page's session confirmed the address already) and sets
 * `password`. `end` is which sessions end afterwards: 'others' keeps this one (the code step signs in),
 * 'global' ends it too (the link's visitor signs in on the next page).
 */
export async function confirmAccount(
  proof: ConfirmProof | null,
  password: string,
  end: 'others' | 'global',
): Promise<ConfirmOutcome> {
  const { auth } = await loadSupabase();
  if (proof) {
    const { error } = await auth.verifyOtp(
      'tokenHash' in proof
        ? { token_hash: proof.tokenHash, type: 'signup' }
        : { email: proof.email, token: proof.code, type: 'signup' },
    );
    if (error) return { kind: 'refused', error };
  }
  // The session from the link or code may set a password without the old one (GoTrue's recovery exemption).
  const { error } = await auth.updateUser({ password });
  if (chosenPasswordResult(error) !== 'set' && error) {
    // Whatever the sign-up stored must not outlive a refused choice: a random password replaces it.
    await auth.updateUser({ password: unknownPassword() }).catch(() => {});
    return { kind: 'password', error };
  }
  // A new password already ends the other sessions; 'same_password' changes nothing, so end them here.
  await auth.signOut({ scope: end }).catch(() => {});
  return { kind: 'done' };
}
