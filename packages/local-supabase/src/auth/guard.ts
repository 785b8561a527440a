// requireAuthentication and requireAdminCredentials (GoTrue internal/api/auth.go): Bearer token, JWT
// verification with golang-jwt's wording, the user and session behind it.
import type { Context } from 'hono';
import { errors } from 'jose';
import { bearer, type Claims, UnknownKeyError, verifyWithKeys } from '../jwt.ts';
import { AuthError, badRequest, forbidden } from './errors.ts';
import type { AuthContext } from './request.ts';
import { findUserWithSession, isUuid, type UserRow } from './users.ts';

const ADMIN_ROLES = ['service_role', 'supabase_admin'];
function extractBearer(c: Context): string {
  const token = bearer(c.req.header('authorization'));
  if (!token) throw new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token');
  return token;
}

/** golang-jwt v5's error texts, which GoTrue puts after "invalid JWT: unable to parse or verify signature, ". */
function jwtReason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token has invalid claims: token is expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token has invalid claims: ${err.message}`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature is invalid: signature is invalid';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token is unverifiable: signing method is invalid';
  // GoTrue's key lookup (supabase/auth internal/api/auth.go, parseJWTClaims): an ES256 kid not in the key set.
  if (err instanceof UnknownKeyError) return `token is unverifiable: error while executing keyfunc: ${err.message}`;
  return 'token is malformed: could not parse the token';
}

async function parseClaims(ctx: AuthContext, token: string): Promise<Claims> {
  try {
    return await verifyWithKeys(token, ctx.settings.jwtKeys);
  } catch (err) {
    throw forbidden('bad_jwt', `invalid JWT: unable to parse or verify signature, ${jwtReason(err)}`);
  }
}

export interface Authenticated {
  claims: Claims;
  user: UserRow;
  sessionId: string | null;
}

/** The signed-in user of this request, or GoTrue's 401/403 answers. */
export async function requireAuthentication(c: Context, ctx: AuthContext): Promise<Authenticated> {
  const claims = await parseClaims(ctx, extractBearer(c));
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  if (!sub) throw forbidden('bad_jwt', 'invalid claim: missing sub claim');
  if (!isUuid(sub)) throw badRequest('bad_jwt', 'invalid claim: sub claim must be a UUID');
  const rawSession = typeof claims.session_id === 'string' ? claims.session_id : '';
  const sessionId = rawSession && rawSession !== '00000000-0000-0000-0000-000000000000' ? rawSession : null;
  if (sessionId && !isUuid(sessionId)) throw forbidden('bad_jwt', 'invalid claim: session_id claim must be a UUID');
  const { user, sessionExists } = await findUserWithSession(ctx.db, sub, sessionId);
  if (!user) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist');
  if (sessionId && !sessionExists) {
    throw forbidden('session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  return { claims, user, sessionId };
}

/** A service_role (or supabase_admin) token, else 403 not_admin. */
export async function requireAdmin(c: Context, ctx: AuthContext): Promise<Claims> {
  const claims = await parseClaims(ctx, extractBearer(c));
  if (typeof claims.role !== 'string' || !ADMIN_ROLES.includes(claims.role)) {
    throw forbidden('not_admin', 'User not allowed');
  }
  return claims;
}
