// auth.users and auth.identities (GoTrue's models/user.go and identity.go): reading, creating, updating,
// confirming and deleting users with their identities, and the User JSON exactly as GoTrue's models.User /
// models.Identity marshal it (field order, omitted nulls, time format).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/types.ts';
import { AuthError } from './errors.ts';

type Json = Record<string, unknown>;

/** Go's RFC 3339 form of a time: UTC, "Z", fraction without trailing zeros. */
export function goTime(value: string | Date | null | undefined): string | null {
  if (value == null) return null;
  const iso = value instanceof Date ? value.toISOString() : value;
  return iso.replace(/\.(\d*?)0+Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** SQL for a timestamp column as ISO text in UTC with microseconds. */
export const ts = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface IdentityRow {
  identity_id: string;
  id: string;
  user_id: string;
  identity_data: Json;
  provider: string;
  last_sign_in_at: string | null;
  created_at: string;
  updated_at: string;
  email: string | null;
}

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: string | null;
  invited_at: string | null;
  phone: string | null;
  phone_confirmed_at: string | null;
  confirmation_token: string | null;
  confirmation_sent_at: string | null;
  confirmed_at: string | null;
  recovery_token: string | null;
  recovery_sent_at: string | null;
  email_change: string | null;
  email_change_sent_at: string | null;
  phone_change: string | null;
  phone_change_sent_at: string | null;
  reauthentication_sent_at: string | null;
  last_sign_in_at: string | null;
  raw_app_meta_data: Json | null;
  raw_user_meta_data: Json | null;
  created_at: string;
  updated_at: string;
  banned_until: string | null;
  deleted_at: string | null;
  is_anonymous: boolean;
  identities: IdentityRow[];
  factors: FactorRow[];
}

/** A row of auth.mfa_factors as the user and factor answers show it (the secret never leaves the table). */
export interface FactorRow {
  id: string;
  created_at: string;
  updated_at: string;
  status: 'verified' | 'unverified';
  friendly_name: string | null;
  factor_type: string;
  phone: string | null;
  last_challenged_at: string | null;
}

/** SQL for a factor's answer columns, from auth.mfa_factors aliased `f`. */
export const FACTOR_JSON = `json_build_object('id', f.id, 'created_at', ${ts('f.created_at')},
  'updated_at', ${ts('f.updated_at')}, 'status', f.status, 'friendly_name', f.friendly_name,
  'factor_type', f.factor_type, 'phone', f.phone, 'last_challenged_at', ${ts('f.last_challenged_at')})`;

const FACTORS_SQL = `coalesce((
    select json_agg(${FACTOR_JSON} order by f.created_at, f.id)
    from auth.mfa_factors f where f.user_id = u.id), '[]'::json) as factors`;

/** models.Factor as GoTrue marshals it: friendly_name left out when empty, phone "" for TOTP. */
export function factorJson(f: FactorRow): Json {
  const out: Json = {
    id: f.id,
    created_at: goTime(f.created_at),
    updated_at: goTime(f.updated_at),
    status: f.status,
  };
  if (f.friendly_name) out.friendly_name = f.friendly_name;
  out.factor_type = f.factor_type;
  out.phone = f.phone ?? '';
  out.last_challenged_at = goTime(f.last_challenged_at);
  return out;
}

const IDENTITIES_SQL = `coalesce((
    select json_agg(json_build_object(
      'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
      'provider', i.provider, 'last_sign_in_at', ${ts('i.last_sign_in_at')}, 'created_at', ${ts('i.created_at')},
      'updated_at', ${ts('i.updated_at')}, 'email', i.email) order by i.created_at, i.id)
    from auth.identities i where i.user_id = u.id), '[]'::json) as identities`;

/** Every column a user answer needs, for `select ${USER_COLUMNS} from auth.users u`. */
export const USER_COLUMNS = `u.id::text as id, u.aud, u.role, u.email, u.encrypted_password,
  ${ts('u.email_confirmed_at')} as email_confirmed_at, ${ts('u.invited_at')} as invited_at, u.phone,
  ${ts('u.phone_confirmed_at')} as phone_confirmed_at, u.confirmation_token,
  ${ts('u.confirmation_sent_at')} as confirmation_sent_at, ${ts('u.confirmed_at')} as confirmed_at, u.recovery_token,
  ${ts('u.recovery_sent_at')} as recovery_sent_at, u.email_change, ${ts('u.email_change_sent_at')} as email_change_sent_at,
  u.phone_change, ${ts('u.phone_change_sent_at')} as phone_change_sent_at,
  ${ts('u.reauthentication_sent_at')} as reauthentication_sent_at, ${ts('u.last_sign_in_at')} as last_sign_in_at,
  u.raw_app_meta_data, u.raw_user_meta_data, ${ts('u.created_at')} as created_at, ${ts('u.updated_at')} as updated_at,
  ${ts('u.banned_until')} as banned_until, ${ts('u.deleted_at')} as deleted_at, u.is_anonymous,
  ${IDENTITIES_SQL}, ${FACTORS_SQL}`;

function parseJson<T>(value: unknown, fallback: T): T {
  if (value == null) return fallback;
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as T;
    } catch {
      return fallback;
    }
  }
  return value as T;
}

