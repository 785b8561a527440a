// GET /verify (the link in the email: 303 to redirect_to with tokens, a PKCE code, or an error) and
// POST /verify (verifyOtp with token_hash or email + token), as GoTrue's verify.go.
import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/types.ts';
import { AuthError, badRequest, forbidden } from '../errors.ts';
import { encodeValues, GoUrl, values } from '../go-url.ts';
import { findUserIdByToken, recordFailedVerification, type TokenType } from '../one-time-tokens.ts';
import { issueAuthCode, PKCE_PREFIX, tokenHash } from '../otp.ts';
import { type AuthContext, endpoints, grantParams, json, limitPerIp, readBody, referrer, str } from '../request.ts';
import { issueSession, type TokenResponse } from '../sessions.ts';
import {
  confirmUser,
  findUserByEmail,
  findUserById,
  isBanned,
  recoverUser,
  type UserRow,
  validateEmail,
} from '../users.ts';

export function verifyRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.get('/verify', on(verifyGet));
  app.post('/verify', on(verifyPost));
}

const LINK_INVALID = 'Email link is invalid or has expired';

const TOKEN_TYPES: Record<string, TokenType[]> = {
  email: ['confirmation_token', 'recovery_token'],
  signup: ['confirmation_token'],
  invite: ['confirmation_token'],
  recovery: ['recovery_token'],
  magiclink: ['recovery_token'],
};

/** ParseAuthenticationMethod for the verification types that can carry a PKCE flow. */
const PKCE_METHODS: Record<string, string> = {
  signup: 'email/signup',
  email: 'email/signup',
  invite: 'invite',
  recovery: 'recovery',
  magiclink: 'magiclink',
};

function isExpired(sentAt: string | null, otpExpiry: number): boolean {
  return !sentAt || Date.now() > Date.parse(sentAt) + otpExpiry * 1000;
}

/** verifyTokenHash: the user a link belongs to; resolves type "email" to signup or magiclink. */
async function userByTokenHash(
  ctx: AuthContext,
  tx: Queryable,
  type: string,
  hash: string,
): Promise<{ user: UserRow; type: string }> {
  const types = TOKEN_TYPES[type];
  if (!types) throw badRequest('validation_failed', 'Invalid email verification type');
  const found = await findUserIdByToken(tx, hash, types);
  const user = found && (await findUserById(tx, found.userId));
  if (!found || !user) throw forbidden('otp_expired', LINK_INVALID);
  if (isBanned(user)) throw forbidden('user_banned', 'User is banned');
  let resolved = type;
  if (type === 'email') resolved = found.type === 'recovery_token' ? 'magiclink' : 'signup';
  const sentAt = found.type === 'recovery_token' ? user.recovery_sent_at : user.confirmation_sent_at;
  if (isExpired(sentAt, ctx.settings.otpExpiry)) throw forbidden('otp_expired', LINK_INVALID);
  return { user, type: resolved };
}

/** A wrong code for a known account: which of its tokens the miss counts against. */
interface Miss {
  userId: string;
  types: TokenType[];
}

/** verifyUserAndToken: email + the 6-digit code from the mail; a wrong code is reported through `onMiss`. */
async function userByEmailOtp(
  ctx: AuthContext,
  tx: Queryable,
  type: string,
  email: string,
  hash: string,
  onMiss: (miss: Miss) => void,
): Promise<{ user: UserRow; type: string }> {
  const user = await findUserByEmail(tx, email);
  const invalid = () => {
    if (user && TOKEN_TYPES[type]) onMiss({ userId: user.id, types: TOKEN_TYPES[type] });
    return forbidden('otp_expired', 'Token has expired or is invalid');
  };
  if (!user) throw invalid();
  if (isBanned(user)) throw forbidden('user_banned', 'User is banned');
  const matches = (expected: string | null, sentAt: string | null) =>
    !!expected && !isExpired(sentAt, ctx.settings.otpExpiry) && (hash === expected || PKCE_PREFIX + hash === expected);
  const confirmation = matches(user.confirmation_token, user.confirmation_sent_at);
  const recovery = matches(user.recovery_token, user.recovery_sent_at);
  if (type === 'email') {
    if (confirmation) return { user, type: 'signup' };
    if (recovery) return { user, type: 'magiclink' };
    throw invalid();
  }
  if (type === 'signup' || type === 'invite') {
    if (confirmation) return { user, type };
    throw invalid();
  }
  if (type === 'recovery' || type === 'magiclink') {
    if (recovery) return { user, type };
    throw invalid();
  }
  throw invalid();
}

