// account's logic: whose account a request is for, the data export, and deleting the account.
import type { SupabaseClient, User } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { CAPTCHA_FAILED_CODE, CAPTCHA_MESSAGE } from '../_shared/captcha.ts';
import type { ErrorCode } from '../_shared/errors.ts';

export const SESSION_MESSAGE = 'Your session has expired. Please sign in again.';
export const WRONG_PASSWORD_MESSAGE = 'The password is incorrect. Your account was not deleted.';
export const FAILURE_MESSAGE = 'Something went wrong. Please try again in a few minutes.';
export const AAL2_MESSAGE =
  'Two-factor authentication is on for this account: sign in with a code from your authenticator app to continue.';
export const CODE_REQUIRED_MESSAGE = 'Enter the 6-digit code from your authenticator app to delete your account.';
export const WRONG_CODE_MESSAGE = 'The code is incorrect or has expired. Your account was not deleted.';

export interface AccountDeps {
  /** supabase-js with the anon key and the visitor's address: reads the caller's user, checks the password. */
  auth: SupabaseClient<Database>;
  /** supabase-js with the service role: reads the closed tables, deletes the user. */
  admin: SupabaseClient<Database>;
}

/** A refusal says its sentence and its `code` (errors.ts), which the site decides on. */
export type Result<T> = { ok: true; value: T } | { ok: false; status: number; error: string; code: ErrorCode };

/** The member's verified two-factor factors, as GET /auth/v1/user lists them. */
const verifiedFactors = (user: User) => (user.factors ?? []).filter((f) => f.status === 'verified');

