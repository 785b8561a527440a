// POST /token?grant_type=password|refresh_token|pkce (GoTrue token.go and the tokens service).
import type { Context, Hono } from 'hono';
import { AuthError, badRequest, unprocessable } from '../errors.ts';
import { takeFlowState } from '../otp.ts';
import { verifyPassword, weakPassword } from '../passwords.ts';
import {
  type AuthContext,
  type Endpoint,
  endpoints,
  grantParams,
  json,
  limitPerIp,
  readBody,
  str,
} from '../request.ts';
import { issueSession, refreshTokenGrant } from '../sessions.ts';
import { findLoginCandidate, findUserById } from '../users.ts';

const INVALID_LOGIN = 'Invalid login credentials';

export function tokenRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.post('/token', on(token));
}

/** The grant types, as token.go's switch on grant_type. */
const GRANTS = new Map<string, Endpoint>([
  ['password', passwordGrant],
  ['refresh_token', refreshGrant],
  ['pkce', pkceGrant],
  ['id_token', disabledGrant],
  ['web3', disabledGrant],
]);

/** POST /token?grant_type=…. */
async function token(c: Context, ctx: AuthContext): Promise<Response> {
  const grant = GRANTS.get(c.req.query('grant_type') ?? '');
  if (!grant) throw badRequest('invalid_credentials', 'unsupported_grant_type');
  return grant(c, ctx);
}

/** grant_type=password: email and password. */
async function passwordGrant(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  limitPerIp(c, ctx, 'sign_in_sign_ups');
  const body = await readBody(c);
  const email = str(body, 'email');
  const phone = str(body, 'phone');
  const secret = str(body, 'password');
  if (email !== '' && phone !== '') {
    throw badRequest('validation_failed', 'Only an email address or phone number should be provided on login.');
  }
  if (phone !== '') throw unprocessable('phone_provider_disabled', 'Phone logins are disabled');
  if (email === '') throw badRequest('validation_failed', 'missing email or phone');
  if (!settings.emailEnabled) throw unprocessable('email_provider_disabled', 'Email logins are disabled');

  const candidate = await findLoginCandidate(ctx.db, email);
  if (!candidate?.encrypted_password) throw badRequest('invalid_credentials', INVALID_LOGIN);
  if (candidate.banned) throw badRequest('user_banned', 'User is banned');
  // The hash is checked on the thread pool; the full user row is read meanwhile.
  const [valid, user] = await Promise.all([
    verifyPassword(secret, candidate.encrypted_password),
    findUserById(ctx.db, candidate.id),
  ]);
  if (!valid || !user) throw badRequest('invalid_credentials', INVALID_LOGIN);
  // A correct but weak password still signs in; the answer says why it is weak.
  const weak = weakPassword(settings, secret);
  if (!user.email_confirmed_at) throw badRequest('email_not_confirmed', 'Email not confirmed');

  const token = await issueSession(ctx.db, settings, user, 'password', grantParams(c, ctx));
  if (weak) token.weak_password = { message: weak.message, reasons: weak.reasons };
  return json(token);
}

/** grant_type=refresh_token: a new pair for a refresh token (rotation and reuse interval in sessions.ts). */
async function refreshGrant(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  limitPerIp(c, ctx, 'token_refresh');
  const body = await readBody(c);
  const presented = str(body, 'refresh_token');
  return json(await refreshTokenGrant(ctx.db, settings, presented, grantParams(c, ctx), findUserById));
}

/** grant_type=pkce: the auth code of a PKCE flow and its verifier. */
async function pkceGrant(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  limitPerIp(c, ctx, 'sign_in_sign_ups');
  const body = await readBody(c);
  const authCode = str(body, 'auth_code');
  const verifier = str(body, 'code_verifier');
  if (authCode === '' || verifier === '') {
    throw badRequest('validation_failed', 'invalid request: both auth code and code verifier should be non-empty');
  }
  const grant = grantParams(c, ctx);
  const token = await ctx.db.transaction(async (tx) => {
    const flow = await takeFlowState(tx, authCode, verifier, settings.flowStateExpiry);
    const user = await findUserById(tx, flow.userId);
    if (!user) throw new AuthError(404, 'user_not_found', 'User not found');
    return issueSession(tx, settings, user, flow.authenticationMethod, grant);
  });
  return json(token);
}

/** Sign-in methods the project does not enable. */
async function disabledGrant(): Promise<Response> {
  throw badRequest('provider_disabled', 'This sign-in method is not enabled');
}
