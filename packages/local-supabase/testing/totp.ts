// An authenticator app for tests: the codes a TOTP factor's secret gives (RFC 6238, as the auth service checks them).
import * as OTPAuth from 'otpauth';

/** The code an authenticator app shows for `secret`, `offset` steps of 30 s from now. */
export function codeFor(secret: string, offset = 0): string {
  const totp = new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
  return totp.generate({ timestamp: Date.now() + offset * 30_000 });
}

/** A code no window accepts (none of the steps -1..+1). */
export function wrongCode(secret: string): string {
  const near = new Set([-1, 0, 1].map((o) => codeFor(secret, o)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}
