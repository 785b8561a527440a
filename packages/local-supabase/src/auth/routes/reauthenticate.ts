// GET /reauthenticate and the nonce check of PUT /user (GoTrue internal/api/reauthenticate.go, mail.go's
// sendReauthenticationOtp, user.go's UserUpdate, models/user.go's ConfirmReauthentication).
//
// With [auth.email] secure_password_change, a password change from a session created more than 24 hours ago
// needs the code this route mails: 400 reauthentication_needed without it, 422 reauthentication_not_valid for
// a wrong or expired one. A good code is used up at once (reauthentication_token emptied, and the user's
// one-time tokens deleted), even if the change then fails for another reason, as in GoTrue.
import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/types.ts';
import { badRequest, unprocessable } from '../errors.ts';
import { requireAuthentication } from '../guard.ts';
import { checkFrequency } from '../mail.ts';
import {
  consumeReauthenticationToken,
  findReauthenticationToken,
  storeReauthenticationToken,
} from '../one-time-tokens.ts';
import { generateOtp, tokenHash } from '../otp.ts';
import type { AuthContext } from '../request.ts';
import { endpoints, json } from '../request.ts';
import type { SessionFacts } from '../sessions.ts';
import type { AuthSettings } from '../settings.ts';
import type { UserRow } from '../users.ts';

export function reauthenticateRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.get('/reauthenticate', on(reauthenticate));
}

/** GoTrue's "recently signed in" window of UserUpdate: 24 hours from the session's creation. */
export const RECENT_SIGN_IN_SECONDS = 24 * 3600;

export const INVALID_NONCE = 'Nonce has expired or is invalid';

/** Session.IsRecovery: a session from an emailed link or code (otp, magiclink, recovery). */
export function isRecoverySession(session: SessionFacts | null): boolean {
  return !!session && session.methods.some((m) => m === 'otp' || m === 'magiclink' || m === 'recovery');
}

/** Whether a password change from this session needs the reauthentication nonce. */
export function needsReauthentication(settings: AuthSettings, session: SessionFacts | null): boolean {
  if (!settings.securePasswordChange) return false;
  return !session || Date.now() > session.createdMs + RECENT_SIGN_IN_SECONDS * 1000;
}

/** verifyReauthentication: the nonce against the stored hash and otp_expiry; a good one is used up. */
export async function verifyReauthentication(
  db: Queryable,
  settings: AuthSettings,
  user: UserRow,
  nonce: string,
): Promise<void> {
  const stored = await findReauthenticationToken(db, user.id);
  if (!stored?.token || stored.sentMs == null) throw unprocessable('reauthentication_not_valid', INVALID_NONCE);
  if (!user.email) {
    throw unprocessable('reauthentication_not_valid', 'Reauthentication requires an email or a phone number');
  }
  const fresh = Date.now() <= stored.sentMs + settings.otpExpiry * 1000;
  if (!fresh || tokenHash(user.email, nonce) !== stored.token) {
    throw unprocessable('reauthentication_not_valid', INVALID_NONCE);
  }
  await consumeReauthenticationToken(db, user.id);
}

/** GET /reauthenticate. */
async function reauthenticate(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const { user } = await requireAuthentication(c, ctx);
  const email = user.email ?? '';
  if (email === '' && (user.phone ?? '') === '') {
    throw badRequest('validation_failed', 'Reauthentication requires the user to have an email or a phone number');
  }
  // The product has no phone sign-in, so a user without an email cannot exist here.
  if (!user.email_confirmed_at) throw unprocessable('email_not_confirmed', 'Please verify your email first.');
  checkFrequency(settings, user.reauthentication_sent_at);

  const otp = generateOtp(settings.otpLength);
  const hash = tokenHash(email, otp);
  // The mail goes first: when it cannot be sent, the previous code stays the valid one.
  await ctx.mail.send('reauthentication', email, {
    ConfirmationURL: '',
    Email: email,
    Token: otp,
    TokenHash: '',
    SiteURL: settings.siteUrl,
    RedirectTo: '',
    Data: user.raw_user_meta_data ?? {},
  });
  const now = new Date().toISOString();
  await storeReauthenticationToken(ctx.db, user.id, email, hash, now);
  return json({});
}
