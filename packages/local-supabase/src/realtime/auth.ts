// Who may do what on a channel, as Realtime decides it: the token (the socket's apikey, or the access_token
// of a join / an `access_token` update) checked as RealtimeWeb.ChannelsAuthorization does, and a private
// channel's rights read from the RLS policies of realtime.messages as Realtime.Tenants.Authorization reads
// them: in a transaction that is rolled back, as the token's role with its claims and `realtime.topic` set,
// a probe row is inserted (as the owner) and selected back (read), or inserted as the role (write).
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors } from 'jose';
import type { Db, Queryable } from '../db/types.ts';
import { type Claims, type JwtKeys, UnknownKeyError, verifyWithKeys } from '../jwt.ts';

export type TokenCheck =
  | { ok: true; claims: Claims; exp: number }
  | { ok: false; kind: 'expired' | 'missing_claims' | 'malformed' | 'signature' | 'signer'; message: string };

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Realtime's checks of a token: signature (the stack's keys), `exp` in the future, `role` and `exp` present. */
export async function checkToken(token: string, keys: JwtKeys): Promise<TokenCheck> {
  const cleaned = token.replace(/\s/g, '');
  try {
    decodeProtectedHeader(cleaned);
    decodeJwt(cleaned);
  } catch {
    return { ok: false, kind: 'malformed', message: 'The token provided is not a valid JWT' };
  }
  let claims: Claims;
  try {
    claims = await verifyWithKeys(cleaned, keys);
  } catch (err) {
    if (err instanceof errors.JWTExpired) {
      const exp = Number(decodeJwt(cleaned).exp);
      return { ok: false, kind: 'expired', message: `Token has expired ${nowSeconds() - exp} seconds ago` };
    }
    if (err instanceof UnknownKeyError || err instanceof errors.JOSEAlgNotAllowed) {
      const kid = decodeProtectedHeader(cleaned).kid;
      return {
        ok: false,
        kind: 'signer',
        message:
          kid === undefined
            ? 'Failed to generate JWT signer, check your JWT secret or JWKS configuration'
            : `Failed to generate JWT signer for key ID (kid) "${kid}", check your JWT secret or JWKS configuration`,
      };
    }
    if (err instanceof errors.JWSSignatureVerificationFailed) {
      return { ok: false, kind: 'signature', message: 'Failed to validate JWT signature' };
    }
    return { ok: false, kind: 'malformed', message: 'The token provided is not a valid JWT' };
  }
  if (typeof claims.role !== 'string' || typeof claims.exp !== 'number') {
    return { ok: false, kind: 'missing_claims', message: 'Fields `role` and `exp` are required in JWT' };
  }
  return { ok: true, claims, exp: Math.round(claims.exp) };
}

/** The roles a token may act as on the database (what REST lets a request become). */
const API_ROLES = new Set(['anon', 'authenticated', 'service_role']);

export interface Rights {
  broadcastRead: boolean;
  presenceRead: boolean;
}

const ROLLBACK = new Error('authorization probe rolled back');

async function probe<T>(db: Db, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  let result: T | undefined;
  try {
    await db.transaction(async (tx) => {
      result = await fn(tx);
      throw ROLLBACK;
    });
  } catch (err) {
    if (err !== ROLLBACK) throw err;
  }
  return result as T;
}

const SET_CONTEXT =
  "select set_config('role', $1, true), set_config('realtime.topic', $2, true), " +
  "set_config('request.jwt.claims', $3, true), set_config('request.jwt.claim.sub', $4, true), " +
  "set_config('request.jwt.claim.role', $5, true), set_config('request.headers', $6, true)";

function contextParams(topic: string, claims: Claims): string[] {
  const role = String(claims.role);
  if (!API_ROLES.has(role)) throw new Error(`role "${role}" is not one of anon, authenticated, service_role`);
  return [role, topic, JSON.stringify(claims), typeof claims.sub === 'string' ? claims.sub : '', role, '{}'];
}

/** Read rights on a private channel's topic: the select policy of realtime.messages, per extension. */
export async function readRights(db: Db, topic: string, claims: Claims, presence: boolean): Promise<Rights> {
  const params = contextParams(topic, claims);
  const broadcastId = randomUUID();
  const presenceId = randomUUID();
  return probe(db, async (tx) => {
    await tx.query(
      presence
        ? "insert into realtime.messages (id, topic, extension) values ($1, $3, 'broadcast'), ($2, $3, 'presence')"
        : "insert into realtime.messages (id, topic, extension) values ($1, $2, 'broadcast')",
      presence ? [broadcastId, presenceId, topic] : [broadcastId, topic],
    );
    await tx.query(SET_CONTEXT, params);
    const rows = await tx.query<{ id: string }>('select id::text as id from realtime.messages where id in ($1, $2)', [
      broadcastId,
      presence ? presenceId : broadcastId,
    ]);
    const seen = new Set(rows.map((r) => String(r.id)));
    return { broadcastRead: seen.has(broadcastId), presenceRead: presence && seen.has(presenceId) };
  });
}

/** Write rights on a private channel's topic (broadcast or presence): the insert policy of realtime.messages. */
export async function broadcastWriteRight(
  db: Db,
  topic: string,
  claims: Claims,
  extension: 'broadcast' | 'presence' = 'broadcast',
): Promise<boolean> {
  const params = contextParams(topic, claims);
  return probe(db, async (tx) => {
    await tx.query(SET_CONTEXT, params);
    try {
      await tx.query('insert into realtime.messages (topic, extension) values ($1, $2)', [topic, extension]);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === '42501') return false;
      throw err;
    }
  });
}
