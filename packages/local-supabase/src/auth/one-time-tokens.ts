// One-time tokens (GoTrue's models/one_time_token.go and the token columns of models/user.go): the hash a
// code is checked against, kept on auth.users with its sent_at, and the auth.one_time_tokens row (one per
// user and type) that links are looked up by and failed verifications are counted on.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.ts';

export type TokenType = 'confirmation_token' | 'recovery_token';

/** The auth.users columns of a token type: the token and when it was sent. */
function userColumns(type: TokenType): [string, string] {
  return type === 'confirmation_token'
    ? ['confirmation_token', 'confirmation_sent_at']
    : ['recovery_token', 'recovery_sent_at'];
}

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
  const [column, sentColumn] = userColumns(type);
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

/** Undoes storeOneTimeToken when its mail never left: the previous token and sent_at back, the new link gone. */
export async function restoreOneTimeToken(
  db: Queryable,
  userId: string,
  type: TokenType,
  previous: { token: string | null; sentAt: string | null },
  linkToken: string,
): Promise<void> {
  const [column, sentColumn] = userColumns(type);
  await db.query(`update auth.users set ${column} = $2, ${sentColumn} = $3 where id = $1`, [
    userId,
    previous.token ?? '',
    previous.sentAt,
  ]);
  await db.query('delete from auth.one_time_tokens where user_id = $1 and token_type = $2 and token_hash = $3', [
    userId,
    type,
    linkToken,
  ]);
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
    const [column] = userColumns(row.token_type);
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

/** Deletes every one-time token of the user. */
export async function deleteOneTimeTokens(tx: Queryable, userId: string): Promise<void> {
  await tx.query('delete from auth.one_time_tokens where user_id = $1', [userId]);
}

/** Stores the hash of a mailed reauthentication code on auth.users and as the user's one-time token. */
export async function storeReauthenticationToken(
  db: Queryable,
  userId: string,
  email: string,
  hash: string,
  sentAt: string,
): Promise<void> {
  await db.query(
    `with u as (
       update auth.users set reauthentication_token = $2, reauthentication_sent_at = $3::timestamptz where id = $1
     )
     insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
     values ($5, $1, 'reauthentication_token', $2, $4, ($3::timestamptz at time zone 'UTC'),
             ($3::timestamptz at time zone 'UTC'))
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to,
           created_at = excluded.created_at, updated_at = excluded.updated_at`,
    [userId, hash, sentAt, email.toLowerCase(), randomUUID()],
  );
}

/** The stored reauthentication hash and when it was sent (ms since the epoch), as read from auth.users. */
export async function findReauthenticationToken(
  db: Queryable,
  userId: string,
): Promise<{ token: string | null; sentMs: number | null } | undefined> {
  const rows = await db.query<{ token: string | null; sent_ms: number | null }>(
    `select reauthentication_token as token,
            (extract(epoch from reauthentication_sent_at) * 1000)::float8 as sent_ms
       from auth.users where id = $1`,
    [userId],
  );
  const row = rows[0];
  return row && { token: row.token, sentMs: row.sent_ms == null ? null : Number(row.sent_ms) };
}

/** ConfirmReauthentication: the reauthentication token is used up, with every one-time token of the user. */
export async function consumeReauthenticationToken(db: Queryable, userId: string): Promise<void> {
  await db.query(
    `with u as (update auth.users set reauthentication_token = '' where id = $1)
     delete from auth.one_time_tokens where user_id = $1`,
    [userId],
  );
}
