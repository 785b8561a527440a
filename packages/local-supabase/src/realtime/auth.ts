// Who may do what on a channel, as Realtime decides it: the token (the socket's apikey, or the access_token
// of a join / an `access_token` update) checked as RealtimeWeb.ChannelsAuthorization does, and a private
// channel's rights read from the RLS policies of realtime.messages as Realtime.Tenants.Authorization reads
// them: in a transaction that is rolled back, as the token's role with its claims and `realtime.topic` set,
// a probe row is inserted (as service_role) and selected back (read), or inserted as the role (write). They run
// as REST's requests do (Db.batch: on PostgreSQL under the REST login, which can become only the API roles).
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors } from 'jose';
import type { Db } from '../db/types.ts';
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
  // The probe rows are inserted as service_role (which bypasses RLS), then read back as the token's role.
  const results = await db.batch(
    [
      { text: "select set_config('role', 'service_role', true)" },
      {
        text: "insert into realtime.messages (id, topic, extension) values ($1::uuid, $3, 'broadcast'), ($2::uuid, $3, 'presence')",
        params: [broadcastId, presenceId, topic],
      },
      { text: SET_CONTEXT, params },
      {
        text: 'select id::text as id from realtime.messages where id in ($1::uuid, $2::uuid)',
        params: [broadcastId, presenceId],
      },
    ],
    'rollback',
  );
  const seen = new Set((results[3] ?? []).map((r) => String(r.id)));
  return { broadcastRead: seen.has(broadcastId), presenceRead: presence && seen.has(presenceId) };
}

/** Write rights on a private channel's topic (broadcast or presence): the insert policy of realtime.messages. */
export async function broadcastWriteRight(
  db: Db,
  topic: string,
  claims: Claims,
  extension: 'broadcast' | 'presence' = 'broadcast',
): Promise<boolean> {
  const params = contextParams(topic, claims);
  try {
    await db.batch(
      [
        { text: SET_CONTEXT, params },
        { text: 'insert into realtime.messages (topic, extension) values ($1, $2)', params: [topic, extension] },
      ],
      'rollback',
    );
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '42501') return false;
    throw err;
  }
}