/** signupVerify / recoverVerify, then the user as it now is. */
async function applyVerification(tx: Queryable, user: UserRow, type: string): Promise<UserRow> {
  if (type === 'signup' || type === 'invite') await confirmUser(tx, user);
  else if (type === 'recovery' || type === 'magiclink') await recoverUser(tx, user);
  else throw badRequest('validation_failed', 'Unsupported verification type');
  return (await findUserById(tx, user.id)) as UserRow;
}

/** prepErrorRedirectURL: the error in the fragment, and for PKCE also in the query. */
function errorRedirect(redirectTo: string, err: AuthError, pkce: boolean): string {
  const url = new GoUrl(redirectTo);
  const oauth: Record<number, string> = {
    400: 'invalid_request',
    401: 'unauthorized_client',
    403: 'access_denied',
    500: 'server_error',
    503: 'temporarily_unavailable',
  };
  const hash: Record<string, string> = {};
  if (oauth[err.status]) {
    hash.error = oauth[err.status];
    if (pkce) url.query.set('error', [oauth[err.status]]);
  }
  hash.error_code = err.code;
  hash.error_description = err.message;
  if (pkce) {
    url.query.set('error_code', [err.code]);
    url.set('error_description', err.message);
  }
  hash.sb = '';
  url.fragment = encodeValues(values(hash));
  return url.toString();
}

function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

/** GET /verify. */
async function verifyGet(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  limitPerIp(c, ctx, 'verify');
  const token = c.req.query('token') ?? '';
  const type = c.req.query('type') ?? '';
  const redirectTo = referrer(c, ctx);
  if (type === '') throw badRequest('validation_failed', 'Verify requires a verification type');
  if (token === '') throw badRequest('validation_failed', 'Verify requires a token or a token hash');
  const pkce = token.startsWith(PKCE_PREFIX);
  const method = PKCE_METHODS[type];
  if (pkce && !method) throw badRequest('validation_failed', `unsupported authentication method "${type}"`);
  const grant = grantParams(c, ctx);

  try {
    const result = await ctx.db.transaction(async (tx) => {
      const found = await userByTokenHash(ctx, tx, type, token);
      const user = await applyVerification(tx, found.user, found.type);
      if (pkce) return { code: await issueAuthCode(tx, user.id, method) };
      return { session: await issueSession(tx, settings, user, 'otp', grant), type: found.type };
    });
    if ('code' in result) return seeOther(new GoUrl(redirectTo).set('code', result.code as string).toString());
    const s = result.session as TokenResponse;
    const fragment = encodeValues(
      values({
        access_token: s.access_token,
        expires_at: String(s.expires_at),
        expires_in: String(s.expires_in),
        refresh_token: s.refresh_token,
        sb: '',
        token_type: s.token_type,
        type: result.type as string,
      }),
    );
    return seeOther(`${redirectTo}#${fragment}`);
  } catch (err) {
    if (err instanceof AuthError) return seeOther(errorRedirect(redirectTo, err, pkce));
    throw err;
  }
}

/** POST /verify. */
async function verifyPost(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  limitPerIp(c, ctx, 'verify');
  const body = await readBody(c);
  const type = str(body, 'type');
  const token = str(body, 'token');
  let hash = str(body, 'token_hash');
  const email = str(body, 'email');
  const phone = str(body, 'phone');
  const redirect = str(body, 'redirect_to');
  if (type === '') throw badRequest('validation_failed', 'Verify requires a verification type');
  if ((token === '' && hash === '') || (token !== '' && hash !== '')) {
    throw badRequest('validation_failed', 'Verify requires either a token or a token hash');
  }
  let normalizedEmail = '';
  if (token !== '') {
    if (phone !== '' && email === '') throw badRequest('phone_provider_disabled', 'Phone logins are disabled');
    if (!(phone === '' && email !== '')) {
      throw badRequest('validation_failed', 'Only an email address or phone number should be provided on verify');
    }
    try {
      normalizedEmail = validateEmail(email);
    } catch {
      throw new AuthError(422, 'validation_failed', 'Invalid email format');
    }
    hash = tokenHash(normalizedEmail, token);
  } else if (email !== '' || phone !== '' || redirect !== '') {
    throw badRequest('validation_failed', 'Only the token_hash and type should be provided');
  }
  const grant = grantParams(c, ctx);
  let miss: Miss | undefined;
  try {
    const session = await ctx.db.transaction(async (tx) => {
      const found =
        token === ''
          ? await userByTokenHash(ctx, tx, type, hash)
          : await userByEmailOtp(ctx, tx, type, normalizedEmail, hash, (m) => {
              miss = m;
            });
      const user = await applyVerification(tx, found.user, found.type);
      return issueSession(tx, settings, user, 'otp', grant);
    });
    return json(session);
  } catch (err) {
    // Counted after the transaction has rolled back, so that the count stays.
    if (miss) await recordFailedVerification(ctx.db, miss.userId, miss.types);
    throw err;
  }
}
