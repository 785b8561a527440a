// Unconfirmed accounts at an address, through the auth service's admin API (service role). Nobody has
// proven owning an unconfirmed address, and the auth service keeps the first registrant's password when
// the same address signs up again (GoTrue: "do not update the user because we can't be sure of their
// claimed identity"). So whoever signed an address up first would hold the account once its owner clicks
// the confirmation link. user-signup removes such an account before signing the address up afresh.
import { type Env, requireEnv } from '../_shared/env.ts';

export interface PendingAccounts {
  /** Deletes the unconfirmed account registered at `email`, if there is one; says whether it did. */
  removeUnconfirmed(email: string): Promise<boolean>;
}

interface AdminUser {
  id: string;
  email?: string;
  email_confirmed_at?: string | null;
}

/** How long one admin call may take before the sign-up gives up (the visitor sees an error). */
const TIMEOUT_MS = 10_000;

export function pendingAccounts(env: Env): PendingAccounts {
  async function call(path: string, method: string): Promise<Response> {
    const base = `${requireEnv(env, 'SUPABASE_URL').replace(/\/+$/, '')}/auth/v1/admin/users`;
    const key = requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY');
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { apikey: key, Authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`auth admin ${method} answered ${res.status}`);
    return res;
  }

  return {
    async removeUnconfirmed(email) {
      const target = email.toLowerCase();
      // GoTrue's admin list filters with `email LIKE %filter%` on the stored (lower-case) address, so it
      // may return other addresses too: only the exact one counts.
      const res = await call(`?filter=${encodeURIComponent(target)}&per_page=100`, 'GET');
      const { users } = (await res.json()) as { users?: AdminUser[] };
      const pending = (users ?? []).find((u) => u.email?.toLowerCase() === target && !u.email_confirmed_at);
      if (!pending) return false;
      await call(`/${encodeURIComponent(pending.id)}`, 'DELETE');
      return true;
    },
  };
}
