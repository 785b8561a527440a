// The one browser Supabase client. Only pages with an island that needs it import this module (pages
// without islands read the stored session in auth.ts and load this on demand, e.g. when Sign Out is pressed).
//
// It is composed from the supabase-js packages the site uses in the browser (auth, tables) exactly as
// createClient() wires them: the same storage key, headers and access-token fetch. createClient() would also
// construct the Functions, Realtime and Storage clients: the forms and islands call Edge Functions with plain fetch
// (invokeFunction, src/lib/functions.ts), and only /dashboard's feed needs Realtime, whose client it builds alone
// (src/stores/signal-live-browser.ts), so the signed-in pages stay within their 130 KB budget.
import { type AuthChangeEvent, AuthClient, type GoTrueClient, type Session } from '@supabase/auth-js';
import { PostgrestClient } from '@supabase/postgrest-js';
import type { Database } from '../../supabase/database.types.ts';
import { SUPABASE_KEY } from './api-key.ts';
import { $auth, type AuthState, markClientOwnsAuth, SUPABASE_URL, sessionStorageKey } from './auth.ts';

export interface BrowserClient {
  auth: GoTrueClient;
  /** Tables and functions typed by the schema the migrations make (supabase/database.types.ts). */
  from: PostgrestClient<Database>['from'];
}

let client: BrowserClient | undefined;

/**
 * $auth from what supabase-js reports: an auth event and the session it carries. Kept here, beside the
 * client, rather than in auth.ts: every page loads auth.ts, only pages that run supabase-js need this.
 */
export function authFromSession(event: AuthChangeEvent, session: Session | null): AuthState {
  const user = session?.user ?? null;
  return {
    status: session ? 'signed-in' : 'signed-out',
    ...(user?.email ? { email: user.email } : {}),
    session,
    user,
    event,
  };
}

/** supabase-js's fetchWithAuth: the API key, and the member's access token as the bearer when signed in. */
function fetchWithAuth(auth: GoTrueClient): typeof fetch {
  return async (input, init) => {
    const { data } = await auth.getSession();
    const headers = new Headers(init?.headers);
    if (!headers.has('apikey')) headers.set('apikey', SUPABASE_KEY);
    const bearer = data.session?.access_token ?? SUPABASE_KEY;
    if (!headers.has('Authorization')) headers.set('Authorization', `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
}

/** The client, created on first use; from then on supabase-js's auth events feed $auth. */
export function supabase(): BrowserClient {
  if (client) return client;
  const base = SUPABASE_URL.replace(/\/+$/, '');
  const auth = new AuthClient({
    url: `${base}/auth/v1`,
    headers: { Authorization: `Bearer ${SUPABASE_KEY}`, apikey: SUPABASE_KEY },
    storageKey: sessionStorageKey(SUPABASE_URL),
    autoRefreshToken: true,
    persistSession: true,
    // The /auth page exchanges a reset code or sets hash tokens itself, so it can say when a link has expired.
    detectSessionInUrl: false,
    flowType: 'implicit',
  });
  const rest = new PostgrestClient<Database>(`${base}/rest/v1`, { fetch: fetchWithAuth(auth) });
  client = { auth, from: rest.from.bind(rest) };
  markClientOwnsAuth();
  auth.onAuthStateChange((event, session) => {
    $auth.set(authFromSession(event, session));
  });
  return client;
}
