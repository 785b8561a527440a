// JWTs as GoTrue issues them and PostgREST and the functions relay verify them. Access tokens are signed
// with ES256 by default, as on new hosted projects (asymmetric signing keys): the private key stays in the
// stack, the public key is published at /auth/v1/.well-known/jwks.json. JWT_SIGNING=hs256 keeps the legacy
// mode (access tokens signed with the JWT secret). Either way every verifier accepts both: ES256 by `kid`
// from the stack's key set, HS256 with the JWT secret (the anon and service_role keys stay HS256).
// Except: in ES256 mode with a JWT secret of the stack's own, the only HS256 tokens taken are the stack's
// two API keys, so a token forged with the shared secret (a member's `sub`, say) is refused. With the
// CLI's demo secret everything HS256 is taken, as the CLI does (tools sign admin tokens with it).
//
// The EC P-256 key is generated at first start and kept in DATA_DIR/jwt-signing-key.json, like a hosted
// project's key: random, so nothing public (such as the demo JWT secret) lets anyone derive it, and kept so
// sessions issued before a restart stay valid. A fresh DATA_DIR means a fresh key.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeProtectedHeader,
  errors,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';

const encoder = new TextEncoder();

export type Claims = JWTPayload & { role?: string; [key: string]: unknown };
export type JwtSigning = 'ES256' | 'HS256';

/** The public half of the signing key as the JWKS endpoint lists it. */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
  key_ops: ['verify'];
}

/** What signs and verifies the stack's JWTs. */
export interface JwtKeys {
  /** The shared secret of HS256 tokens (legacy keys, and access tokens with JWT_SIGNING=hs256). */
  secret: string;
  /** How new access tokens are signed. */
  signing: JwtSigning;
  kid: string;
  privateKey: CryptoKey | Uint8Array;
  publicKey: CryptoKey | Uint8Array;
  publicJwk: PublicJwk;
  /** When set, the only HS256 tokens accepted (the API keys); undefined accepts any signed with `secret`. */
  hs256Tokens?: ReadonlySet<string>;
}

export const SIGNING_KEY_FILE = 'jwt-signing-key.json';

/** The ES256 key under `dataDir`, generated (and written with mode 0600) the first time. */
export async function loadJwtKeys(secret: string, signing: JwtSigning, dataDir: string): Promise<JwtKeys> {
  const file = join(dataDir, SIGNING_KEY_FILE);
  let privateJwk: JWK;
  if (existsSync(file)) {
    try {
      privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
    } catch (err) {
      throw new Error(`${file}: not a JSON Web Key (${(err as Error).message}); delete it to get a new key`);
    }
  } else {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateJwk = { ...(await exportJWK(pair.privateKey)), kid: randomUUID(), alg: 'ES256' };
    mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }
  return keysFromJwk(secret, signing, privateJwk);
}

/** The key set of a private EC P-256 JWK (with its kid). */
export async function keysFromJwk(secret: string, signing: JwtSigning, privateJwk: JWK): Promise<JwtKeys> {
  if (privateJwk.kty !== 'EC' || privateJwk.crv !== 'P-256' || !privateJwk.d || !privateJwk.kid) {
    throw new Error('JWT signing key: expected a private EC P-256 JWK with a kid');
  }
  const { x, y, kid } = privateJwk as JWK & { x: string; y: string; kid: string };
  const publicJwk: PublicJwk = {
    kty: 'EC',
    crv: 'P-256',
    x,
    y,
    kid,
    alg: 'ES256',
    use: 'sig',
    key_ops: ['verify'],
  };
  return {
    secret,
    signing,
    kid,
    privateKey: await importJWK({ ...privateJwk, key_ops: ['sign'] }, 'ES256'),
    publicKey: await importJWK({ kty: 'EC', crv: 'P-256', x, y }, 'ES256'),
    publicJwk,
  };
}

/** HS256 with a shared secret: the legacy API keys, and tests that forge tokens. */
export async function signJwt(claims: Claims, secret: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(encoder.encode(secret));
}

/** An access token as the stack's auth issues it: ES256 with `kid`, or HS256 in the legacy mode. */
export async function signAccessToken(claims: Claims, keys: JwtKeys): Promise<string> {
  if (keys.signing === 'HS256') return signJwt(claims, keys.secret);
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: keys.kid, typ: 'JWT' }).sign(keys.privateKey);
}

/** An ES256 token that names no kid of the key set, or an algorithm the stack does not use. */
export class UnknownKeyError extends Error {}

/**
 * jose's key lookup for the stack's tokens: HS256 -> the secret; ES256 -> the key with the token's kid.
 * Anything else is refused before any signature is checked.
 */
export function keyResolver(keys: JwtKeys | string): JWTVerifyGetKey {
  const set = typeof keys === 'string' ? undefined : keys;
  const secret = encoder.encode(typeof keys === 'string' ? keys : keys.secret);
  return (header) => {
    if (header.alg === 'HS256') return secret;
    if (header.alg === 'ES256' && set && header.kid === set.kid) return set.publicKey;
    // GoTrue's keyfunc wording (supabase/auth internal/api/auth.go, parseJWTClaims).
    if (header.alg === 'ES256')
      throw new UnknownKeyError(`unrecognized JWT kid ${header.kid ?? '<nil>'} for algorithm ES256`);
    throw new errors.JOSEAlgNotAllowed(`"alg" (Algorithm) Header Parameter value not allowed`);
  };
}

/** Both algorithms the stack verifies (only HS256 when given just a secret). */
export const algorithmsOf = (keys: JwtKeys | string) => (typeof keys === 'string' ? ['HS256'] : ['HS256', 'ES256']);

/** Verifies a token of the stack: `jwtVerify` with the key set's resolver. */
export async function verifyWithKeys(token: string, keys: JwtKeys | string): Promise<Claims> {
  if (
    typeof keys !== 'string' &&
    keys.hs256Tokens &&
    !keys.hs256Tokens.has(token) &&
    tokenAlgorithm(token) === 'HS256'
  ) {
    throw new errors.JWSSignatureVerificationFailed();
  }
  const { payload } = await jwtVerify(token, keyResolver(keys), { algorithms: algorithmsOf(keys) });
  return payload as Claims;
}

export type VerifyResult = { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid' };

export async function verifyJwt(token: string, keys: JwtKeys | string): Promise<VerifyResult> {
  try {
    return { ok: true, claims: await verifyWithKeys(token, keys) };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}

/** The token's `alg` header, or undefined when it has none or cannot be decoded. */
export function tokenAlgorithm(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
}

/** The token in an `Authorization: Bearer <token>` header, or undefined. */
export function bearer(header: string | undefined | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
