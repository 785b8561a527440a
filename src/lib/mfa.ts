// Two-factor (TOTP) rules as plain functions: whether a session still owes its code, and what a refused code
// says. The islands (src/islands/auth/AuthMfa.tsx, settings/SettingsTwoFactor.tsx, member/MemberShell.tsx)
// adapt them.

/** What supabase-js's auth.mfa.getAuthenticatorAssuranceLevel() answers (or null when it failed). */
export interface AssuranceLevel {
  currentLevel: string | null;
  nextLevel: string | null;
}

/**
 * True when the session was started with the password only (aal1) but the member has a verified factor
 * (nextLevel aal2): the code step comes before anything of the signed-in area.
 */
export function needsSecondFactor(level: AssuranceLevel | null | undefined): boolean {
  return level?.nextLevel === 'aal2' && level.currentLevel !== 'aal2';
}

/** The code as typed or pasted ("123 456"), digits only. */
export function cleanTotp(input: string): string {
  return input.replace(/\D/g, '');
}

/** An authenticator app's codes have six digits: anything else is not sent. */
export function isTotpFormat(code: string): boolean {
  return /^\d{6}$/.test(code);
}

/**
 * What the code field says when the auth service refuses a code: 'wrong' for a wrong or already used code
 * (GoTrue answers 422 mfa_verification_failed), otherwise the service's own words (too many tries, an
 * expired challenge), or 'failed' when it gave none.
 */
export function totpFailure(err: { code?: string; message?: string }): { kind: 'wrong' | 'failed'; text?: string } {
  if (err.code === 'mfa_verification_failed') return { kind: 'wrong' };
  const text = err.message?.trim();
  return text ? { kind: 'failed', text } : { kind: 'failed' };
}

interface FactorLike {
  id: string;
  status: string;
  factor_type?: string;
  friendly_name?: string;
}

/** The member's verified authenticator-app factors; unverified ones (an enrolment left half-way) are not. */
export function verifiedTotpFactors<F extends FactorLike>(factors: F[] | null | undefined): F[] {
  return (factors ?? []).filter((f) => f.status === 'verified' && (f.factor_type ?? 'totp') === 'totp');
}

const SVG_PREFIX = /^data:image\/svg\+xml;utf-8,/;

/**
 * The QR code as an <img> source. supabase-js makes `totp.qr_code` "data:image/svg+xml;utf-8," followed by
 * the SVG text as the auth service sent it, unescaped: a "#" in a colour (fill="#000000") starts the URL's
 * fragment and the browser draws nothing. The SVG text is percent-encoded here; anything else is kept.
 */
export function qrImageSrc(qrCode: string): string {
  if (!SVG_PREFIX.test(qrCode)) return qrCode;
  const svg = qrCode.replace(SVG_PREFIX, '');
  // Already encoded (no raw markup): as it is.
  if (!svg.includes('<')) return qrCode;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
