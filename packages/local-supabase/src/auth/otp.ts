// Email OTPs and their one-time tokens (GoTrue's crypto.GenerateTokenHash and models/one_time_token.go),
// and PKCE flow states (models/flow_state.go).
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import { badRequest, notFound, unprocessable } from './errors.ts';

export type TokenType = 'confirmation_token' | 'recovery_token';

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

/**
 * Stores a fresh token for the user: the column GoTrue keeps on auth.users (what email + code is checked
 * against), its sent_at, and the auth.one_time_tokens row the link is looked up by (one per user and type),
 * with its count of failed verifications back at 0. The link's token is the code's hash unless `linkToken`
 * says otherwise (mailed links carry a random one: see links.ts).
 */
export async function storeOneTimeToken(
  tx: Queryable,
  userId: string,
  email: string,
  type: TokenType,
  token: string,
  sentAt: string,
  linkToken = token,
): Promise<void> {
  const [column, sentColumn] =
    type === 'confirmation_token'
      ? ['confirmation_token', 'confirmation_sent_at']
      : ['recovery_token', 'recovery_sent_at'];
  await tx.query(
    `with u as (update auth.users set ${column} = $3::text, ${sentColumn} = $5::timestamptz where id = $1::uuid)
     insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
     values ($6, $1::uuid, $2, $7::text, $4, ($5::timestamptz at time zone 'UTC'), ($5::timestamptz at time zone 'UTC'))
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
           created_at = excluded.created_at, updated_at = excluded.updated_at, failed_attempts = 0`,
    [userId, type, token, email.toLowerCase(), sentAt, randomUUID(), linkToken],
  );
}

/** Failed verifications a token survives: the next miss ends it, whatever addresses the guesses came from. */
export const MAX_FAILED_VERIFICATIONS = 10;

/**
 * Counts one failed verification of the user's live tokens of these types (a wrong code for a known
 * address); a token that reaches MAX_FAILED_VERIFICATIONS is deleted, its link and code with it. A six-digit
 * code has 10^6 values, so per-address limits alone let a spread-out guesser through; this does not.
 */
export async function recordFailedVerification(db: Queryable, userId: string, types: TokenType[]): Promise<void> {
  const rows = await db.query<{ token_type: TokenType; failed_attempts: number }>(
    `update auth.one_time_tokens set failed_attempts = failed_attempts + 1
      where user_id = $1 and token_type = any($2::text[]) returning token_type, failed_attempts`,
    [userId, types],
  );
  for (const row of rows) {
    if (Number(row.failed_attempts) < MAX_FAILED_VERIFICATIONS) continue;
    const column = row.token_type === 'confirmation_token' ? 'confirmation_token' : 'recovery_token';
    await db.query(
      `with o as (delete from auth.one_time_tokens where user_id = $1 and token_type = $2)
       update auth.users set ${column} = '' where id = $1`,
      [userId, row.token_type],
    );
  }
}

/** The user a one-time token belongs to, by the token as sent in the link. */
export async function findUserIdByToken(
  db: Queryable,
  token: string,
  types: TokenType[],
): Promise<{ userId: string; type: TokenType } | undefined> {
  const rows = await db.query<{ user_id: string; token_type: TokenType }>(
    `select user_id::text, token_type from auth.one_time_tokens
      where token_hash = $1 and token_type = any($2::text[]) limit 1`,
    [token, types],
  );
  return rows[0] && { userId: rows[0].user_id, type: rows[0].token_type };
}

export async function clearOneTimeToken(tx: Queryable, userId: string, type: TokenType): Promise<void> {
  await tx.query('delete from auth.one_time_tokens where user_id = $1 and token_type = $2', [userId, type]);
}

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
