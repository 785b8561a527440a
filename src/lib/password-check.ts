// The current-password check Settings runs before it changes what protects the account (the password, a
// two-factor factor): the rules as plain functions. src/stores/password-check.ts adapts them.
import { CAPTCHA_MESSAGE, isCaptchaRefusal } from './captcha.ts';
import type { AssuranceLevel } from './mfa.ts';

/**
 * How the password is checked, by signing in with it:
 * - 'sign-in': the sign-in becomes this browser's session, a recent one (a password change from a session
 *   older than 24 hours otherwise needs a mailed code, secure_password_change);
 * - 'aside': a throwaway client signs in and ends that session at once, so this session keeps its level. A
 *   password sign-in is aal1, and a member with a verified factor needs aal2 for what comes next.
 * A level that could not be read gets 'aside': it checks the password just as well and changes nothing.
 */
export function passwordCheckWay(level: AssuranceLevel | null | undefined): 'sign-in' | 'aside' {
  return level && level.nextLevel !== 'aal2' && level.currentLevel !== null ? 'sign-in' : 'aside';
}

/**
 * What a refused check means for the page: 'wrong' for a wrong password (the auth service answers 400
 * invalid_credentials, as for an unknown address), 'expired' when this browser has no session any more,
 * otherwise 'failed' with the service's own words when it gave some (too many sign-ins, say). A CAPTCHA token
 * the auth service refused (400 captcha_failed) is said as at sign-in, not in GoTrue's words.
 */
export function passwordCheckFailure(err: { code?: string; name?: string; message?: string }): {
  kind: 'wrong' | 'expired' | 'failed';
  text?: string;
} {
  if (err.code === 'invalid_credentials' || err.code === 'current_password_invalid') return { kind: 'wrong' };
  if (err.name === 'AuthSessionMissingError' || err.code === 'session_not_found') return { kind: 'expired' };
  if (isCaptchaRefusal(err)) return { kind: 'failed', text: CAPTCHA_MESSAGE };
  const text = err.message?.trim();
  return text ? { kind: 'failed', text } : { kind: 'failed' };
}
