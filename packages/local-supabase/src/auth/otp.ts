// Email OTPs and their hashes (GoTrue's crypto.GenerateTokenHash; one-time-tokens.ts stores them), and PKCE
// flow states (models/flow_state.go).
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import { badRequest, notFound, unprocessable } from './errors.ts';

/** A mailed link's token: random, so that it cannot be computed from the address and a guessed code. */
export function linkToken(): string {
  return randomBytes(28).toString('hex');
}

/** A numeric code of `length` digits. */
export function generateOtp(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}

/** hex(SHA-224(email + otp)), what email links carry. */
export function tokenHash(email: string, otp: string): string {
  return createHash('sha224')
    .update(email + otp)
    .digest('hex');
}

export const PKCE_PREFIX = 'pkce_';

// ---- PKCE ----

const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** validatePKCEParams. */
export function validatePkceParams(method: string | null | undefined, challenge: string | null | undefined): void {
  const m = method ?? '';
  const c = challenge ?? '';
  if ((m === '') !== (c === '')) {
    throw badRequest('validation_failed', 'PKCE flow requires code_challenge_method and code_challenge');
  }
  if (c !== '' && !CODE_CHALLENGE.test(c)) {
    throw badRequest('validation_failed', 'code challenge has to be between 43 and 128 characters');
  }
  if (m !== '' && !['s256', 'plain'].includes(m.toLowerCase())) {
    throw badRequest('validation_failed', `unsupported code_challenge method "${m}"`);
  }
}

/** A flow state waiting for its email link; the link's token then carries the pkce_ prefix. */
export async function createFlowState(
  tx: Queryable,
  userId: string,
  providerType: string,
  authenticationMethod: string,
  challenge: string,
  method: string,
): Promise<void> {
  const now = new Date().toISOString();
  await tx.query(
    `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type,
        created_at, updated_at, authentication_method)
      values ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
    [randomUUID(), userId, randomUUID(), method.toLowerCase(), challenge, providerType, now, authenticationMethod],
  );
}

/** Deletes every PKCE flow state of the user (they do not cascade with the user row). */
export async function deleteFlowStates(tx: Queryable, userId: string): Promise<void> {
  await tx.query('delete from auth.flow_state where user_id = $1', [userId]);
}

/** issueAuthCode: the newest flow state of this user and method gets its code issued now. */
export async function issueAuthCode(tx: Queryable, userId: string, authenticationMethod: string): Promise<string> {
  const rows = await tx.query<{ auth_code: string }>(
    `update auth.flow_state set auth_code_issued_at = $3, updated_at = $3
      where id = (select id from auth.flow_state where user_id = $1 and authentication_method = $2
                   order by created_at desc limit 1)
      returning auth_code`,
    [userId, authenticationMethod, new Date().toISOString()],
  );
  if (!rows[0]) {
    throw badRequest('flow_state_not_found', 'No associated flow state found. flow state not found');
  }
  return rows[0].auth_code;
}

interface FlowRow {
  id: string;
  user_id: string | null;
  code_challenge: string;
  code_challenge_method: string;
  authentication_method: string;
  created_ms: number;
  issued_ms: number | null;
}

/** The PKCE grant's checks, in GoTrue's order; returns the flow state for the caller to consume. */
export async function takeFlowState(
  tx: Queryable,
  authCode: string,
  verifier: string,
  expirySeconds: number,
): Promise<{ userId: string; authenticationMethod: string }> {
  const rows = await tx.query<FlowRow>(
    `select id::text, user_id::text, code_challenge, code_challenge_method, authentication_method,
            (extract(epoch from created_at) * 1000)::float8 as created_ms,
            (extract(epoch from auth_code_issued_at) * 1000)::float8 as issued_ms
       from auth.flow_state where auth_code = $1`,
    [authCode],
  );
  const flow = rows[0];
  if (!flow || !flow.user_id) {
    throw notFound('flow_state_not_found', 'invalid flow state, no valid flow state found');
  }
  // Counted from when the code was issued (the link may sit in the inbox a while), else from creation.
  const from = flow.issued_ms ?? flow.created_ms;
  if (Date.now() > Number(from) + expirySeconds * 1000) {
    throw unprocessable('flow_state_expired', 'invalid flow state, flow state has expired');
  }
  if (!verifyPkce(flow.code_challenge, flow.code_challenge_method, verifier)) {
    throw badRequest('bad_code_verifier', 'code challenge does not match previously saved code verifier');
  }
  await tx.query('delete from auth.flow_state where id = $1', [flow.id]);
  return { userId: flow.user_id, authenticationMethod: flow.authentication_method };
}

function verifyPkce(challenge: string, method: string, verifier: string): boolean {
  const expected = method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const a = Buffer.from(challenge);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
