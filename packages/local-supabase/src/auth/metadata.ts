// The size limit on user metadata that the project's migration enforces on auth.users (trigger
// limit_user_metadata_size, 4096 bytes of the jsonb's text). The stack checks it before writing, so that a
// too-large sign-up or update is a clear 400 that changes nothing (hosted GoTrue, meeting the trigger,
// answers 500 "Database error ...", also changing nothing).
import type { Queryable } from '../db/types.ts';
import { badRequest } from './errors.ts';

export const MAX_USER_METADATA_BYTES = 4096;

/** 400 validation_failed when `metadata`, as Postgres stores it, is over the limit. */
export async function checkMetadataSize(db: Queryable, metadata: Record<string, unknown>): Promise<void> {
  // Measured by Postgres itself: jsonb's text form (spacing, number forms) is what the trigger counts.
  const rows = await db.query<{ n: number }>('select octet_length($1::jsonb::text)::int as n', [
    JSON.stringify(metadata),
  ]);
  if (Number(rows[0]?.n ?? 0) > MAX_USER_METADATA_BYTES) {
    throw badRequest('validation_failed', `User metadata is too large: at most ${MAX_USER_METADATA_BYTES} bytes`);
  }
}
