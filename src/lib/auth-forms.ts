// The /auth page's rules as plain functions: which mode a URL asks for, and what each form says about its
// input before anything is sent. No DOM, no network: the island (src/islands/Auth.tsx) adapts them.
import type { FunctionError } from '../../supabase/functions/_shared/errors.ts';
import { passwordMeetsRules } from '../../supabase/functions/_shared/password.ts';
import type { AuthLabelKey } from '../islands/auth/labels.ts';
import { CAPTCHA_MESSAGE, isCaptchaRefusal } from './captcha.ts';

export type AuthTab = 'signin' | 'signup';
/** The code steps: 'confirm' for a sign-up's confirmation mail, 'recover' for a password reset mail. */
export type CodeStep = 'confirm' | 'recover';
/**
 * 'mfa': the authenticator app's code, for a session started with the password only (src/lib/mfa.ts).
 * 'choose': the password form that confirms a new account (its mail's link, or its code).
 */
export type AuthMode = AuthTab | 'reset' | CodeStep | 'mfa' | 'choose';

/**
 * What the page was opened with: a tab, a PKCE code, the tokens of a recovery link, the token hash of a
 * sign-up's confirmation link, tokens of anything else (refused: only a recovery link may set the session from
 * the address), or an error from a used or expired link.
 */
export type AuthEntry =
  | { kind: 'tab'; tab: AuthTab }
  | { kind: 'reset' }
  | { kind: 'code'; step: CodeStep }
  | { kind: 'mfa' }
  | { kind: 'pkce'; code: string }
  | { kind: 'tokens'; accessToken: string; refreshToken: string }
  | { kind: 'confirm-link'; tokenHash: string }
  | { kind: 'not-recovery' }
  | { kind: 'link-error'; code: string };

