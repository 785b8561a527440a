// Multi-factor authentication with TOTP (GoTrue internal/api/mfa.go and the admin factor routes of admin.go):
// POST /factors, POST /factors/{id}/challenge, POST /factors/{id}/verify, DELETE /factors/{id},
// GET /admin/users/{id}/factors and DELETE /admin/users/{id}/factors/{id}. Phone and WebAuthn factors are
// answered as a project with them switched off answers.
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { Queryable } from '../../db/types.ts';
import { AuthError, badRequest, forbidden, notFound, tooManyRequests, unprocessable } from '../errors.ts';
import {
  claimTotpStep,
  createChallenge,
  createTotpFactor,
  deleteChallenge,
  deleteExpiredFactors,
  deleteFactor,
  deleteUnverifiedTotpFactors,
  findChallenge,
  findFactor,
  listFactorNames,
  markChallengeVerified,
  markFactorVerified,
  type StoredFactor,
} from '../factors.ts';
import { requireAdmin, requireAuthentication } from '../guard.ts';
import { mfaVerificationAttempt } from '../hooks.ts';
import { type AuthContext, type Body, clientIp, endpoints, json, readBody, str } from '../request.ts';
import {
  downgradeSessionsOfFactor,
  endSessions,
  endSessionsBelowAal2,
  sessionAal,
  upgradeSession,
} from '../sessions.ts';
import { factorJson, findUserById, isUuid, type UserRow } from '../users.ts';

export function mfaRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  const admin = endpoints(ctx, requireAdmin);
  app.post('/factors', on(enrollFactor));
  app.post('/factors/:factorId/challenge', on(challengeFactor));
  app.post('/factors/:factorId/verify', on(verifyFactor));
  app.delete('/factors/:factorId', on(unenrollFactor));
  app.get('/admin/users/:id/factors', admin(adminUserGetFactors));
  app.delete('/admin/users/:id/factors/:factorId', admin(adminUserDeleteFactor));
}

/** loadFactor: the factor of the URL, owned by `user`, else 404. */
async function loadFactor(db: Queryable, user: UserRow, factorId: string): Promise<StoredFactor> {
  if (!isUuid(factorId)) throw notFound('validation_failed', 'factor_id must be an UUID');
  const factor = await findFactor(db, user.id, factorId);
  if (!factor) throw notFound('mfa_factor_not_found', 'Factor not found');
  return factor;
}

/** GoTrue's FactorChallenge / FactorVerify limiters: requests per minute per IP, when limits are on. */
function limitMfa(c: Context, ctx: AuthContext, bucket: 'challenge' | 'verify') {
  if (!ctx.settings.rateLimits) return;
  const key = `mfa_${bucket}:${clientIp(c, ctx) ?? 'unknown'}`;
  if (!ctx.limiter.allow(key, ctx.settings.mfa.challengeAndVerifyPerMinute, 60)) {
    throw tooManyRequests('over_request_rate_limit', 'Request rate limit reached');
  }
}

/** GoTrue decodes challenge_id into a uuid.UUID: anything else is a JSON decoding error. */
function uuidField(body: Body, key: string): string {
  const value = str(body, key);
  if (value === '') return '00000000-0000-0000-0000-000000000000';
  if (!isUuid(value)) {
    throw badRequest('bad_json', `Could not parse request body as JSON: uuid: incorrect UUID format ${value}`);
  }
  return value.toLowerCase();
}

/** requireAuthentication + requireNotAnonymous, and the session every factor route needs. */
async function member(c: Context, ctx: AuthContext) {
  const auth = await requireAuthentication(c, ctx);
  if (auth.claims.is_anonymous === true) {
    throw forbidden('no_authorization', 'Anonymous user not allowed to perform these actions');
  }
  if (!auth.sessionId) {
    throw new AuthError(500, 'unexpected_failure', 'A valid session and a registered user are required');
  }
  return { user: auth.user, sessionId: auth.sessionId };
}

/** The user of an admin factor route's URL (the service_role token is checked before). */
async function adminUser(c: Context, ctx: AuthContext): Promise<UserRow> {
  const id = c.req.param('id') ?? '';
  if (!isUuid(id)) throw notFound('validation_failed', 'user_id must be an UUID');
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('user_not_found', 'User not found');
  return user;
}

/** pquerna/otp's Key.URL(): otpauth://totp/Issuer:account?algorithm=SHA1&digits=6&issuer=..&period=30&secret=.. */
function otpauthUri(issuer: string, account: string, secret: string): string {
  const path = encodeURIComponent(`${issuer}:${account}`).replace(/%40/g, '@').replace(/%3A/g, ':');
  const query = new URLSearchParams({ algorithm: 'SHA1', digits: '6', issuer, period: '30', secret });
  return `otpauth://totp/${path}?${query.toString()}`;
}

