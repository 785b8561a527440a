// HS256 JWTs as GoTrue issues them and PostgREST verifies them.
import { errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';

const encoder = new TextEncoder();

export type Claims = JWTPayload & { role?: string; [key: string]: unknown };

export async function signJwt(claims: Claims, secret: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(encoder.encode(secret));
}

export type VerifyResult = { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid' };

export async function verifyJwt(token: string, secret: string): Promise<VerifyResult> {
  try {
    const { payload } = await jwtVerify(token, encoder.encode(secret), { algorithms: ['HS256'] });
    return { ok: true, claims: payload as Claims };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}

/** The token in an `Authorization: Bearer <token>` header, or undefined. */
export function bearer(header: string | undefined | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
