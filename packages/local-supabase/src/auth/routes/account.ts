// POST /signup, /recover, /resend and /otp (GoTrue signup.go, recover.go, resend.go, otp.go).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { Queryable } from '../../db/types.ts';
import { badRequest, unprocessable } from '../errors.ts';
import { sendConfirmation, sendMagicLink, sendRecovery } from '../links.ts';
import { checkFrequency } from '../mail.ts';
import { checkMetadataSize } from '../metadata.ts';
import { createFlowState, deleteFlowStates, validatePkceParams } from '../otp.ts';
import { checkPasswordStrength, hashPassword } from '../passwords.ts';
import {
  type AuthContext,
  type Body,
  bool,
  clientIp,
  endpoints,
  grantParams,
  json,
  limitPerIp,
  obj,
  readBody,
  referrer,
  str,
} from '../request.ts';
import { issueSession } from '../sessions.ts';
import {
  confirmUser,
  createUser,
  deleteUser,
  findUserByEmail,
  findUserById,
  type UserRow,
  userJson,
  validateEmail,
} from '../users.ts';

export function accountRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.post('/signup', on(signup));
  app.post('/recover', on(recover));
  app.post('/resend', on(resend));
  app.post('/otp', on(otp));
}

/** sanitizeUser: what an existing, confirmed address gets back, so sign-up cannot tell who is registered. */
function sanitizedUser(user: UserRow, data: Record<string, unknown>): Record<string, unknown> {
  const now = new Date().toISOString();
  return userJson({
    ...user,
    id: randomUUID(),
    role: '',
    email_change: '',
    created_at: now,
    updated_at: now,
    confirmation_sent_at: now,
    last_sign_in_at: null,
    confirmed_at: null,
    email_change_sent_at: null,
    email_confirmed_at: null,
    phone_confirmed_at: null,
    identities: [],
    raw_user_meta_data: data,
    aud: 'authenticated',
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    phone: '',
  });
}

/**
 * The unconfirmed account at an address, made afresh for a new sign-up under the same id: the new password
 * and metadata, one email identity from the new data, and nothing left of the earlier registrant (links,
 * PKCE flows, sessions). Deleting and inserting the row lets the project's insert triggers (the profile)
 * see the new sign-up as they saw the first.
 */
async function replacePendingUser(
  tx: Queryable,
  existing: UserRow,
  encryptedPassword: string,
  data: Record<string, unknown>,
): Promise<UserRow> {
  await deleteFlowStates(tx, existing.id);
  await deleteUser(tx, existing.id);
  return createUser(tx, {
    id: existing.id,
    email: existing.email ?? '',
    encryptedPassword,
    userMetadata: data,
    identityExtra: data,
  });
}

function pkceParams(body: Body): { challenge: string; method: string } {
  const challenge = str(body, 'code_challenge');
  const method = str(body, 'code_challenge_method');
  validatePkceParams(method, challenge);
  return { challenge, method };
}

/** A random password for accounts created without one (GoTrue: 64 characters, 10 digits). */
export function generatedPassword(): string {
  return randomBytes(48).toString('base64url').slice(0, 64);
}

