// Sign Out for the header (every page) and the signed-in sidebar, and the header's start of supabase-js when
// the stored session has expired. supabase-js is loaded here on demand, so pages without islands ship none of
// it until it is needed.
import { queueToast, toast } from './toasts.ts';

export interface SignOutTexts {
  signedOutTitle: string;
  signedOutDescription: string;
  failedTitle: string;
  failedDescription: string;
}

let leaving = false;

/**
 * The browser client, loaded on first use. Started with an expired stored session, supabase-js refreshes it
 * and reports the outcome to $auth (src/stores/auth.ts: the header waits for it).
 */
export const client = () => import('./supabase.ts').then((m) => m.supabase());

/** True from the moment Sign Out is pressed until it fails: the signed-in pages' gate then leaves the
 * navigation to Sign Out (to /) instead of sending the page to /auth on the SIGNED_OUT event. */
export function isSigningOut(): boolean {
  return leaving;
}

/** For a page that signs out and navigates itself: the gate then leaves the navigation to it (one navigation). */
export function markSigningOut(): void {
  leaving = true;
}

/**
 * Signs out (supabase-js ignores the server's 401, 403 and 404 and clears the local session anyway),
 * then goes to / replacing history and reloads; the toast waits for the new page.
 * Any other failure keeps the session and shows the destructive toast.
 */
export async function signOut(texts: SignOutTexts): Promise<boolean> {
  leaving = true;
  try {
    const { error } = await (await client()).auth.signOut();
    if (error) throw error;
  } catch (err) {
    console.error('Sign out failed:', err);
    toast({ title: texts.failedTitle, description: texts.failedDescription, variant: 'destructive' });
    leaving = false;
    return false;
  }
  queueToast({ title: texts.signedOutTitle, description: texts.signedOutDescription });
  location.replace('/');
  return true;
}
