// What a signed-in page shows for the auth state supabase-js reported: the rule of the Member gate.

export type GateView = 'loading' | 'redirect' | 'signed-out' | 'member';

export interface GateInput {
  /** supabase-js's last auth event; absent until it has read the stored session (a storage guess has none). */
  event?: string;
  user?: { id: string } | null;
}

export interface GateOptions {
  /** The page has a signed-out text of its own (the analysis page) instead of sending visitors to sign in. */
  showSignedOut: boolean;
  /** Sign Out is under way and navigates by itself. */
  signingOut: boolean;
}

/** 'loading' until supabase-js reports; then the member's view, the page's signed-out text, or a redirect. */
export function gateView(auth: GateInput, { showSignedOut, signingOut }: GateOptions): GateView {
  if (auth.event === undefined) return 'loading';
  if (auth.user) return 'member';
  if (showSignedOut) return 'signed-out';
  return signingOut ? 'loading' : 'redirect';
}