/** Reads /auth's query and fragment. Errors win over tokens; a code or recovery tokens mean reset mode. */
export function readAuthEntry(search: string, hash: string): AuthEntry {
  const query = new URLSearchParams(search);
  const fragment = new URLSearchParams(hash.replace(/^#/, ''));
  const error = fragment.get('error_code') ?? fragment.get('error') ?? query.get('error_code') ?? query.get('error');
  if (error) return { kind: 'link-error', code: error };
  // The confirmation mail's link: nothing is verified until the visitor chooses a password on the page. A
  // token hash of any other kind (a magic link would sign the visitor in) is refused as tokens are.
  const tokenHash = query.get('token_hash');
  if (tokenHash) return query.get('type') === 'signup' ? { kind: 'confirm-link', tokenHash } : { kind: 'not-recovery' };
  const code = query.get('code');
  if (code) return { kind: 'pkce', code };
  const accessToken = fragment.get('access_token');
  const refreshToken = fragment.get('refresh_token');
  const recovery = fragment.get('type') === 'recovery';
  // Tokens another kind of link (or a crafted one) carries would sign the visitor in to whatever account
  // they belong to: they are never used.
  if (accessToken && !recovery) return { kind: 'not-recovery' };
  if (accessToken && refreshToken) return { kind: 'tokens', accessToken, refreshToken };
  // A recovery fragment without both tokens cannot become a session: treat it as an expired link.
  if (recovery) return { kind: 'link-error', code: 'otp_expired' };
  const tab = query.get('tab');
  if (tab === 'reset') return { kind: 'reset' };
  if (tab === 'mfa') return { kind: 'mfa' };
  // tab=resend: the address links to it by the older name of the confirmation step.
  if (tab === 'confirm' || tab === 'resend') return { kind: 'code', step: 'confirm' };
  if (tab === 'recover') return { kind: 'code', step: 'recover' };
  return { kind: 'tab', tab: tab === 'signup' ? 'signup' : 'signin' };
}

/**
 * A recovery link opened while someone is signed in: its account replaces the signed-in one only when it is
 * the same account ('use'); for another account the visitor is asked first ('ask').
 */
export function recoveryLinkAction(signedInUserId: string | null, linkUserId: string): 'use' | 'ask' {
  return signedInUserId === null || signedInUserId === linkUserId ? 'use' : 'ask';
}

/** `{current}` and `{link}` in a label, filled with the two addresses. */
export function fillAccounts(text: string, current: string, link: string): string {
  return text.replace('{current}', current).replace('{link}', link);
}

export function tabHref(mode: AuthMode): string {
  return `/auth?tab=${mode}`;
}

/** A toast to show: label keys, or the server's own words as `text` in place of a description. */
export interface Problem {
  title: AuthLabelKey;
  description?: AuthLabelKey;
  text?: string;
}

export interface SignUpFields {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  website: string;
}

/** The first thing wrong with the sign-up form, in the order people meet it; undefined when it may be sent. */
export function signUpProblem(fields: SignUpFields): Problem | undefined {
  if (fields.website.trim() !== '') return { title: 'honeypotTitle' };
  if (fields.firstName.trim() === '' || fields.lastName.trim() === '')
    return { title: 'missingNamesTitle', description: 'missingNamesDescription' };
  if (!passwordMeetsRules(fields.password))
    return { title: 'passwordNotMetTitle', description: 'passwordNotMetDescription' };
  return undefined;
}

/** The reset form: both passwords identical, then the rules. */
export function resetProblem(password: string, confirm: string): Problem | undefined {
  if (password !== confirm) return { title: 'mismatchTitle', description: 'mismatchDescription' };
  if (!passwordMeetsRules(password)) return { title: 'weakTitle', description: 'weakDescription' };
  return undefined;
}

/**
 * The toast for a failed sign-up, from the function's refusal (or none): an address with an account
 * (`account_exists`) gets the page's words, anything else the function's sentence.
 */
export function signUpFailure(refusal: Pick<FunctionError, 'code' | 'message'> | undefined): Problem {
  if (refusal?.code === 'account_exists')
    return { title: 'accountExistsTitle', description: 'accountExistsDescription' };
  const text = refusal?.message?.trim();
  return text
    ? { title: 'signUpFailedTitle', text }
    : { title: 'signUpFailedTitle', description: 'signUpFailedDescription' };
}

/** The toast for a failed reset request. */
export function resetRequestFailure(serverText: string | undefined): Problem {
  const text = serverText?.trim();
  return text
    ? { title: 'resetFailedTitle', text }
    : { title: 'resetFailedTitle', description: 'resetFailedDescription' };
}

/** The toast for a failed sign-in: invalid credentials get their own words, anything else the service's. */
export function signInFailure(err: { code?: string; message?: string }): Problem {
  // The auth service's own words ("captcha protection: request disallowed (…)") say nothing to a person.
  if (isCaptchaRefusal(err)) return { title: 'signInFailedTitle', text: CAPTCHA_MESSAGE };
  if (err.code === 'invalid_credentials')
    return { title: 'invalidCredentialsTitle', description: 'invalidCredentialsDescription' };
  if (isNotConfirmed(err)) return { title: 'notConfirmedTitle', description: 'notConfirmedDescription' };
  return { title: 'signInFailedTitle', text: err.message };
}

/** supabase-js's own errors (by name) that mean there is no session to act with. */
const NO_SESSION_ERRORS = ['AuthSessionMissingError', 'AuthInvalidTokenResponseError'];
/** The auth service's codes that mean the session (or the link that made it) is gone. */
const EXPIRED_SESSION_CODES = ['session_not_found', 'session_expired', 'invalid_jwt', 'bad_jwt', 'otp_expired'];

/** Auth-service errors that mean the recovery session is gone: the link has to be requested again. */
export function isExpiredSessionError(err: { code?: string; message?: string; name?: string } | null): boolean {
  if (!err) return false;
  return NO_SESSION_ERRORS.includes(err.name ?? '') || EXPIRED_SESSION_CODES.includes(err.code ?? '');
}

/** The auth service refused a sign-in because the address has not been confirmed yet. */
export function isNotConfirmed(err: { code?: string; message?: string }): boolean {
  return err.code === 'email_not_confirmed';
}

/** The code as typed or pasted ("123 456", "123-456"), digits only. */
export function cleanCode(input: string): string {
  return input.replace(/\D/g, '');
}

/** The code field's own check before anything is sent: the mails' codes have six digits. */
export function codeProblem(code: string): AuthLabelKey | undefined {
  return /^\d{6}$/.test(code) ? undefined : 'codeFormat';
}

/**
 * What the code field says when the auth service refuses a code: a wrong or used code (GoTrue answers 403
 * otp_expired for both) in the page's words, anything else (too many tries, a code burnt after too many
 * misses) in the service's own.
 */
export function codeFailure(err: { code?: string; message?: string; status?: number }): {
  label?: AuthLabelKey;
  text?: string;
} {
  if (err.code === 'otp_expired') return { label: 'codeWrong' };
  const text = err.message?.trim();
  return text ? { text } : { label: 'codeFailed' };
}

/**
 * The toast after asking for a new mail. The function answers the same whether or not the address has an
 * account waiting (and so does this), except `rate_limited`: too many mails to the address or from this
 * visitor, for which the member is asked to wait.
 */
export function resendOutcome(err: Pick<FunctionError, 'code' | 'message'> | null): Problem {
  if (!err) return { title: 'codeSentTitle', description: 'codeSentDescription' };
  if (err.code === 'rate_limited') return { title: 'codeWaitTitle', description: 'codeWaitDescription' };
  const text = err.message?.trim();
  return text
    ? { title: 'codeSendFailedTitle', text }
    : { title: 'codeSendFailedTitle', description: 'unexpectedDescription' };
}

/**
 * What became of the password the confirming visitor chose (PUT /user after the link or code confirmed the
 * address): 'set' when the account now has it, including GoTrue's 422 same_password (the account already had
 * exactly this password, so whoever typed it holds it); 'expired' when the session is gone; else the toast.
 */
export function chosenPasswordResult(
  err: { code?: string; message?: string; name?: string } | null,
): 'set' | 'expired' | Problem {
  if (!err || err.code === 'same_password') return 'set';
  if (isExpiredSessionError(err)) return 'expired';
  if (err.code === 'weak_password') return { title: 'weakTitle', description: 'weakDescription' };
  const text = err.message?.trim();
  return text
    ? { title: 'updateFailedTitle', text }
    : { title: 'updateFailedTitle', description: 'unexpectedDescription' };
}

/**
 * A password nobody knows, for an address confirmed while the visitor's own choice was refused: whatever
 * password was stored before (maybe a stranger's, set at sign-up) stops working. Meets the sign-up rules;
 * 68 characters, under bcrypt's 72 bytes.
 */
export function unknownPassword(random: Uint8Array = crypto.getRandomValues(new Uint8Array(32))): string {
  return `Aa1!${Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Where a confirmation link that was used, has expired or was replaced by a newer mail sends the visitor. */
export const CONFIRM_LINK_EXPIRED = '/newsletter-verified?type=user#error=access_denied&error_code=otp_expired';

/** Where the confirmation link's visitor lands once the password is set: the 'Account verified' page. */
export const CONFIRMED_PAGE = '/newsletter-verified?type=user';