/** Rows straight from the database: JSON columns parsed where the driver left them as text. */
export function normalizeUserRow(row: UserRow): UserRow {
  row.identities = parseJson<IdentityRow[]>(row.identities, []);
  row.factors = parseJson<FactorRow[]>(row.factors, []);
  row.raw_app_meta_data = parseJson<Json | null>(row.raw_app_meta_data, null);
  row.raw_user_meta_data = parseJson<Json | null>(row.raw_user_meta_data, null);
  return row;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const rows = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users u
      where lower(u.email) = lower($1) and u.is_sso_user = false and u.aud = 'authenticated'`,
    [email],
  );
  return rows[0] && normalizeUserRow(rows[0]);
}

/** What the password check needs, read before the (slow) bcrypt compare; the full user is read alongside it. */
export async function findLoginCandidate(
  db: Queryable,
  email: string,
): Promise<{ id: string; encrypted_password: string | null; banned: boolean } | undefined> {
  const rows = await db.query<{ id: string; encrypted_password: string | null; banned: boolean }>(
    `select u.id::text as id, u.encrypted_password, coalesce(u.banned_until > now(), false) as banned
       from auth.users u
      where lower(u.email) = lower($1) and u.is_sso_user = false and u.aud = 'authenticated'`,
    [email],
  );
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  if (!isUuid(id)) return undefined;
  const rows = await db.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.id = $1`, [id]);
  return rows[0] && normalizeUserRow(rows[0]);
}

/** The user and whether the session still exists, in one round trip (for Bearer-authenticated calls). */
export async function findUserWithSession(
  db: Queryable,
  userId: string,
  sessionId: string | null,
): Promise<{ user: UserRow | undefined; sessionExists: boolean }> {
  const rows = await db.query<UserRow & { session_exists: boolean }>(
    `select ${USER_COLUMNS},
       exists(select 1 from auth.sessions s where s.id = $2::uuid and s.user_id = u.id) as session_exists
       from auth.users u where u.id = $1`,
    [userId, sessionId ?? '00000000-0000-0000-0000-000000000000'],
  );
  const row = rows[0];
  return { user: row && normalizeUserRow(row), sessionExists: Boolean(row?.session_exists) };
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

export interface NewUser {
  email: string;
  encryptedPassword: string;
  userMetadata: Json;
  appMetadata?: Json;
  role?: string;
  confirmedAt?: Date | null;
  id?: string;
  /** Extra identity_data keys (GoTrue copies the sign-up data into the email identity). */
  identityExtra?: Json;
}

/** Creates the user and its email identity; the profile trigger on auth.users fires here. */
export async function createUser(tx: Queryable, input: NewUser): Promise<UserRow> {
  const id = input.id ?? randomUUID();
  const now = new Date().toISOString();
  const appMetadata = { provider: 'email', providers: ['email'], ...(input.appMetadata ?? {}) };
  const confirmed = input.confirmedAt ? input.confirmedAt.toISOString() : null;
  await tx.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
        raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_sso_user, is_anonymous)
      values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', $2, $3, $4, $5, $6::jsonb, $7::jsonb,
        $8, $8, false, false)`,
    [
      id,
      input.role ?? 'authenticated',
      input.email,
      input.encryptedPassword,
      confirmed,
      JSON.stringify(appMetadata),
      JSON.stringify(input.userMetadata),
      now,
    ],
  );
  // provider.Claims{Subject, Email} as structs.Map gives these keys; sign-up data fills in the rest.
  const identityData: Json = {
    ...(input.identityExtra ?? {}),
    sub: id,
    email: input.email,
    email_verified: confirmed !== null,
    phone_verified: false,
  };
  await tx.query(
    `insert into auth.identities (id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
      values ($1, $2::text, $5::uuid, $3::jsonb, 'email', $4, $4, $4)`,
    [randomUUID(), id, JSON.stringify(identityData), now, id],
  );
  const user = await findUserById(tx, id);
  if (!user) throw new Error('user vanished after insert');
  return user;
}

/** A page of the admin user list (newest first) and how many users match in all; `filter` matches email or name. */
export async function listUsers(
  db: Queryable,
  page: { limit: number; offset: number; filter: string },
): Promise<{ users: UserRow[]; total: number }> {
  const { filter } = page;
  const where = `u.aud = 'authenticated'${filter ? ` and (u.email ilike $3 or u.raw_user_meta_data->>'full_name' ilike $3)` : ''}`;
  const params: unknown[] = [page.limit, page.offset];
  if (filter) params.push(`%${filter.replace(/[\\%_]/g, '\\$&')}%`);
  const rows = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users u where ${where} order by u.created_at desc, u.id limit $1 offset $2`,
    params,
  );
  const countRows = await db.query<{ n: number }>(
    `select count(*)::int as n from auth.users u where ${where.replace(/\$3/g, '$1')}`,
    filter ? [params[2]] : [],
  );
  return { users: rows.map(normalizeUserRow), total: Number(countRows[0]?.n ?? 0) };
}

