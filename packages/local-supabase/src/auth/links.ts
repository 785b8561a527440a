// Emailed links: a fresh OTP per mail, its hash stored as the user's one-time token, then the mail.
// The token is stored before sending (so a quick click finds it) and put back if the mail fails.
import { AuthError } from './errors.ts';
import { actionLink, checkFrequency, type MailKind, type VerifyType } from './mail.ts';
import { restoreOneTimeToken, storeOneTimeToken, type TokenType } from './one-time-tokens.ts';
import { generateOtp, linkToken, PKCE_PREFIX, tokenHash } from './otp.ts';
import type { AuthContext } from './request.ts';
import type { UserRow } from './users.ts';

interface LinkMail {
  kind: MailKind;
  verifyType: VerifyType;
  tokenType: TokenType;
  sentAt: string | null;
  previousToken: string | null;
  failure: string;
}

function userMetadata(user: UserRow): Record<string, unknown> {
  const data = user.raw_user_meta_data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** What every emailed link needs: whose it is, where it leads, and who asked. */
export interface LinkOptions {
  user: UserRow;
  /** Where the link sends the browser after verifying (redirect_to, already checked against the allow-list). */
  redirectTo: string;
  /** The link carries a PKCE flow: `?code=` instead of tokens in the fragment. */
  pkce: boolean;
  /** The client address whose share of the mail budget the mail uses (mail.ts). */
  client?: string | null;
}

async function sendLink(
  ctx: AuthContext,
  { user, redirectTo, pkce, client }: LinkOptions,
  mail: LinkMail,
): Promise<void> {
  checkFrequency(ctx.settings, mail.sentAt);
  const email = user.email ?? '';
  const otp = generateOtp(ctx.settings.otpLength);
  const prefix = pkce ? PKCE_PREFIX : '';
  // The code is checked as GoTrue does (its hash on auth.users, tried with the address). The link carries
  // a random token instead of GoTrue's hash of address and code: a link guessed by hash names no account,
  // so its misses could not be counted against one (the code's misses are: one-time-tokens.ts).
  const token = `${prefix}${tokenHash(email, otp)}`;
  const link = `${prefix}${linkToken()}`;
  const now = new Date().toISOString();
  await storeOneTimeToken(ctx.db, user.id, email, mail.tokenType, token, now, link);
  try {
    await ctx.mail.send(
      mail.kind,
      email,
      {
        ConfirmationURL: actionLink(ctx.settings, link, mail.verifyType, redirectTo),
        Email: email,
        Token: otp,
        TokenHash: link,
        SiteURL: ctx.settings.siteUrl,
        RedirectTo: redirectTo,
        Data: userMetadata(user),
      },
      client,
    );
  } catch (err) {
    // Put the previous link back: a mail that never left must not change what the user can do.
    await restoreOneTimeToken(
      ctx.db,
      user.id,
      mail.tokenType,
      { token: mail.previousToken, sentAt: mail.sentAt },
      link,
    );
    if (err instanceof AuthError) throw err;
    console.error(`auth: ${mail.failure.toLowerCase()}:`, err);
    throw new AuthError(500, 'unexpected_failure', mail.failure);
  }
  if (mail.tokenType === 'confirmation_token') {
    user.confirmation_token = token;
    user.confirmation_sent_at = now;
  } else {
    user.recovery_token = token;
    user.recovery_sent_at = now;
  }
}

/** sendConfirmation: the sign-up link (type=signup). */
export function sendConfirmation(ctx: AuthContext, options: LinkOptions) {
  return sendLink(ctx, options, {
    kind: 'confirmation',
    verifyType: 'signup',
    tokenType: 'confirmation_token',
    sentAt: options.user.confirmation_sent_at,
    previousToken: options.user.confirmation_token,
    failure: 'Error sending confirmation email',
  });
}

/** sendPasswordRecovery: the reset link (type=recovery). */
export function sendRecovery(ctx: AuthContext, options: LinkOptions) {
  return sendLink(ctx, options, {
    kind: 'recovery',
    verifyType: 'recovery',
    tokenType: 'recovery_token',
    sentAt: options.user.recovery_sent_at,
    previousToken: options.user.recovery_token,
    failure: 'Error sending recovery email',
  });
}

/** sendMagicLink: a sign-in link (type=magiclink), sharing the recovery token and its timer as in GoTrue. */
export function sendMagicLink(ctx: AuthContext, options: LinkOptions) {
  return sendLink(ctx, options, {
    kind: 'magic_link',
    verifyType: 'magiclink',
    tokenType: 'recovery_token',
    sentAt: options.user.recovery_sent_at,
    previousToken: options.user.recovery_token,
    failure: 'Error sending magic link email',
  });
}