/** Destroy + DowngradeSessionsToAAL1: the sessions raised with this factor lose its claim and go back to aal1. */
async function removeFactor(tx: Queryable, factor: StoredFactor): Promise<void> {
  await downgradeSessionsOfFactor(tx, factor.user_id, factor.id);
  await deleteFactor(tx, factor.id);
}

/** POST /factors. */
async function enrollFactor(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const { mfa } = ctx.settings;
  const { user, sessionId } = await member(c, ctx);
  const body = await readBody(c);
  const friendlyName = str(body, 'friendly_name');
  const factorType = str(body, 'factor_type');
  const issuerParam = str(body, 'issuer');
  str(body, 'phone');
  if (factorType === 'phone') throw unprocessable('mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
  if (factorType === 'webauthn') {
    throw unprocessable('mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
  }
  if (factorType !== 'totp') {
    throw badRequest('validation_failed', 'factor_type needs to be totp, phone, or webauthn');
  }
  if (!mfa.totpEnroll) throw unprocessable('mfa_totp_enroll_not_enabled', 'MFA enroll is disabled for TOTP');
  const issuer = issuerParam || new URL(settings.siteUrl).host;

  // validateFactors: expired unverified factors go first (every user's, as GoTrue does), then the limits.
  await deleteExpiredFactors(ctx.db, mfa.factorExpiry);
  const factors = await listFactorNames(ctx.db, user.id);
  if (factors.some((f) => (f.friendly_name ?? '') === friendlyName)) {
    throw unprocessable(
      'mfa_factor_name_conflict',
      `A factor with the friendly name ${JSON.stringify(friendlyName)} for this user already exists`,
    );
  }
  const verified = factors.filter((f) => f.status === 'verified').length;
  if (factors.length >= mfa.maxEnrolledFactors || verified >= mfa.maxVerifiedFactors) {
    throw unprocessable(
      'too_many_enrolled_mfa_factors',
      'Maximum number of verified factors reached, unenroll to continue',
    );
  }
  if (verified > 0 && (await sessionAal(ctx.db, sessionId)) !== 'aal2') {
    throw forbidden('insufficient_aal', 'AAL2 required to enroll a new factor');
  }

  // totp.Generate's defaults: a 20-byte random secret in unpadded base32, SHA-1, 6 digits, 30 s.
  const secret = new OTPAuth.Secret({ size: 20 }).base32.replace(/=+$/, '');
  const uri = otpauthUri(issuer, user.email ?? '', secret);
  // GoTrue draws the QR code as SVG with error correction level H and sends the SVG text; supabase-js
  // turns it into a data: URI.
  const qrCode = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'H', margin: 0 });
  const id = randomUUID();
  const now = new Date().toISOString();
  await createTotpFactor(ctx.db, { id, userId: user.id, friendlyName, secret, createdAt: now });
  return json({ id, type: 'totp', friendly_name: friendlyName, totp: { qr_code: qrCode, secret, uri } });
}

/** POST /factors/:factorId/challenge. */
async function challengeFactor(c: Context, ctx: AuthContext): Promise<Response> {
  const { mfa } = ctx.settings;
  const { user } = await member(c, ctx);
  limitMfa(c, ctx, 'challenge');
  const factor = await loadFactor(ctx.db, user, c.req.param('factorId') ?? '');
  await readBody(c, { optional: true });
  if (factor.factor_type !== 'totp') {
    throw unprocessable(`mfa_${factor.factor_type}_verify_not_enabled`, 'MFA verification is disabled');
  }
  if (!mfa.totpVerify) throw unprocessable('mfa_totp_verify_not_enabled', 'MFA verification is disabled for TOTP');
  const id = randomUUID();
  const created = new Date();
  // GoTrue's Cleanup (models/cleanup.go) also drops challenges older than 24 hours, 100 at a time.
  await createChallenge(ctx.db, {
    id,
    factorId: factor.id,
    createdAt: created.toISOString(),
    ip: clientIp(c, ctx) ?? '',
  });
  return json({
    id,
    type: 'totp',
    expires_at: Math.floor(created.getTime() / 1000) + mfa.challengeExpiry,
  });
}