/** Columns of auth.users that updateUserFields writes; updated_at only when `updatedAt` is given. */
export interface UserFields {
  role?: string;
  encryptedPassword?: string;
  email?: string;
  appMetadata?: Json;
  userMetadata?: Json;
  invitedAt?: string;
  bannedUntil?: string | null;
  updatedAt?: string;
}

const USER_FIELD_COLUMNS: Record<keyof UserFields, string> = {
  role: 'role',
  encryptedPassword: 'encrypted_password',
  email: 'email',
  appMetadata: 'raw_app_meta_data',
  userMetadata: 'raw_user_meta_data',
  invitedAt: 'invited_at',
  bannedUntil: 'banned_until',
  updatedAt: 'updated_at',
};

/** Writes the given fields of one user in one statement (metadata whole, as already merged). */
export async function updateUserFields(db: Queryable, userId: string, fields: UserFields): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [userId];
  for (const [key, column] of Object.entries(USER_FIELD_COLUMNS) as [keyof UserFields, string][]) {
    if (!(key in fields) || fields[key] === undefined) continue;
    const value = fields[key];
    const json = key === 'appMetadata' || key === 'userMetadata';
    params.push(json ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}${json ? '::jsonb' : ''}`);
  }
  if (!sets.length) return;
  await db.query(`update auth.users set ${sets.join(', ')} where id = $1`, params);
}

/** Bans the user until the given time; null lifts the ban. */
export function banUser(db: Queryable, userId: string, until: string | null): Promise<void> {
  return updateUserFields(db, userId, { bannedUntil: until });
}

/** A new address for the user, copied into the email identity with whether it counts as verified. */
export async function changeUserEmail(
  tx: Queryable,
  userId: string,
  email: string,
  verified: boolean,
  now: string,
): Promise<void> {
  await updateUserFields(tx, userId, { email, updatedAt: now });
  await tx.query(
    `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text, 'email_verified', $3::boolean),
            updated_at = $4 where user_id = $1 and provider = 'email'`,
    [userId, email, verified, now],
  );
}

/** SoftDeleteUser's part in auth.users and auth.identities: the row stays, addresses and metadata emptied. */
export async function softDeleteUser(tx: Queryable, userId: string, now: string): Promise<void> {
  await tx.query(
    `update auth.users set deleted_at = $2, email = null, phone = null, encrypted_password = '',
            confirmation_token = '', recovery_token = '', raw_user_meta_data = '{}'::jsonb,
            raw_app_meta_data = '{}'::jsonb, updated_at = $2 where id = $1`,
    [userId, now],
  );
  await tx.query(`update auth.identities set identity_data = '{}'::jsonb where user_id = $1`, [userId]);
}

/** Deletes the user; identities, sessions, factors and one-time tokens cascade, PKCE flow states do not. */
export async function deleteUser(db: Queryable, userId: string): Promise<void> {
  await db.query('delete from auth.users where id = $1', [userId]);
}

/** user.Confirm: email confirmed now, confirmation token and every one-time token cleared, identity verified. */
export async function confirmUser(tx: Queryable, user: UserRow): Promise<void> {
  await tx.query(
    `with u as (
       update auth.users set email_confirmed_at = coalesce(email_confirmed_at, $2), confirmation_token = '',
              updated_at = $2 where id = $1
     ), o as (
       delete from auth.one_time_tokens where user_id = $1
     )
     update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = $2
      where user_id = $1 and provider = 'email' and email = lower($3)`,
    [user.id, new Date().toISOString(), user.email ?? ''],
  );
}

/**
 * user.Recover: the recovery token is spent; an unconfirmed address is confirmed by using the link. The
 * password of an unconfirmed account was chosen by whoever signed the address up, which the link does not
 * prove was its owner: it is dropped (no password signs in until the owner sets one), unlike GoTrue,
 * which keeps it.
 */
export async function recoverUser(tx: Queryable, user: UserRow): Promise<void> {
  await tx.query(
    `with o as (delete from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token')
     update auth.users set recovery_token = '', updated_at = $2,
            encrypted_password = case when email_confirmed_at is null then '' else encrypted_password end
      where id = $1`,
    [user.id, new Date().toISOString()],
  );
  if (!user.email_confirmed_at) await confirmUser(tx, user);
}

/** GoTrue's UpdateUserMetaData / UpdateAppMetaData: keys merged in, null removes a key. */
export function mergeMetadata(current: Json | null, updates: Json): Json {
  const out: Json = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(updates)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Go marshals maps with their keys sorted; metadata read back from jsonb comes in another order. */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedKeys) as T;
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const k of Object.keys(value as Json).sort()) out[k] = sortedKeys((value as Json)[k]);
    return out as T;
  }
  return value;
}

function identityJson(i: IdentityRow): Json {
  const out: Json = {
    identity_id: i.identity_id,
    id: i.id,
    user_id: i.user_id,
  };
  if (i.identity_data && Object.keys(i.identity_data).length) out.identity_data = sortedKeys(i.identity_data);
  out.provider = i.provider;
  if (i.last_sign_in_at) out.last_sign_in_at = goTime(i.last_sign_in_at);
  out.created_at = goTime(i.created_at);
  out.updated_at = goTime(i.updated_at);
  if (i.email) out.email = i.email;
  return out;
}

/** The User object as GoTrue sends it. */
export function userJson(u: UserRow): Json {
  const out: Json = { id: u.id, aud: u.aud ?? '', role: u.role ?? '', email: u.email ?? '' };
  const optional = (key: string, value: string | null | undefined, asTime = true) => {
    if (value) out[key] = asTime ? goTime(value) : value;
  };
  optional('email_confirmed_at', u.email_confirmed_at);
  optional('invited_at', u.invited_at);
  out.phone = u.phone ?? '';
  optional('phone_confirmed_at', u.phone_confirmed_at);
  optional('confirmation_sent_at', u.confirmation_sent_at);
  optional('confirmed_at', u.confirmed_at);
  optional('recovery_sent_at', u.recovery_sent_at);
  optional('new_email', u.email_change, false);
  optional('email_change_sent_at', u.email_change_sent_at);
  optional('new_phone', u.phone_change, false);
  optional('phone_change_sent_at', u.phone_change_sent_at);
  optional('reauthentication_sent_at', u.reauthentication_sent_at);
  optional('last_sign_in_at', u.last_sign_in_at);
  out.app_metadata = sortedKeys(u.raw_app_meta_data ?? {});
  out.user_metadata = sortedKeys(u.raw_user_meta_data ?? {});
  // Factors are left out when there are none (omitempty).
  if (u.factors?.length) out.factors = u.factors.map(factorJson);
  out.identities = u.identities.map(identityJson);
  out.created_at = goTime(u.created_at);
  out.updated_at = goTime(u.updated_at);
  optional('banned_until', u.banned_until);
  optional('deleted_at', u.deleted_at);
  out.is_anonymous = u.is_anonymous;
  return out;
}

export function isBanned(u: UserRow): boolean {
  return u.banned_until != null && Date.parse(u.banned_until) > Date.now();
}

// checkmail.ValidateFormat's shape: a local part, "@", and a domain of dot-separated labels.
const EMAIL_FORMAT =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u00a0-\uffef-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u00a0-\uffef-]+)*@([A-Za-z0-9\u00a0-\uffef]([A-Za-z0-9\u00a0-\uffef-]*[A-Za-z0-9\u00a0-\uffef])?\.)+[A-Za-z\u00a0-\uffef]{2,}$/;

/** GoTrue's validateEmail: required, at most 255 bytes, a valid format; answered lowercased. */
export function validateEmail(email: string): string {
  if (email === '') throw new AuthError(400, 'validation_failed', 'An email address is required');
  if (Buffer.byteLength(email) > 255) throw new AuthError(400, 'validation_failed', 'An email address is too long');
  if (!EMAIL_FORMAT.test(email)) {
    throw new AuthError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  }
  return email.toLowerCase();
}
