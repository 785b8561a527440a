// The /auth flow's deps in the browser: the site's supabase-js client (loaded when a step needs the auth server),
// the address bar and the toasts.
import { type AuthMode, tabHref } from '../lib/auth-forms.ts';
import { needsSecondFactor } from '../lib/mfa.ts';
import { SUPABASE_KEY } from './api-key.ts';
import { readStoredSession, SUPABASE_URL } from './auth.ts';
import type { Account, AuthFlowDeps } from './auth-flow.ts';
import { loadSupabase } from './supabase-lazy.ts';
import { queueToast, toast } from './toasts.ts';

/**
 * The account a link's access token belongs to (GET /auth/v1/user); null when the service refuses it. A plain
 * request, not auth.getUser(token): that drops the stored session when the answer is session_not_found, and a
 * stale link must not sign the member out.
 */
async function linkAccount(accessToken: string): Promise<Account | null> {
  try {
    const res = await fetch(`${SUPABASE_URL.replace(/\/+$/, '')}/auth/v1/user`, {
      headers: { apikey: SUPABASE_KEY, Authorization: `Bearer ${accessToken}` },
    });
    if (!res.ok) return null;
    const user = (await res.json()) as { id?: unknown; email?: unknown };
    if (typeof user.id !== 'string') return null;
    return { id: user.id, email: typeof user.email === 'string' ? user.email : '' };
  } catch {
    return null;
  }
}

export function browserAuthDeps(): AuthFlowDeps {
  const auth = async () => (await loadSupabase()).auth;
  return {
    async signedIn() {
      // What storage holds says "nobody" as getSession() would (nothing stored, or a session that has expired with no
      // refresh token), without loading supabase-js for it.
      if (readStoredSession().status === 'signed-out') return null;
      const user = (await (await auth()).getSession()).data.session?.user;
      return user ? { id: user.id, email: user.email ?? '' } : null;
    },
    linkAccount,
    async setSession(tokens) {
      const { data, error } = await (await auth()).setSession(tokens);
      return error ? null : { userId: data.user?.id };
    },
    async exchangeCode(code) {
      return !(await (await auth()).exchangeCodeForSession(code)).error;
    },
    async owesSecondFactor() {
      return needsSecondFactor((await (await auth()).mfa.getAuthenticatorAssuranceLevel()).data);
    },
    async signOutLocal() {
      await auth()
        .then((client) => client.signOut({ scope: 'local' }))
        .catch(() => {});
    },
    showUrl: (mode: AuthMode) => history.replaceState(history.state, '', tabHref(mode)),
    toast,
    queueToast: (input) => queueToast(input),
    leave: (path) => location.replace(path),
  };
}
