// POST /token?grant_type=password|refresh_token|pkce (GoTrue token.go and the tokens service).
import type { Hono } from 'hono';
import { AuthError, badRequest, unprocessable } from '../errors.ts';
import { takeFlowState } from '../otp.ts';
import { verifyPassword, weakPassword } from '../passwords.ts';
import { type AuthContext, grantParams, handle, json, limitPerIp, readBody, str } from '../request.ts';
import { issueSession, refreshTokenGrant } from '../sessions.ts';
import { findLoginCandidate, findUserById } from '../users.ts';

const INVALID_LOGIN = 'Invalid login credentials';

export function tokenRoutes(app: Hono, ctx: AuthContext) {
  const { settings } = ctx;

  const password = handle(async (c) => {
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
  });

  const refresh = handle(async (c) => {
    limitPerIp(c, ctx, 'token_refresh');
    const body = await readBody(c);
    const presented = str(body, 'refresh_token');
    return json(await refreshTokenGrant(ctx.db, settings, presented, grantParams(c, ctx), findUserById));
  });

  const pkce = handle(async (c) => {
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
  });

  app.post('/token', async (c) => {
    switch (c.req.query('grant_type')) {
      case 'password':
        return password(c);
      case 'refresh_token':
        return refresh(c);
      case 'pkce':
        return pkce(c);
      case 'id_token':
      case 'web3':
        return handle(async () => {
          throw badRequest('provider_disabled', 'This sign-in method is not enabled');
        })(c);
      default:
        return handle(async () => {
          throw badRequest('invalid_credentials', 'unsupported_grant_type');
        })(c);
    }
  });
}