/** POST /factors/:factorId/verify. */
async function verifyFactor(c: Context, ctx: AuthContext): Promise<Response> {
  const { settings } = ctx;
  const { mfa } = ctx.settings;
  const { user, sessionId } = await member(c, ctx);
  limitMfa(c, ctx, 'verify');
  const factor = await loadFactor(ctx.db, user, c.req.param('factorId') ?? '');
  const body = await readBody(c);
  const challengeId = uuidField(body, 'challenge_id');
  const code = str(body, 'code');
  if (code === '') throw badRequest('validation_failed', 'Code needs to be non-empty');
  if (factor.factor_type !== 'totp') {
    throw unprocessable(`mfa_${factor.factor_type}_verify_not_enabled`, 'MFA verification is disabled');
  }
  if (!mfa.totpVerify) throw unprocessable('mfa_totp_verify_not_enabled', 'MFA verification is disabled for TOTP');

  // validateChallenge: the factor's challenge, from the same address, not used yet, not expired.
  const ip = clientIp(c, ctx) ?? '';
  const challenge = await findChallenge(ctx.db, challengeId, factor.id, ip, mfa.challengeExpiry);
  if (!challenge) {
    throw unprocessable('mfa_factor_not_found', 'MFA factor with the provided challenge ID not found');
  }
  if (challenge.verified || !challenge.same_ip) {
    throw unprocessable('mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
  }
  if (challenge.expired) {
    await deleteChallenge(ctx.db, challengeId);
    throw unprocessable(
      'mfa_challenge_expired',
      `MFA challenge ${challengeId} has expired, verify against another challenge or create a new challenge.`,
    );
  }

  // totp.ValidateCustom with Period 30, Skew 1, six digits, SHA-1; and (the stack's own rule, RFC 6238
  // §5.2) the code's time step must be later than the last one this factor accepted: a code is good once.
  const now = Date.now();
  const totp = new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(factor.secret ?? ''),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
  const delta = /^\d{6}$/.test(code) ? totp.validate({ token: code, timestamp: now, window: 1 }) : null;
  const step = delta === null ? null : Math.floor(now / 30_000) + delta;
  const valid = step !== null && (factor.last_accepted_step === null || step > factor.last_accepted_step);

  // The MFA verification attempt hook ([auth.hook.mfa_verification_attempt]) decides on every attempt.
  const hook = settings.hooks.mfaVerificationAttempt;
  if (hook) {
    const output = await mfaVerificationAttempt(ctx.db, hook, {
      userId: user.id,
      factorId: factor.id,
      factorType: factor.factor_type,
      valid,
      ip: ip || null,
    });
    if (output.decision === 'reject') {
      // models.Logout: every session of the member ends.
      await endSessions(ctx.db, user.id);
      throw forbidden(
        'mfa_verification_rejected',
        output.message || 'Further MFA verification attempts will be rejected.',
      );
    }
  }
  if (!valid || step === null) throw unprocessable('mfa_verification_failed', 'Invalid TOTP code entered');

  const enrolled = factor.status !== 'verified';
  const token = await ctx.db.transaction(async (tx) => {
    // challenge.Verify: a challenge is good for one accepted code; the update also settles a race.
    if (!(await markChallengeVerified(tx, challengeId))) {
      throw unprocessable('mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
    }
    // Two requests with one code: the first to record its step wins, the other's code is used.
    if (!(await claimTotpStep(tx, factor.id, step))) {
      throw unprocessable('mfa_verification_failed', 'Invalid TOTP code entered');
    }
    await markFactorVerified(tx, factor.id);
    // As in GoTrue, the answer's user is read before the other unverified factors are removed.
    const fresh = (await findUserById(tx, user.id)) as UserRow;
    const answer = await upgradeSession(tx, settings, fresh, sessionId, 'totp', factor.id);
    // InvalidateSessionsWithAALLessThan(aal2) and DeleteUnverifiedFactors(totp).
    await endSessionsBelowAal2(tx, user.id);
    await deleteUnverifiedTotpFactors(tx, user.id);
    return answer;
  });
  // The factor was just verified: the member's "factor enrolled" mail, after the change is stored.
  if (enrolled) await ctx.mail.notify('mfa_factor_enrolled', user, factor.factor_type);
  return json(token);
}

/** DELETE /factors/:factorId. */
async function unenrollFactor(c: Context, ctx: AuthContext): Promise<Response> {
  const { user, sessionId } = await member(c, ctx);
  const factor = await loadFactor(ctx.db, user, c.req.param('factorId') ?? '');
  if (factor.status === 'verified' && (await sessionAal(ctx.db, sessionId)) !== 'aal2') {
    throw unprocessable('insufficient_aal', 'AAL2 required to unenroll verified factor');
  }
  await ctx.db.transaction((tx) => removeFactor(tx, factor));
  // GoTrue mails the member for any factor removed this way (not for the admin API's removal below).
  await ctx.mail.notify('mfa_factor_unenrolled', user, factor.factor_type);
  return json({ id: factor.id });
}

/** GET /admin/users/:id/factors. */
async function adminUserGetFactors(c: Context, ctx: AuthContext): Promise<Response> {
  const user = await adminUser(c, ctx);
  return json(user.factors.map(factorJson));
}

/** DELETE /admin/users/:id/factors/:factorId. */
async function adminUserDeleteFactor(c: Context, ctx: AuthContext): Promise<Response> {
  const user = await adminUser(c, ctx);
  const factor = await loadFactor(ctx.db, user, c.req.param('factorId') ?? '');
  await ctx.db.transaction((tx) => removeFactor(tx, factor));
  return json(factorJson(factor));
}