/** POST /signup. */
async function signup(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  if (settings.disableSignup) throw unprocessable('signup_disabled', 'Signups not allowed for this instance');
  const body = await readBody(c);
  let email = str(body, 'email');
  const phone = str(body, 'phone');
  if (email === '' && phone === '') {
    throw unprocessable('anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
  }
  limitPerIp(c, ctx, 'sign_in_sign_ups');
  const password = str(body, 'password');
  const data = obj(body, 'data') ?? {};
  if (password === '') throw badRequest('validation_failed', 'Signup requires a valid password');
  checkPasswordStrength(settings, password);
  if (email !== '' && phone !== '') {
    throw badRequest('validation_failed', 'Only an email address or phone number should be provided on signup.');
  }
  const { challenge, method } = pkceParams(body);
  if (email === '') throw badRequest('phone_provider_disabled', 'Phone signups are disabled');
  if (!settings.emailEnabled) throw badRequest('email_provider_disabled', 'Email signups are disabled');
  email = validateEmail(email);
  const redirectTo = referrer(c, ctx);
  const pkce = challenge !== '';

  await checkMetadataSize(ctx.db, data);
  const existing = await findUserByEmail(ctx.db, email);
  if (existing?.email_confirmed_at) {
    if (settings.mailerAutoconfirm) throw unprocessable('user_already_exists', 'User already registered');
    return json(sanitizedUser(existing, data));
  }

  let user: UserRow;
  let created = false;
  const encryptedPassword = await hashPassword(password);
  if (existing) {
    // Nobody has proven owning an unconfirmed address, so the newest sign-up replaces the pending
    // one (GoTrue keeps the first registrant's password, which lets whoever signs an address up first
    // hold the account its owner confirms later). Within max_frequency nothing changes (429).
    checkFrequency(settings, existing.confirmation_sent_at);
    user = await ctx.db.transaction((tx) => replacePendingUser(tx, existing, encryptedPassword, data));
  } else {
    user = await ctx.db.transaction((tx) =>
      createUser(tx, { email, encryptedPassword, userMetadata: data, identityExtra: data }),
    );
    created = true;
  }

  if (settings.mailerAutoconfirm) {
    await confirmUser(ctx.db, user);
    const confirmed = (await findUserById(ctx.db, user.id)) as UserRow;
    return json(await issueSession(ctx.db, settings, confirmed, 'password', grantParams(c, ctx)));
  }
  try {
    checkFrequency(settings, user.confirmation_sent_at);
    if (pkce) await createFlowState(ctx.db, user.id, 'email', 'email/signup', challenge, method);
    await sendConfirmation(ctx, { user, redirectTo, pkce, client: clientIp(c, ctx) });
  } catch (err) {
    if (created) await deleteUser(ctx.db, user.id);
    throw err;
  }
  return json(userJson(user));
}

/** POST /recover. */
async function recover(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  // The limiter comes first, as GoTrue's middleware does: malformed requests count too.
  limitPerIp(c, ctx, 'recover');
  const body = await readBody(c);
  let email = str(body, 'email');
  const { challenge, method } = pkceParams(body);
  if (email === '') throw badRequest('validation_failed', 'Password recovery requires an email');
  email = validateEmail(email);
  const user = await findUserByEmail(ctx.db, email);
  if (!user) return json({});
  const pkce = challenge !== '';
  checkFrequency(settings, user.recovery_sent_at);
  if (pkce) await createFlowState(ctx.db, user.id, 'recovery', 'recovery', challenge, method);
  await sendRecovery(ctx, { user, redirectTo: referrer(c, ctx), pkce, client: clientIp(c, ctx) });
  return json({});
}

/** POST /resend. */
async function resend(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  // The limiter comes first, as GoTrue's middleware does: malformed requests count too.
  limitPerIp(c, ctx, 'resend');
  const body = await readBody(c);
  const type = str(body, 'type');
  let email = str(body, 'email');
  const phone = str(body, 'phone');
  let pkce = { challenge: '', method: '' };
  if (type === 'signup' || type === 'email_change') pkce = pkceParams(body);
  else if (type !== 'sms' && type !== 'phone_change') {
    throw badRequest('validation_failed', 'Missing one of these types: signup, email_change, sms, phone_change');
  }
  if (email === '' && type === 'signup')
    throw badRequest('validation_failed', 'Type provided requires an email address');
  if (phone === '' && type === 'sms') throw badRequest('validation_failed', 'Type provided requires a phone number');
  if (email !== '' && phone !== '') {
    throw badRequest('validation_failed', 'Only an email address or phone number should be provided.');
  }
  if (email === '' && phone === '') throw badRequest('validation_failed', 'Missing email address or phone number');
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Phone logins are disabled');
  email = validateEmail(email);
  const user = await findUserByEmail(ctx.db, email);
  if (!user) return json({});
  if (type === 'signup') {
    if (user.email_confirmed_at) return json({});
    checkFrequency(settings, user.confirmation_sent_at);
    if (pkce.challenge) {
      await createFlowState(ctx.db, user.id, 'email', 'email/signup', pkce.challenge, pkce.method);
    }
    await sendConfirmation(ctx, {
      user,
      redirectTo: referrer(c, ctx),
      pkce: pkce.challenge !== '',
      client: clientIp(c, ctx),
    });
  }
  // Email changes are not offered by this stack, so there is never a pending one to resend.
  return json({});
}

/** POST /otp. */
async function otp(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  // The limiter comes first, as GoTrue's middleware does: malformed requests count too.
  limitPerIp(c, ctx, 'otp');
  const body = await readBody(c);
  let email = str(body, 'email');
  const phone = str(body, 'phone');
  const data = obj(body, 'data') ?? {};
  const createUserFlag = body.create_user === undefined ? true : bool(body, 'create_user');
  const { challenge, method } = pkceParams(body);
  if (email !== '' && phone !== '') {
    throw badRequest('validation_failed', 'Only an email address or phone number should be provided');
  }
  // GoTrue's SmsOtp (internal/api/otp.go) with the phone provider off.
  if (phone !== '') throw badRequest('phone_provider_disabled', 'Unsupported phone provider');
  if (!settings.emailEnabled) throw badRequest('email_provider_disabled', 'Email logins are disabled');
  email = validateEmail(email);
  const redirectTo = referrer(c, ctx);
  const pkce = challenge !== '';

  const user = await findUserByEmail(ctx.db, email);
  if (!user) {
    // OTP_SIGNUPS=off refuses as create_user=false does: the site signs people up with a password only.
    if (!createUserFlag || settings.disableSignup || !settings.otpSignups) {
      throw unprocessable('otp_disabled', 'Signups not allowed for otp');
    }
    await checkMetadataSize(ctx.db, data);
    const encryptedPassword = await hashPassword(generatedPassword());
    const fresh = await ctx.db.transaction((tx) =>
      createUser(tx, { email, encryptedPassword, userMetadata: data, identityExtra: data }),
    );
    try {
      if (pkce) await createFlowState(ctx.db, fresh.id, 'email', 'email/signup', challenge, method);
      await sendConfirmation(ctx, { user: fresh, redirectTo, pkce, client: clientIp(c, ctx) });
    } catch (err) {
      await deleteUser(ctx.db, fresh.id);
      throw err;
    }
    return json({});
  }
  if (!user.email_confirmed_at) {
    checkFrequency(settings, user.confirmation_sent_at);
    if (pkce) await createFlowState(ctx.db, user.id, 'email', 'email/signup', challenge, method);
    await sendConfirmation(ctx, { user, redirectTo, pkce, client: clientIp(c, ctx) });
    return json({});
  }
  checkFrequency(settings, user.recovery_sent_at);
  if (pkce) await createFlowState(ctx.db, user.id, 'magiclink', 'magiclink', challenge, method);
  await sendMagicLink(ctx, { user, redirectTo, pkce, client: clientIp(c, ctx) });
  return json({});
}
