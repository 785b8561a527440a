// account's logic: whose account a request is for, the data export, and deleting the account.
import type { SupabaseClient, User } from '@supabase/supabase-js';

export const SESSION_MESSAGE = 'Your session has expired. Please sign in again.';
export const WRONG_PASSWORD_MESSAGE = 'The password is incorrect. Your account was not deleted.';
export const FAILURE_MESSAGE = 'Something went wrong. Please try again in a few minutes.';

export interface AccountDeps {
  /** supabase-js with the anon key and the visitor's address: reads the caller's user, checks the password. */
  auth: SupabaseClient;
  /** supabase-js with the service role: reads the closed tables, deletes the user. */
  admin: SupabaseClient;
}

export type Result<T> = { ok: true; value: T } | { ok: false; status: number; error: string };

/** The bearer token of the request, unless it is missing or one of the project's API keys. */
export function bearerToken(req: Request, apiKeys: (string | undefined)[]): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '');
  const token = match?.[1];
  return token && !apiKeys.includes(token) ? token : undefined;
}

/**
 * The member the token belongs to, as the auth service says (GET /auth/v1/user with the token): it checks the
 * signature, the expiry and that the session still exists, which decoding the token here would not.
 */
export async function memberOf(token: string | undefined, deps: AccountDeps): Promise<Result<User>> {
  if (!token) return { ok: false, status: 401, error: SESSION_MESSAGE };
  const { data, error } = await deps.auth.auth.getUser(token);
  if (error || !data.user?.email) {
    const status = error?.status;
    // 401/403/404: no such session or user any more. Anything else is the auth service failing.
    if (!error || (status && status >= 400 && status < 500)) return { ok: false, status: 401, error: SESSION_MESSAGE };
    console.error('account: auth service:', status, error.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE };
  }
  return { ok: true, value: data.user };
}

/** Addresses are compared without case, as the newsletter's email_key and the auth service do. */
const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** `value` as a LIKE pattern that matches only itself (PostgREST's `*` is ruled out by the exact filter after). */
const literalPattern = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface AccountExport {
  exportedAt: string;
  account: {
    id: string;
    email: string;
    createdAt: string;
    emailConfirmedAt: string | null;
    lastSignInAt: string | null;
  };
  profile: Record<string, unknown> | null;
  newsletter: Record<string, unknown> | null;
  contactMessages: Record<string, unknown>[];
}

const PROFILE_COLUMNS = 'first_name, last_name, email, email_verified, created_at';
// Everything but the token hash (a secret of the confirmation link) and the generated lookup key.
const NEWSLETTER_COLUMNS =
  'email, status, consent_text_version, consent_requested_at, created_at, verified_at, unsubscribed_at, ip, user_agent';
const CONTACT_COLUMNS = 'name, email, subject, message, ip, user_agent, created_at, delivery_status, delivered_at';

/** Everything stored about the member: the auth user's public fields, the profile, newsletter and contact rows. */
export async function exportAccount(user: User, deps: AccountDeps, now = new Date()): Promise<AccountExport> {
  const email = user.email as string;
  const [profile, newsletter, contact] = await Promise.all([
    deps.admin.from('profiles').select(PROFILE_COLUMNS).eq('user_id', user.id).maybeSingle(),
    deps.admin.from('newsletter_subscribers').select(NEWSLETTER_COLUMNS).eq('email_key', email.toLowerCase()),
    deps.admin
      .from('contact_messages')
      .select(CONTACT_COLUMNS)
      .ilike('email', literalPattern(email))
      .order('created_at', { ascending: true }),
  ]);
  for (const { error } of [profile, newsletter, contact]) {
    if (error) throw new Error(`export: ${error.code ?? ''} ${error.message}`.trim());
  }
  return {
    exportedAt: now.toISOString(),
    account: {
      id: user.id,
      email,
      createdAt: user.created_at,
      emailConfirmedAt: user.email_confirmed_at ?? null,
      lastSignInAt: user.last_sign_in_at ?? null,
    },
    profile: profile.data ?? null,
    newsletter: newsletter.data?.[0] ?? null,
    contactMessages: (contact.data ?? []).filter((row) => sameAddress(String(row.email), email)),
  };
}

/**
 * Deletes the member's account once the password is right: the password is checked by a password grant for
 * the member's own address (the auth service's own check, with its own per-IP limits); then the newsletter row
 * for the address goes, then the auth user, which takes the profile (on delete cascade) and every session and
 * refresh token with it, the grant's session included. Contact messages stay until their retention ends, as
 * the privacy notice says. Nothing that names the member is logged.
 */
export async function deleteAccount(user: User, password: string, deps: AccountDeps): Promise<Result<null>> {
  const email = user.email as string;
  const grant = await deps.auth.auth.signInWithPassword({ email, password });
  if (grant.error || grant.data.user?.id !== user.id) {
    const status = grant.error?.status;
    if (status === 429) return { ok: false, status: 429, error: grant.error?.message ?? FAILURE_MESSAGE };
    if (status && status >= 400 && status < 500) return { ok: false, status: 403, error: WRONG_PASSWORD_MESSAGE };
    console.error('account: auth service:', status, grant.error?.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE };
  }
  const grantToken = grant.data.session?.access_token;

  const newsletter = await deps.admin.from('newsletter_subscribers').delete().eq('email_key', email.toLowerCase());
  const removed = newsletter.error ? { error: newsletter.error } : await deps.admin.auth.admin.deleteUser(user.id);
  if (removed.error) {
    // The account stays: end the session the password check made, so nothing outlives this request.
    if (grantToken) await deps.admin.auth.admin.signOut(grantToken, 'local').catch(() => {});
    console.error('account: delete failed:', removed.error.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE };
  }
  console.log('account: account deleted');
  return { ok: true, value: null };
}
