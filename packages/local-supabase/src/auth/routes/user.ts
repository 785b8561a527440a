// GET /user, PUT /user and POST /logout (GoTrue user.go and logout.go).
import type { Context, Hono } from 'hono';
import { AuthError, badRequest, forbidden, unprocessable } from '../errors.ts';
import { requireAuthentication } from '../guard.ts';
import { checkMetadataSize } from '../metadata.ts';
import { checkPasswordStrength, hashPassword, verifyPassword } from '../passwords.ts';
import { type AuthContext, endpoints, json, limitPerIp, obj, readBody, str } from '../request.ts';
import { endSessions, logout, sessionAal, sessionFacts } from '../sessions.ts';
import {
  findUserByEmail,
  findUserById,
  mergeMetadata,
  type UserRow,
  updateUserFields,
  userJson,
  validateEmail,
} from '../users.ts';
import { isRecoverySession, needsReauthentication, verifyReauthentication } from './reauthenticate.ts';

export function userRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.get('/user', on(userGet));
  app.put('/user', on(userUpdate));
  app.post('/logout', on(userLogout));
}

/** GET /user. */
async function userGet(c: Context, ctx: AuthContext): Promise<Response> {
  const { claims, user } = await requireAuthentication(c, ctx);
  const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
  if (aud !== (user.aud ?? 'authenticated')) {
    throw badRequest('validation_failed', "Token audience doesn't match request audience");
  }
  return json(userJson(user));
}

/** PUT /user. */
async function userUpdate(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const { user, sessionId } = await requireAuthentication(c, ctx);
  // GoTrue's limiter on PUT /user (the OTP rate), which also bounds guesses of current_password.
  limitPerIp(c, ctx, 'user');
  const body = await readBody(c);
  let email = str(body, 'email');
  const phone = str(body, 'phone');
  const password = body.password === undefined || body.password === null ? null : str(body, 'password');
  const currentPassword = str(body, 'current_password');
  const nonce = str(body, 'nonce');
  const data = obj(body, 'data');
  const appData = obj(body, 'app_metadata');

  if (email !== '') email = validateEmail(email);
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Phone logins are disabled');
  if (password !== null) checkPasswordStrength(settings, password);
  if (appData) throw forbidden('not_admin', 'Updating app_metadata requires admin privileges');
  // A member with a verified MFA factor changes the password or address only from an aal2 session.
  const changesSecret = (password !== null && password !== '') || (email !== '' && email !== (user.email ?? ''));
  if (changesSecret && user.factors.some((f) => f.status === 'verified')) {
    if ((await sessionAal(ctx.db, sessionId)) !== 'aal2') {
      throw new AuthError(
        401,
        'insufficient_aal',
        'AAL2 session is required to update email or password when MFA is enabled.',
      );
    }
  }
  if (data) await checkMetadataSize(ctx.db, mergeMetadata(user.raw_user_meta_data, data));

  if (email !== '' && email !== (user.email ?? '')) {
    if (await findUserByEmail(ctx.db, email)) {
      throw unprocessable('email_exists', 'A user with this email address has already been registered');
    }
    // The product shows the address as read-only; the double-confirmation mail flow is not offered.
    throw unprocessable('validation_failed', 'Changing the email address is not supported by this server');
  }

  let encrypted: string | null = null;
  if (password !== null) {
    const session = await sessionFacts(ctx.db, sessionId);
    // secure_password_change: a session older than a day needs the nonce GET /reauthenticate mailed.
    if (needsReauthentication(settings, session)) {
      if (nonce === '') throw badRequest('reauthentication_needed', 'Password update requires reauthentication');
      await verifyReauthentication(ctx.db, settings, user, nonce);
    }
    if (password !== '' && user.encrypted_password) {
      // "Require current password when updating", except in a session from a recovery (or other emailed) link.
      if (settings.requireCurrentPassword && !isRecoverySession(session)) {
        if (currentPassword === '') {
          throw badRequest('current_password_required', 'Current password required when setting new password.');
        }
        if (!(await verifyPassword(currentPassword, user.encrypted_password))) {
          throw badRequest('current_password_invalid', 'Current password required when setting new password.');
        }
      }
      if (await verifyPassword(password, user.encrypted_password)) {
        throw unprocessable('same_password', 'New password should be different from the old password.');
      }
    }
    if (password !== '') encrypted = await hashPassword(password);
  }

  const updated = await ctx.db.transaction(async (tx) => {
    const now = new Date().toISOString();
    if (encrypted) {
      await updateUserFields(tx, user.id, { encryptedPassword: encrypted, updatedAt: now });
      // A new password ends every other session (UpdatePassword → LogoutAllExceptMe).
      await endSessions(tx, user.id, sessionId);
    }
    if (data) {
      const userMetadata = mergeMetadata(user.raw_user_meta_data, data);
      await updateUserFields(tx, user.id, { userMetadata, updatedAt: now });
    }
    return (await findUserById(tx, user.id)) as UserRow;
  });
  return json(userJson(updated));
}

/** POST /logout. */
async function userLogout(c: Context, ctx: AuthContext): Promise<Response> {
  const { user, sessionId } = await requireAuthentication(c, ctx);
  const scope = c.req.query('scope') ?? '';
  if (!['', 'global', 'local', 'others'].includes(scope)) {
    throw badRequest('validation_failed', `Unsupported logout scope "${scope}"`);
  }
  await logout(ctx.db, user.id, sessionId, scope || 'global');
  return new Response(null, { status: 204 });
}