/** The `aal` claim of a token the auth service has already accepted (signature, expiry and session checked). */
export function tokenAal(token: string): string | null {
  try {
    const part = (token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(part.padEnd(Math.ceil(part.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
    const aal = JSON.parse(new TextDecoder().decode(bytes))?.aal;
    return typeof aal === 'string' ? aal : null;
  } catch {
    return null;
  }
}

/**
 * Refuses a session below the member's level, reckoned as supabase-js's mfa.getAuthenticatorAssuranceLevel(jwt)
 * does: the current level is the token's `aal` claim, the next level is aal2 once the member has a verified
 * factor. REST asks the same of such a member (migration profiles_require_aal2), so a password alone never
 * reads or deletes what two-factor protects.
 */
export function checkAal(user: User, token: string): Result<null> {
  if (verifiedFactors(user).length > 0 && tokenAal(token) !== 'aal2') {
    return { ok: false, status: 403, error: AAL2_MESSAGE, code: 'insufficient_aal' };
  }
  return { ok: true, value: null };
}

/** The code from the authenticator app as deletion needs it: 6 digits (spaces the app shows are dropped). */
export function authenticatorCode(value: unknown): string | undefined {
  const code = typeof value === 'string' ? value.replace(/\s+/g, '') : '';
  return /^\d{6}$/.test(code) ? code : undefined;
}

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
  if (!token) return { ok: false, status: 401, error: SESSION_MESSAGE, code: 'session_expired' };
  const { data, error } = await deps.auth.auth.getUser(token);
  if (error || !data.user?.email) {
    const status = error?.status;
    // 401/403/404: no such session or user any more. Anything else is the auth service failing.
    if (!error || (status && status >= 400 && status < 500)) {
      return { ok: false, status: 401, error: SESSION_MESSAGE, code: 'session_expired' };
    }
    console.error('account: auth service:', status, error.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
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
  newsletterConsentEvents: Record<string, unknown>[];
  contactMessages: Record<string, unknown>[];
  /** The member's email alert preferences (null: never saved, alerts off). */
  alertPreferences: Record<string, unknown> | null;
  /** The alert mails queued for the member: which ledger item, when queued, when sent. */
  alerts: Record<string, unknown>[];
}

const PROFILE_COLUMNS = 'first_name, last_name, email, email_verified, created_at';
// The newsletter row and contact messages are the sender's, who typed the member's address and may be someone
// else: their IP address and user agent stay out of the export (another person's data). Also left out: the
// token hash (a secret of the confirmation link) and the generated lookup key.
const NEWSLETTER_COLUMNS =
  'email, status, consent_text_version, consent_requested_at, created_at, verified_at, unsubscribed_at';
const CONTACT_COLUMNS = 'name, email, subject, message, created_at, delivery_status, delivered_at';
// The consent record of the address: each step's IP address and user agent are left out for the same reason (a
// stranger may have asked for a link with it), and so is the subscriber row's id, which unsubscribe links carry.
const CONSENT_EVENT_COLUMNS = 'kind, via, email, consent_text_version, created_at';
const ALERT_PREFERENCE_COLUMNS = 'email_enabled, tiers, events, updated_at';
const ALERT_COLUMNS = 'kind, signal_id, event_id, created_at, attempts, sent_at, dropped_at';

/**
 * Everything stored about the member: the auth user's public fields, the profile, the newsletter row, the
 * address's newsletter consent events (oldest first, those of earlier rows too: the record outlives them),
 * contact messages, the email alert preferences and the alert mails queued for them (oldest first).
 */
export async function exportAccount(user: User, deps: AccountDeps, now = new Date()): Promise<AccountExport> {
  const email = user.email as string;
  const [profile, newsletter, consent, contact, alertPreferences, alerts] = await Promise.all([
    deps.admin.from('profiles').select(PROFILE_COLUMNS).eq('user_id', user.id).maybeSingle(),
    deps.admin.from('newsletter_subscribers').select(NEWSLETTER_COLUMNS).eq('email_key', email.toLowerCase()),
    deps.admin
      .from('newsletter_consent_events')
      .select(CONSENT_EVENT_COLUMNS)
      .ilike('email', literalPattern(email))
      .order('created_at', { ascending: true })
      .order('id', { ascending: true }),
    deps.admin
      .from('contact_messages')
      .select(CONTACT_COLUMNS)
      .ilike('email', literalPattern(email))
      .order('created_at', { ascending: true })
      .order('id', { ascending: true }),
    deps.admin.from('alert_preferences').select(ALERT_PREFERENCE_COLUMNS).eq('user_id', user.id).maybeSingle(),
    deps.admin
      .from('alert_outbox')
      .select(ALERT_COLUMNS)
      .eq('user_id', user.id)
      .order('created_at', { ascending: true })
      .order('id', { ascending: true }),
  ]);
  for (const { error } of [profile, newsletter, consent, contact, alertPreferences, alerts]) {
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
    newsletterConsentEvents: (consent.data ?? []).filter((row) => sameAddress(String(row.email), email)),
    contactMessages: (contact.data ?? []).filter((row) => sameAddress(String(row.email), email)),
    alertPreferences: alertPreferences.data ?? null,
    alerts: alerts.data ?? [],
  };
}

/**
 * Deletes the member's account once the password (and, with two-factor on, a current code) is right. The
 * password is checked by a password grant for the member's own address (the auth service's own check, with its
 * own per-IP limits). With a verified factor, `code` is then checked by the auth service too: a challenge and
 * verify of the member's TOTP factor on the session that grant opened, so the code is spent as at sign-in, the
 * auth service's limits on codes apply, and the session in the member's browser is left as it was. Then the
 * newsletter row for the address goes, then the auth user, which takes the profile, the email alert preferences
 * and the alert outbox rows (on delete cascade; never the signals ledger) and every session and refresh token
 * with it, the grant's session included. Contact messages and the address's newsletter
 * consent events (a subscribed row's deletion appends its withdrawal) stay until their retention ends, as the
 * privacy notice says. Nothing that names the member is logged.
 *
 * With [auth.captcha] on, the auth service asks the grant for a CAPTCHA token: `captchaToken` is the one the
 * delete dialog's widget gave the browser, passed through. The grant goes as the visitor (anon key), never as
 * an admin caller, whom GoTrue would not ask for one: each password tried here costs a fresh token, as at
 * sign-in. A refused token is said as such (400 captcha_failed), not as a wrong password.
 */
export async function deleteAccount(
  user: User,
  password: string,
  code: string | undefined,
  deps: AccountDeps,
  captchaToken?: string,
): Promise<Result<null>> {
  const email = user.email as string;
  // The site enrols TOTP factors only; a factor of another kind would fail its challenge: a wrong code.
  const factors = verifiedFactors(user);
  const factor = factors.find((f) => f.factor_type === 'totp') ?? factors[0];
  if (factor && !code) return { ok: false, status: 400, error: CODE_REQUIRED_MESSAGE, code: 'mfa_code_required' };

  const grant = await deps.auth.auth.signInWithPassword({
    email,
    password,
    ...(captchaToken ? { options: { captchaToken } } : {}),
  });
  if (grant.error || grant.data.user?.id !== user.id) {
    const status = grant.error?.status;
    if (grant.error?.code === CAPTCHA_FAILED_CODE) {
      return { ok: false, status: 400, error: CAPTCHA_MESSAGE, code: CAPTCHA_FAILED_CODE };
    }
    if (status === 429) {
      return { ok: false, status: 429, error: grant.error?.message ?? FAILURE_MESSAGE, code: 'rate_limited' };
    }
    if (status && status >= 400 && status < 500) {
      return { ok: false, status: 403, error: WRONG_PASSWORD_MESSAGE, code: 'invalid_credentials' };
    }
    console.error('account: auth service:', status, grant.error?.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
  }
  const grantToken = grant.data.session?.access_token;
  // The account stays: end the session the password check made, so nothing outlives this request.
  const endGrant = async () => {
    if (grantToken) await deps.admin.auth.admin.signOut(grantToken, 'local').catch(() => {});
  };

  if (factor && code) {
    // deps.auth now holds the grant's session: the challenge and verify run on it.
    const verified = await deps.auth.auth.mfa.challengeAndVerify({ factorId: factor.id, code });
    if (verified.error) {
      await endGrant();
      const status = verified.error.status;
      if (status === 429) {
        return { ok: false, status: 429, error: verified.error.message || FAILURE_MESSAGE, code: 'rate_limited' };
      }
      if (status && status >= 400 && status < 500) {
        return { ok: false, status: 400, error: WRONG_CODE_MESSAGE, code: 'mfa_verification_failed' };
      }
      console.error('account: auth service:', status, verified.error.message);
      return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
    }
  }

  const newsletter = await deps.admin.from('newsletter_subscribers').delete().eq('email_key', email.toLowerCase());
  const removed = newsletter.error ? { error: newsletter.error } : await deps.admin.auth.admin.deleteUser(user.id);
  if (removed.error) {
    await endGrant();
    console.error('account: delete failed:', removed.error.message);
    return { ok: false, status: 502, error: FAILURE_MESSAGE, code: 'upstream_failure' };
  }
  console.log('account: account deleted');
  return { ok: true, value: null };
}
