// Who a REST request runs as: the role claim of its JWT, as PostgREST decides it.
// The token is `Authorization: Bearer <jwt>`; without one, the apikey header's JWT (the gateway's fallback).
import { decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { Db } from '../db/types.ts';
import { type JwtKeys, UnknownKeyError, verifyWithKeys } from '../jwt.ts';
import { ApiError, jwtError } from './errors.ts';

export const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type ApiRole = (typeof API_ROLES)[number];

export interface RequestIdentity {
  role: ApiRole;
  /** The JWT claims with `role` filled in, as set into request.jwt.claims. */
  claims: Record<string, unknown>;
}

function tokenFrom(authorization: string | undefined, apikey: string | undefined): string | undefined {
  if (authorization !== undefined) {
    const m = /^bearer(?:\s+(.*))?$/i.exec(authorization.trim());
    if (m) {
      const token = (m[1] ?? '').trim();
      if (token === '') throw jwtError('PGRST301', 'Empty JWT is sent in Authorization header');
      return token;
    }
  }
  return apikey || undefined;
}

/**
 * Verified tokens and their claims, as PostgREST's JWT cache (jwt-cache-max-lifetime): a token seen again
 * skips the signature check, but only while it has not expired (the same `exp` test jose makes), for at most
 * `maxLifetime` seconds, and for one key set (one per REST app). Only tokens that verified are kept, so
 * every refusal is decided afresh; the `size` most recently stored, oldest dropped first.
 */
export class JwtCache {
  private readonly entries = new Map<string, { claims: Record<string, unknown>; until: number }>();
  private readonly size: number;
  private readonly maxLifetime: number;

  constructor(options: { size?: number; maxLifetime?: number } = {}) {
    this.size = options.size ?? 1000;
    this.maxLifetime = options.maxLifetime ?? 3600;
  }

  /** The claims of a token verified before, while they are still valid (`now` in epoch seconds). */
  get(token: string, now = Math.floor(Date.now() / 1000)): Record<string, unknown> | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, claims: Record<string, unknown>, now = Math.floor(Date.now() / 1000)): void {
    const exp = typeof claims.exp === 'number' ? claims.exp : Number.POSITIVE_INFINITY;
    const until = Math.min(exp, now + this.maxLifetime);
    if (now >= until) return;
    this.entries.delete(token);
    this.entries.set(token, { claims: Object.freeze({ ...claims }), until });
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }
}

async function verify(token: string, keys: JwtKeys | string, cache?: JwtCache): Promise<Record<string, unknown>> {
  const cached = cache?.get(token);
  if (cached) return cached;
  const claims = await verifyToken(token, keys);
  cache?.set(token, claims);
  return claims;
}

async function verifyToken(token: string, keys: JwtKeys | string): Promise<Record<string, unknown>> {
  const parts = token.split('.');
  if (parts.length !== 3) throw jwtError('PGRST301', `Expected 3 parts in JWT; got ${parts.length}`);
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw jwtError('PGRST301', "JWT couldn't be decoded");
  }
  // PostgREST takes HS256 with the secret and ES256 with a key of its JWKS (the stack's signing key).
  if (alg !== 'HS256' && !(alg === 'ES256' && typeof keys !== 'string')) {
    throw jwtError('PGRST301', 'Wrong or unsupported encoding algorithm');
  }
  try {
    return await verifyWithKeys(token, keys);
  } catch (err) {
    // PostgREST (src/PostgREST/Error.hs, JwtDecodeErr KeyError): no key of the set matches the token's kid.
    if (err instanceof UnknownKeyError) throw jwtError('PGRST301', 'No suitable key or wrong key type');
    if (err instanceof joseErrors.JWTExpired) throw jwtError('PGRST303', 'JWT expired');
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === 'nbf') throw jwtError('PGRST303', 'JWT not yet valid');
      if (err.claim === 'iat') throw jwtError('PGRST303', 'JWT issued at future');
      throw jwtError('PGRST303', 'Parsing claims failed');
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw jwtError('PGRST301', 'JWT cryptographic operation failed');
    }
    throw jwtError('PGRST301', "JWT couldn't be decoded");
  }
}

/**
 * Verifies the request's JWT and returns its role and claims. A token without a role claim runs as anon.
 * Roles other than the three API roles are refused the way Postgres refuses PostgREST's SET ROLE:
 * 401 when the role does not exist, 403 when it exists but the API may not switch to it.
 */
export async function identify(
  headers: { authorization?: string; apikey?: string },
  keys: JwtKeys | string,
  db: Db,
  cache?: JwtCache,
): Promise<RequestIdentity> {
  const token = tokenFrom(headers.authorization, headers.apikey);
  if (token === undefined) return { role: 'anon', claims: { role: 'anon' } };
  const claims = await verify(token, keys, cache);
  const role = claims.role === undefined ? 'anon' : claims.role;
  if (typeof role === 'string' && (API_ROLES as readonly string[]).includes(role)) {
    return { role: role as ApiRole, claims: { ...claims, role } };
  }
  const name = String(role);
  const [row] = await db.query<{ exists: boolean }>(
    'select exists (select 1 from pg_catalog.pg_roles where rolname = $1::text) as exists',
    [name],
  );
  if (row?.exists) {
    throw ApiError.pgrst(403, '42501', `permission denied to set role "${name}"`);
  }
  throw ApiError.pgrst(401, '22023', `role "${name}" does not exist`, null, null, { 'WWW-Authenticate': 'Bearer' });
}
