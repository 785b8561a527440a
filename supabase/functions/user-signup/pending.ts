// Unconfirmed accounts at an address, found in Postgres and deleted through the auth service's admin API
// (service role). Nobody has proven owning an unconfirmed address, and the auth service keeps the first
// registrant's password when the same address signs up again (GoTrue: "do not update the user because we can't
// be sure of their claimed identity"). So whoever signed an address up first would hold the account once its
// owner clicks the confirmation link. user-signup removes such an account before signing the address up afresh.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { type Env, requireEnv } from '../_shared/env.ts';

export interface PendingAccounts {
  /** Deletes the unconfirmed account registered at `email`, if there is one; says whether it did. */
  removeUnconfirmed(email: string): Promise<boolean>;
}

/** How long one call may take before the sign-up gives up (the visitor sees an error). */
const TIMEOUT_MS = 10_000;

/**
 * The account is found by its exact address in Postgres (public.pending_signup_user_id, service_role only),
 * not through the admin list: that list's filter also matches the user_metadata.full_name any sign-up may set,
 * and answers one page, so decoys named after the address could hide the account. The deletion itself goes
 * through the auth service's admin API, as any deletion of a user does.
 */
export function pendingAccounts(env: Env): PendingAccounts {
  let admin: SupabaseClient<Database> | undefined;
  return {
    async removeUnconfirmed(email) {
      admin ??= createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        global: { fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) }) },
      });
      const { data, error } = await admin.rpc('pending_signup_user_id', { address: email });
      if (error) throw new Error(`pending_signup_user_id: ${error.code ?? ''} ${error.message}`.trim());
      if (typeof data !== 'string') return false;
      const removed = await admin.auth.admin.deleteUser(data);
      // 404: gone already (a sign-up of the same address at the same moment removed it first).
      if (removed.error && removed.error.status !== 404) {
        throw new Error(`auth admin delete answered ${removed.error.status}`);
      }
      return !removed.error;
    },
  };
}
