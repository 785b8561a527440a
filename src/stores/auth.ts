import type { AuthChangeEvent, Session, User } from '@supabase/supabase-js';
import { atom } from 'nanostores';

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out';
export interface AuthState {
  status: AuthStatus;
  email?: string;
  /** Set once supabase-js runs on the page (src/stores/supabase.ts); pages without it read storage only. */
  session?: Session | null;
  user?: User | null;
  /** The last auth event supabase-js reported, e.g. PASSWORD_RECOVERY. */
  event?: AuthChangeEvent;
}

/** Auth state for UI; 'loading' until the stored session has been read in the browser. */
export const $auth = atom<AuthState>({ status: 'loading' });

export const SUPABASE_URL: string = import.meta.env.PUBLIC_SUPABASE_URL || 'http://127.0.0.1:54321';

/** supabase-js's localStorage key for a project URL, e.g. http://127.0.0.1:54321 -> sb-127-auth-token. */
export function sessionStorageKey(url: string = SUPABASE_URL): string {
  return `sb-${new URL(url).hostname.split('.')[0]}-auth-token`;
}

/**
 * Reads the session supabase-js persisted. Signed in when it parses and has not expired. An expired one
 * that carries a refresh token reads as 'loading': only the auth server can say whether the member is still
 * signed in (loadStoredAuth asks it).
 */
export function readStoredSession(
  storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage,
  now: number = Date.now(),
  url: string = SUPABASE_URL,
): AuthState {
  try {
    const raw = storage?.getItem(sessionStorageKey(url));
    if (!raw) return { status: 'signed-out' };
    const session: unknown = JSON.parse(raw);
    if (typeof session !== 'object' || session === null) return { status: 'signed-out' };
    const { expires_at, refresh_token, user } = session as {
      expires_at?: unknown;
      refresh_token?: unknown;
      user?: { email?: unknown };
    };
    if (typeof expires_at !== 'number') return { status: 'signed-out' };
    if (expires_at * 1000 <= now) return { status: refresh_token ? 'loading' : 'signed-out' };
    const email = typeof user?.email === 'string' ? user.email : undefined;
    return email ? { status: 'signed-in', email } : { status: 'signed-in' };
  } catch {
    // Unparseable value or storage blocked by the browser.
    return { status: 'signed-out' };
  }
}

/** True once supabase-js feeds $auth; storage reads then stand aside. */
let clientOwnsAuth = false;
export function markClientOwnsAuth(): void {
  clientOwnsAuth = true;
}

/**
 * $auth from storage. An expired access token leaves it 'loading' (the header's placeholder) and calls
 * `refresh`, which loads supabase-js (only then, so pages without islands ship none of it up front): it
 * refreshes the session as it starts and its events decide, TOKEN_REFRESHED keeping the member signed in,
 * a refused refresh token removing the stored session with SIGNED_OUT.
 */
function applyStoredAuth(refresh: () => Promise<unknown>): void {
  const state = readStoredSession();
  $auth.set(state);
  if (state.status === 'loading') refresh().catch(() => $auth.set({ status: 'signed-out' }));
}

/** Sets $auth from storage; call once in the browser. Follows sign-in/out in other tabs. */
let listening = false;
export function loadStoredAuth(refresh: () => Promise<unknown>): void {
  if (clientOwnsAuth) return;
  applyStoredAuth(refresh);
  if (listening) return;
  listening = true;
  addEventListener('storage', (event) => {
    if (clientOwnsAuth) return;
    if (event.key === null || event.key === sessionStorageKey()) applyStoredAuth(refresh);
  });
}
