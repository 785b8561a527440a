// Settings' check of the member's current password before it changes what protects the account (the password,
// a two-factor factor): a fresh sign-in with it. A stolen access token alone does not carry the password, so
// it cannot pass this step in the page. The rule of which sign-in is in src/lib/password-check.ts.
import { AuthClient, type AuthError } from '@supabase/auth-js';
import { passwordCheckWay } from '../lib/password-check.ts';
import { SUPABASE_KEY } from './api-key.ts';
import { SUPABASE_URL, sessionStorageKey } from './auth.ts';
import { supabase } from './supabase.ts';

/** A client that keeps its session in memory only: its sign-in never touches this browser's session. */
function throwawayClient() {
  return new AuthClient({
    url: `${SUPABASE_URL.replace(/\/+$/, '')}/auth/v1`,
    headers: { Authorization: `Bearer ${SUPABASE_KEY}`, apikey: SUPABASE_KEY },
    // Its own key, so supabase-js does not take it for a second client of the stored session.
    storageKey: `${sessionStorageKey(SUPABASE_URL)}-check`,
    persistSession: false,
    autoRefreshToken: false,
    detectSessionInUrl: false,
  });
}

/**
 * Signs in with `email` and `password`; null when the password is right, else the auth service's refusal.
 * Without a verified factor the sign-in becomes this browser's session; with one it happens aside and its
 * session is ended at once, so this session stays aal2. `captchaToken` is the form's CAPTCHA token, which the
 * auth service asks of every password sign-in while [auth.captcha] is on (none in a build without a site key).
 */
export async function checkCurrentPassword(
  email: string,
  password: string,
  captchaToken?: string,
): Promise<AuthError | null> {
  const auth = supabase().auth;
  const { data: level } = await auth.mfa.getAuthenticatorAssuranceLevel();
  const credentials = { email, password, ...(captchaToken ? { options: { captchaToken } } : {}) };
  if (passwordCheckWay(level) === 'sign-in') return (await auth.signInWithPassword(credentials)).error;
  const aside = throwawayClient();
  const { error } = await aside.signInWithPassword(credentials);
  if (error) return error;
  // Ends the session the check started (its refresh token), whatever the answer: the password was right.
  await aside.signOut({ scope: 'local' }).catch(() => undefined);
  return null;
}
