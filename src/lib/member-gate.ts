// What a signed-in page shows for the auth state supabase-js reported: the rule of the Member gate.

export type GateView = 'loading' | 'redirect' | 'signed-out' | 'member' | 'second-factor';

export interface GateInput {
  /** supabase-js's last auth event; absent until it has read the stored session (a storage guess has none). */
  event?: string;
  user?: { id: string } | null;
}

/**
 * The session's two-factor state: 'checking' until its assurance level is known, 'needed' when it was started
 * with the password only by a member who has a verified factor (src/lib/mfa.ts), 'met' otherwise.
 */
export type SecondFactor = 'checking' | 'met' | 'needed';

export interface GateOptions {
  /** The page has a signed-out text of its own (the analysis page) instead of sending visitors to sign in. */
  showSignedOut: boolean;
  /** Sign Out is under way and navigates by itself. */
  signingOut: boolean;
  secondFactor: SecondFactor;
}

/**
 * 'loading' until supabase-js reports; then the member's view, the page's signed-out text, or a redirect.
 * A member whose session still owes the code is sent to the code step ('second-factor'), never shown the page.
 */
export function gateView(auth: GateInput, { showSignedOut, signingOut, secondFactor }: GateOptions): GateView {
  if (auth.event === undefined) return 'loading';
  if (auth.user) {
    if (secondFactor === 'needed') return 'second-factor';
    return secondFactor === 'met' ? 'member' : 'loading';
  }
  if (showSignedOut) return 'signed-out';
  return signingOut ? 'loading' : 'redirect';
}
