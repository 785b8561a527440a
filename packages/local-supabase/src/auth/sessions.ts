// Sessions, v1 refresh tokens (12-character alphanumeric, rotated with a parent chain) and the access
// token response, as GoTrue's tokens service and models/refresh_token.go do them.
import { randomInt, randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import { signAccessToken } from '../jwt.ts';
import { AuthError, OAuthError } from './errors.ts';
import type { AuthSettings } from './settings.ts';
import { sortedKeys, ts, type UserRow, userJson } from './users.ts';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** crypto.SecureAlphanumeric(12). */
export function newRefreshToken(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** Where the request came from, kept on the session as GoTrue does. */
export interface GrantParams {
  ip: string | null;
  userAgent: string | null;
}

export interface AmrEntry {
  method: string;
  timestamp: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
  weak_password?: { message: string; reasons: string[] };
}

/** AMR methods of a second factor (models.AMRClaim.IsAAL2Claim): a session holding one is at aal2. */
const AAL2_METHODS = ['totp', 'mfa/phone', 'mfa/webauthn'];

/** Session.CalculateAALAndAMR: the level follows from the session's AMR claims, so a refresh keeps it. */
export function aalOf(amr: AmrEntry[]): 'aal1' | 'aal2' {
  return amr.some((e) => AAL2_METHODS.includes(e.method)) ? 'aal2' : 'aal1';
}

/** GenerateAccessToken's claims, in GoTrue's field order. */
export async function accessToken(
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  amr: AmrEntry[],
): Promise<{ token: string; expiresAt: number }> {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + settings.jwtExpiry;
  const claims = {
    iss: settings.jwtIssuer,
    sub: user.id,
    aud: user.aud ?? 'authenticated',
    exp,
    iat,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: sortedKeys(user.raw_app_meta_data ?? {}),
    user_metadata: sortedKeys(user.raw_user_meta_data ?? {}),
    role: user.role ?? '',
    aal: aalOf(amr),
    amr,
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  };
  return { token: await signAccessToken(claims, settings.jwtKeys), expiresAt: exp };
}

async function respond(
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
  amr: AmrEntry[],
): Promise<TokenResponse> {
  const { token, expiresAt } = await accessToken(settings, user, sessionId, amr);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: settings.jwtExpiry,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/**
 * IssueRefreshToken: a new session with its first refresh token and AMR claim, and last_sign_in_at,
 * written in one statement so that a sign-in costs one round trip after the password check.
 */
export async function issueSession(
  db: Queryable,
  settings: AuthSettings,
  user: UserRow,
  method: string,
  grant: GrantParams,
): Promise<TokenResponse> {
  const sessionId = randomUUID();
  const token = newRefreshToken();
  const now = new Date();
  const iso = now.toISOString();
  await db.query(
    `with s as (
       insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip)
       values ($1, $2, $3, $3, 'aal1', $5, $6)
     ), rt as (
       insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
       values ('00000000-0000-0000-0000-000000000000', $4, $9::text, false, $3, $3, null, $1)
     ), amr as (
       insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
       values ($8, $1, $3, $3, $7)
     )
     update auth.users set last_sign_in_at = $3 where id = $2`,
    [sessionId, user.id, iso, token, grant.userAgent, grant.ip, method, randomUUID(), user.id],
  );
  user.last_sign_in_at = iso;
  return respond(settings, user, sessionId, token, [{ method, timestamp: Math.floor(now.getTime() / 1000) }]);
}

interface RefreshRow {
  rt_id: string;
  token: string;
  revoked: boolean;
  parent: string | null;
  rt_updated_at: string;
  session_id: string | null;
  user_id: string;
  /** The token was issued before the session's latest second-factor step. */
  before_second_factor: boolean;
  session_created_ms: number | null;
  session_refreshed_ms: number | null;
  rt_updated_ms: number;
}

/**
 * Session.CheckValidity for [auth.sessions]: null while the session may refresh, else the answer. The last
 * activity is refreshed_at, else the presented token's last change if later than the session's creation.
 */
function sessionExpiry(settings: AuthSettings, row: RefreshRow, nowMs: number): AuthError | null {
  const { timebox, inactivityTimeout } = settings.sessions;
  const created = Number(row.session_created_ms);
  if (timebox > 0 && nowMs > created + timebox * 1000) {
    return new AuthError(400, 'session_expired', 'Invalid Refresh Token: Session Expired');
  }
  const tokenTime = Number(row.rt_updated_ms);
  const active = row.session_refreshed_ms !== null ? Number(row.session_refreshed_ms) : Math.max(tokenTime, created);
  if (inactivityTimeout > 0 && nowMs > active + inactivityTimeout * 1000) {
    return new AuthError(400, 'session_expired', 'Invalid Refresh Token: Session Expired (Inactivity)');
  }
  return null;
}

/** RefreshTokenGrant with v1 tokens: rotation, parent-of-active reuse, reuse interval, family revocation. */
export async function refreshTokenGrant(
  db: Queryable & { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> },
  settings: AuthSettings,
  presented: string,
  grant: GrantParams,
  loadUser: (tx: Queryable, id: string) => Promise<UserRow | undefined>,
): Promise<TokenResponse> {
  if (!presented) throw new OAuthError('invalid_request', 'refresh_token required');

  const outcome = await db.transaction(async (tx) => {
    const rows = await tx.query<RefreshRow>(
      `select rt.id::text as rt_id, rt.token, rt.revoked, rt.parent, ${ts('rt.updated_at')} as rt_updated_at,
              s.id::text as session_id, u.id::text as user_id,
              coalesce(rt.created_at < (select max(a.updated_at) from auth.mfa_amr_claims a
                 where a.session_id = s.id and a.authentication_method in ('totp', 'mfa/phone', 'mfa/webauthn')),
                 false) as before_second_factor,
              (extract(epoch from s.created_at) * 1000)::float8 as session_created_ms,
              (extract(epoch from (s.refreshed_at at time zone 'UTC')) * 1000)::float8 as session_refreshed_ms,
              (extract(epoch from rt.updated_at) * 1000)::float8 as rt_updated_ms
         from auth.refresh_tokens rt
         join auth.users u on u.id::text = rt.user_id
         left join auth.sessions s on s.id = rt.session_id
        where rt.token = $1
        for update of rt`,
      [presented],
    );
    const row = rows[0];
    if (!row) throw new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    const user = await loadUser(tx, row.user_id);
    if (!user) throw new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
    if (user.banned_until && Date.parse(user.banned_until) > Date.now()) {
      throw new AuthError(400, 'user_banned', 'Invalid Refresh Token: User Banned');
    }
    if (!row.session_id) {
      await tx.query('delete from auth.refresh_tokens where id = $1', [row.rt_id]);
      return { error: new AuthError(400, 'session_not_found', 'Invalid Refresh Token: No Valid Session Found') };
    }
    const sessionId = row.session_id;
    const expired = sessionExpiry(settings, row, Date.now());
    if (expired) return { error: expired };
    const now = new Date().toISOString();

    let issued: string | undefined;
    if (row.before_second_factor) {
      // A token issued before the session's code step (the aal1 token upgradeSession swapped) never yields
      // the session's aal2 tokens, as GoTrue's v2 tokens' counter jump ensures; reuse as below.
      if (Date.now() > Date.parse(row.rt_updated_at) + settings.refreshTokenReuseInterval * 1000) {
        if (settings.refreshTokenRotation) {
          await tx.query('update auth.refresh_tokens set revoked = true, updated_at = $2 where session_id = $1', [
            sessionId,
            now,
          ]);
        }
      }
      return { error: new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used') };
    }
    if (row.revoked) {
      const active = await tx.query<{ token: string; parent: string | null }>(
        `select token, parent from auth.refresh_tokens
          where session_id = $1 and revoked = false order by id desc limit 1`,
        [sessionId],
      );
      if (active[0] && active[0].parent === row.token) {
        // The client lost the answer to its last refresh: hand back the token it was given then.
        issued = active[0].token;
      } else if (Date.now() > Date.parse(row.rt_updated_at) + settings.refreshTokenReuseInterval * 1000) {
        if (settings.refreshTokenRotation) {
          await tx.query('update auth.refresh_tokens set revoked = true, updated_at = $2 where session_id = $1', [
            sessionId,
            now,
          ]);
        }
        // The revocation is kept even though the request fails (GoTrue's NewCommitWithError).
        return {
          error: new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
        };
      }
    }
    if (!issued) {
      issued = newRefreshToken();
      await tx.query(
        `with old as (update auth.refresh_tokens set revoked = true, updated_at = $3 where id = $1 and revoked = false)
         insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
         values ('00000000-0000-0000-0000-000000000000', $2, $4, false, $3, $3, $5, $6)`,
        [row.rt_id, issued, now, user.id, row.token, sessionId],
      );
    }
    const amrRows = await tx.query<{ method: string; at: number }>(
      `with upd as (
         update auth.sessions set refreshed_at = ($2::timestamptz at time zone 'UTC'), updated_at = $2,
                user_agent = $3, ip = $4 where id = $1
       )
       select authentication_method as method, floor(extract(epoch from updated_at))::float8 as at
         from auth.mfa_amr_claims where session_id = $1 order by updated_at desc`,
      [sessionId, now, grant.userAgent, grant.ip],
    );
    const amr = amrRows.map((r) => ({ method: r.method, timestamp: Number(r.at) }));
    return { ok: await respond(settings, user, sessionId, issued, amr) };
  });
  if ('error' in outcome && outcome.error) throw outcome.error;
  return (outcome as { ok: TokenResponse }).ok;
}

/**
 * updateMFASessionAndClaims (GoTrue token.go) after a verified second factor: the method joins the session's
 * AMR claims, the session moves to aal2 tied to the factor, and the refresh token is swapped
 * (GrantRefreshTokenSwap). The claim's time marks every older token of the session: refreshTokenGrant
 * refuses them, so the aal1 token the client held cannot be used to get aal2 tokens.
 */
export async function upgradeSession(
  tx: Queryable,
  settings: AuthSettings,
  user: UserRow,
  sessionId: string,
  method: string,
  factorId: string,
): Promise<TokenResponse> {
  const now = new Date().toISOString();
  const current = await tx.query<{ id: string; token: string }>(
    `select id::text as id, token from auth.refresh_tokens
      where session_id = $1 and revoked = false order by id desc limit 1`,
    [sessionId],
  );
  const issued = newRefreshToken();
  const amrRows = await tx.query<{ method: string; at: number }>(
    `with claim as (
       insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
       values ($6, $1, $2, $2, $3)
       on conflict (session_id, authentication_method) do update set updated_at = excluded.updated_at
     ), sess as (
       update auth.sessions set aal = 'aal2', factor_id = $4::uuid, updated_at = $2 where id = $1
     ), old as (
       update auth.refresh_tokens set revoked = true, updated_at = $2 where id = $7::bigint
     ), rt as (
       insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
       values ('00000000-0000-0000-0000-000000000000', $5, $8, false, $2, $2, $9, $1)
     )
     select authentication_method as method, floor(extract(epoch from updated_at))::float8 as at
       from auth.mfa_amr_claims where session_id = $1 and authentication_method <> $3
     union all select $3, floor(extract(epoch from $2::timestamptz))::float8`,
    [
      sessionId,
      now,
      method,
      factorId,
      issued,
      randomUUID(),
      current[0]?.id ?? null,
      user.id,
      current[0]?.token ?? null,
    ],
  );
  const amr = amrRows
    .map((r) => ({ method: r.method, timestamp: Number(r.at) }))
    .sort((a, b) => b.timestamp - a.timestamp || Number(b.method === method) - Number(a.method === method));
  return respond(settings, user, sessionId, issued, amr);
}

/** Ends the user's sessions (their refresh tokens and AMR claims cascade), all but `except` when given. */
export async function endSessions(db: Queryable, userId: string, except?: string | null): Promise<void> {
  if (except) await db.query('delete from auth.sessions where user_id = $1 and id <> $2', [userId, except]);
  else await db.query('delete from auth.sessions where user_id = $1', [userId]);
}

/** InvalidateSessionsWithAALLessThan(aal2): ends the user's sessions that have not passed a second factor. */
export async function endSessionsBelowAal2(tx: Queryable, userId: string): Promise<void> {
  await tx.query(`delete from auth.sessions where user_id = $1 and aal < 'aal2'`, [userId]);
}

/** DowngradeSessionsToAAL1 for a removed factor: its sessions lose the totp claim and go back to aal1. */
export async function downgradeSessionsOfFactor(tx: Queryable, userId: string, factorId: string): Promise<void> {
  await tx.query(
    `delete from auth.mfa_amr_claims where authentication_method = 'totp'
        and session_id in (select id from auth.sessions where factor_id = $1)`,
    [factorId],
  );
  await tx.query(`update auth.sessions set aal = 'aal1', factor_id = null where user_id = $1 and factor_id = $2`, [
    userId,
    factorId,
  ]);
}

/** The session's stored level (Session.IsAAL2 reads the row, not the token); aal1 when there is none. */
export async function sessionAal(db: Queryable, sessionId: string | null): Promise<string> {
  if (!sessionId) return 'aal1';
  const rows = await db.query<{ aal: string | null }>('select aal::text as aal from auth.sessions where id = $1', [
    sessionId,
  ]);
  return rows[0]?.aal ?? 'aal1';
}

/** What PUT /user needs to know about the session behind the access token. */
export interface SessionFacts {
  createdMs: number;
  /** The session's sign-in methods (auth.mfa_amr_claims), e.g. password, otp. */
  methods: string[];
}

/** When the session was created and with which methods; null when there is no such session. */
export async function sessionFacts(db: Queryable, sessionId: string | null): Promise<SessionFacts | null> {
  if (!sessionId) return null;
  const rows = await db.query<{ created_ms: number; methods: string[] | string | null }>(
    `select (extract(epoch from s.created_at) * 1000)::float8 as created_ms,
            coalesce((select json_agg(a.authentication_method) from auth.mfa_amr_claims a where a.session_id = s.id),
                     '[]'::json) as methods
       from auth.sessions s where s.id = $1`,
    [sessionId],
  );
  const row = rows[0];
  if (!row) return null;
  const methods = typeof row.methods === 'string' ? (JSON.parse(row.methods) as string[]) : (row.methods ?? []);
  return { createdMs: Number(row.created_ms), methods };
}

/** Logout scopes: global ends every session of the user, local this one, others all but this one. */
export async function logout(db: Queryable, userId: string, sessionId: string | null, scope: string): Promise<void> {
  if (sessionId && scope === 'local') {
    await db.query('delete from auth.sessions where id = $1', [sessionId]);
  } else if (sessionId && scope === 'others') {
    await endSessions(db, userId, sessionId);
  } else {
    await endSessions(db, userId);
    await db.query('delete from auth.refresh_tokens where user_id = $1', [userId]);
  }
}
