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
 * Reads the session supabase-js persisted. Signed in when it parses and has not expired;
 * refresh is not attempted here, so a just-expired but refreshable session reads as signed out.
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
    const { expires_at, user } = session as { expires_at?: unknown; user?: { email?: unknown } };
    if (typeof expires_at !== 'number' || expires_at * 1000 <= now) return { status: 'signed-out' };
    const email = typeof user?.email === 'string' ? user.email : undefined;
    return email ? { status: 'signed-in', email } : { status: 'signed-in' };
  } catch {
    // Unparseable value or storage blocked by the browser.
    return { status: 'signed-out' };
  }
}

/** $auth from what supabase-js reports: an auth event and the session it carries. */
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

/** True once supabase-js feeds $auth; storage reads then stand aside. */
let clientOwnsAuth = false;
export function markClientOwnsAuth(): void {
  clientOwnsAuth = true;
}

/** Sets $auth from storage; call once in the browser. Follows sign-in/out in other tabs. */
let listening = false;
export function loadStoredAuth(): void {
  if (clientOwnsAuth) return;
  $auth.set(readStoredSession());
  if (listening) return;
  listening = true;
  addEventListener('storage', (event) => {
    if (clientOwnsAuth) return;
    if (event.key === null || event.key === sessionStorageKey()) $auth.set(readStoredSession());
  });
}
