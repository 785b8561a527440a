// MFA factors and their challenges (GoTrue's models/factor.go and challenge.go): auth.mfa_factors and
// auth.mfa_challenges. The factor's answer shape (FACTOR_JSON, factorJson) lives with the user in users.ts.
import type { Queryable } from '../db/types.ts';
import { FACTOR_JSON, type FactorRow } from './users.ts';

/** A factor with what only the server sees: its owner, TOTP secret and the last time step it accepted. */
export interface StoredFactor extends FactorRow {
  user_id: string;
  secret: string | null;
  /** The 30-s step of the last code accepted (the stack's own column; GoTrue keeps none), or null. */
  last_accepted_step: number | null;
}

const FACTOR_COLUMNS = `f.id::text as id, ${FACTOR_JSON} as answer, f.user_id::text as user_id, f.secret,
  f.status::text as status, f.factor_type::text as factor_type, f.last_accepted_step`;

function rowToFactor(row: Record<string, unknown>): StoredFactor {
  const answer = (typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer) as FactorRow;
  return {
    ...answer,
    user_id: String(row.user_id),
    secret: (row.secret as string | null) ?? null,
    last_accepted_step: row.last_accepted_step === null ? null : Number(row.last_accepted_step),
  };
}

/** The factor with this id if `userId` owns it. */
export async function findFactor(db: Queryable, userId: string, factorId: string): Promise<StoredFactor | undefined> {
  const rows = await db.query<Record<string, unknown>>(
    `select ${FACTOR_COLUMNS} from auth.mfa_factors f where f.id = $1 and f.user_id = $2`,
    [factorId, userId],
  );
  return rows[0] && rowToFactor(rows[0]);
}

/** The friendly name and status of each of the user's factors, for enrolment's limits. */
export async function listFactorNames(
  db: Queryable,
  userId: string,
): Promise<{ friendly_name: string | null; status: string }[]> {
  return db.query<{ friendly_name: string | null; status: string }>(
    'select friendly_name, status::text as status from auth.mfa_factors where user_id = $1',
    [userId],
  );
}

/**
 * validateFactors' cleanup: deletes every user's unverified factors that were never challenged within
 * `factorExpiry` seconds, and (Cleanup's rule) any unverified factor older than 24 hours.
 */
export async function deleteExpiredFactors(db: Queryable, factorExpiry: number): Promise<void> {
  await db.query(
    `delete from auth.mfa_factors f where f.status <> 'verified'
        and (not exists (select 1 from auth.mfa_challenges ch where ch.factor_id = f.id)
               and f.created_at + make_interval(secs => $1) < current_timestamp
             -- Cleanup's rule: unverified factors go after 24 hours, challenged or not.
             or f.created_at < now() - interval '24 hours')`,
    [factorExpiry],
  );
}

/** Enrols an unverified TOTP factor with its secret. */
export async function createTotpFactor(
  db: Queryable,
  factor: { id: string; userId: string; friendlyName: string; secret: string; createdAt: string },
): Promise<void> {
  await db.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
     values ($1, $2, $3, 'totp', 'unverified', $4, $4, $5)`,
    [factor.id, factor.userId, factor.friendlyName, factor.createdAt, factor.secret],
  );
}

/**
 * A challenge of the factor from the caller's address (none: 0.0.0.0), stamped on the factor as
 * last_challenged_at; as GoTrue's Cleanup does, up to 100 challenges older than 24 hours go first.
 */
export async function createChallenge(
  db: Queryable,
  challenge: { id: string; factorId: string; createdAt: string; ip: string },
): Promise<void> {
  await db.query(
    `with old as (
       delete from auth.mfa_challenges where id in (
         select id from auth.mfa_challenges where created_at < now() - interval '24 hours' limit 100)
     ), ch as (
       insert into auth.mfa_challenges (id, factor_id, created_at, ip_address)
       values ($1, $2, $3, coalesce(nullif($4, '')::inet, '0.0.0.0'::inet))
     )
     update auth.mfa_factors set last_challenged_at = $3 where id = $2`,
    [challenge.id, challenge.factorId, challenge.createdAt, challenge.ip],
  );
}

/** The factor's challenge as validateChallenge checks it: used yet, from this address, past `expiry` seconds. */
export async function findChallenge(
  db: Queryable,
  challengeId: string,
  factorId: string,
  ip: string,
  expiry: number,
): Promise<{ verified: boolean; same_ip: boolean; expired: boolean } | undefined> {
  const rows = await db.query<{ verified: boolean; same_ip: boolean; expired: boolean }>(
    `select verified_at is not null as verified,
            ip_address = coalesce(nullif($3, '')::inet, '0.0.0.0'::inet) as same_ip,
            created_at + make_interval(secs => $4) < now() as expired
       from auth.mfa_challenges where id = $1 and factor_id = $2`,
    [challengeId, factorId, ip, expiry],
  );
  return rows[0];
}

/** Deletes a challenge (an expired one). */
export async function deleteChallenge(db: Queryable, challengeId: string): Promise<void> {
  await db.query('delete from auth.mfa_challenges where id = $1', [challengeId]);
}

/** challenge.Verify: marks the challenge used; false when it already was (a race lost). */
export async function markChallengeVerified(tx: Queryable, challengeId: string): Promise<boolean> {
  const used = await tx.query<{ id: string }>(
    `update auth.mfa_challenges set verified_at = now() where id = $1 and verified_at is null returning id`,
    [challengeId],
  );
  return Boolean(used[0]);
}

/**
 * Records `step` as the last one the factor accepted, if it is later than the one recorded (RFC 6238 §5.2:
 * a code is good once); false when it is not, e.g. a parallel request with the same code won.
 */
export async function claimTotpStep(tx: Queryable, factorId: string, step: number): Promise<boolean> {
  const claimed = await tx.query<{ id: string }>(
    `update auth.mfa_factors set last_accepted_step = $2
      where id = $1 and (last_accepted_step is null or last_accepted_step < $2) returning id`,
    [factorId, step],
  );
  return Boolean(claimed[0]);
}

/** A good code: the factor is verified (updated_at kept if it already was). */
export async function markFactorVerified(tx: Queryable, factorId: string): Promise<void> {
  await tx.query(
    `update auth.mfa_factors set status = 'verified', updated_at = case when status = 'verified'
            then updated_at else now() end
      where id = $1`,
    [factorId],
  );
}

/** DeleteUnverifiedFactors(totp): the user's TOTP factors that were never verified. */
export async function deleteUnverifiedTotpFactors(tx: Queryable, userId: string): Promise<void> {
  await tx.query(`delete from auth.mfa_factors where user_id = $1 and status = 'unverified' and factor_type = 'totp'`, [
    userId,
  ]);
}

/** factor.Destroy: deletes the factor (its challenges cascade). */
export async function deleteFactor(tx: Queryable, factorId: string): Promise<void> {
  await tx.query('delete from auth.mfa_factors where id = $1', [factorId]);
}
