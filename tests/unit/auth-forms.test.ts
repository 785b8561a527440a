import { describe, expect, it } from 'vitest';
import {
  type AuthEntry,
  CONFIRM_LINK_EXPIRED,
  chosenPasswordResult,
  cleanCode,
  codeFailure,
  codeProblem,
  fillAccounts,
  isExpiredSessionError,
  readAuthEntry,
  recoveryLinkAction,
  resendOutcome,
  resetProblem,
  resetRequestFailure,
  type SignUpFields,
  signInFailure,
  signUpFailure,
  signUpProblem,
  tabHref,
  unknownPassword,
} from '../../src/lib/auth-forms.ts';
import { passwordMeetsRules } from '../../supabase/functions/_shared/password.ts';

describe('recoveryLinkAction: a recovery link opened while someone may be signed in', () => {
  it('is used when nobody is signed in', () => {
    expect(recoveryLinkAction(null, 'user-b')).toBe('use');
  });
  it('is used when it is the signed-in account', () => {
    expect(recoveryLinkAction('user-a', 'user-a')).toBe('use');
  });
  it("asks first when it is another account's link", () => {
    expect(recoveryLinkAction('user-a', 'user-b')).toBe('ask');
  });
  it('names both addresses in the question', () => {
    expect(fillAccounts('You are {current}; the link is for {link}.', 'a@example.com', 'b@example.com')).toBe(
      'You are a@example.com; the link is for b@example.com.',
    );
  });
});

describe('readAuthEntry: which mode /auth opens in', () => {
  it.each<[string, string, string, AuthEntry]>([
    ['no query', '', '', { kind: 'tab', tab: 'signin' }],
    ['tab=signin', '?tab=signin', '', { kind: 'tab', tab: 'signin' }],
    ['tab=signup', '?tab=signup', '', { kind: 'tab', tab: 'signup' }],
    ['an unknown tab', '?tab=admin', '', { kind: 'tab', tab: 'signin' }],
    ['tab=reset', '?tab=reset', '', { kind: 'reset' }],
    ['tab=mfa: the two-factor step', '?tab=mfa', '', { kind: 'mfa' }],
    ['a PKCE code', '?code=abc', '', { kind: 'pkce', code: 'abc' }],
    ['a code with tab=reset', '?tab=reset&code=abc', '', { kind: 'pkce', code: 'abc' }],
    ['tab=confirm: the confirmation code step', '?tab=confirm', '', { kind: 'code', step: 'confirm' }],
    ['tab=resend: the same step', '?tab=resend', '', { kind: 'code', step: 'confirm' }],
    ['tab=recover: the reset code step', '?tab=recover', '', { kind: 'code', step: 'recover' }],
    [
      'recovery tokens in the hash',
      '?tab=reset',
      '#access_token=at&expires_in=3600&refresh_token=rt&token_type=bearer&type=recovery',
      { kind: 'tokens', accessToken: 'at', refreshToken: 'rt' },
    ],
    [
      'recovery tokens on the signin tab still mean reset',
      '?tab=signin',
      '#access_token=at&refresh_token=rt&type=recovery',
      { kind: 'tokens', accessToken: 'at', refreshToken: 'rt' },
    ],
    // Only a recovery link may set the session from the address (session fixation, login CSRF).
    ['tokens without a type', '?tab=reset', '#access_token=at&refresh_token=rt', { kind: 'not-recovery' }],
    [
      'tokens of a sign-up confirmation',
      '',
      '#access_token=at&expires_in=3600&refresh_token=rt&token_type=bearer&type=signup',
      { kind: 'not-recovery' },
    ],
    ['tokens of a magic link', '', '#access_token=at&refresh_token=rt&type=magiclink', { kind: 'not-recovery' }],
    [
      'type=recovery in the query only',
      '?type=recovery',
      '#access_token=at&refresh_token=rt',
      { kind: 'not-recovery' },
    ],
    [
      'an expired link',
      '?tab=reset',
      '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired',
      { kind: 'link-error', code: 'otp_expired' },
    ],
    ['an error without a code', '', '#error=access_denied', { kind: 'link-error', code: 'access_denied' }],
    [
      'an error in the query (PKCE)',
      '?error=access_denied&error_code=otp_expired',
      '',
      { kind: 'link-error', code: 'otp_expired' },
    ],
    ['a recovery hash without tokens', '?tab=reset', '#type=recovery', { kind: 'link-error', code: 'otp_expired' }],
    [
      'a recovery access token without a refresh token',
      '',
      '#access_token=at&type=recovery',
      { kind: 'link-error', code: 'otp_expired' },
    ],
    ['an access token alone', '', '#access_token=at', { kind: 'not-recovery' }],
    // The confirmation mail's link: the form that verifies it together with a new password.
    [
      "the confirmation mail's link",
      '?tab=confirm&token_hash=4f9a0c&type=signup',
      '',
      { kind: 'confirm-link', tokenHash: '4f9a0c' },
    ],
    [
      'a PKCE token hash',
      '?token_hash=pkce_4f9a0c&type=signup',
      '',
      { kind: 'confirm-link', tokenHash: 'pkce_4f9a0c' },
    ],
    // Any other kind of token hash would sign the visitor in to whatever account it names: refused.
    ['a magic link token hash', '?token_hash=4f9a0c&type=magiclink', '', { kind: 'not-recovery' }],
    ['a token hash of type email', '?token_hash=4f9a0c&type=email', '', { kind: 'not-recovery' }],
    ['a token hash without a type', '?tab=confirm&token_hash=4f9a0c', '', { kind: 'not-recovery' }],
    [
      'an error wins over a token hash',
      '?token_hash=4f9a0c&type=signup&error_code=otp_expired',
      '',
      { kind: 'link-error', code: 'otp_expired' },
    ],
  ])('%s', (_, search, hash, expected) => {
    expect(readAuthEntry(search, hash)).toEqual(expected);
  });

  it('builds the cleaned address of a mode', () => {
    expect(tabHref('reset')).toBe('/auth?tab=reset');
    expect(tabHref('signin')).toBe('/auth?tab=signin');
  });
});

const good: SignUpFields = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  password: 'Str0ng-pass!',
  website: '',
};

describe('signUpProblem', () => {
  it.each<[string, Partial<SignUpFields>, ReturnType<typeof signUpProblem>]>([
    ['a complete form', {}, undefined],
    ['a filled honeypot, first', { website: 'x', firstName: '' }, { title: 'honeypotTitle' }],
    ['a blank first name', { firstName: '  ' }, { title: 'missingNamesTitle', description: 'missingNamesDescription' }],
    ['a blank last name', { lastName: '' }, { title: 'missingNamesTitle', description: 'missingNamesDescription' }],
    [
      'a password without a symbol',
      { password: 'Str0ngpass' },
      { title: 'passwordNotMetTitle', description: 'passwordNotMetDescription' },
    ],
    [
      'a 7-character password',
      { password: 'Ab1!xyz' },
      { title: 'passwordNotMetTitle', description: 'passwordNotMetDescription' },
    ],
    [
      'names checked before the password',
      { firstName: '', password: 'x' },
      { title: 'missingNamesTitle', description: 'missingNamesDescription' },
    ],
  ])('%s', (_, change, expected) => {
    expect(signUpProblem({ ...good, ...change })).toEqual(expected);
  });
});

describe('resetProblem', () => {
  it.each([
    ['identical strong passwords', 'N3w-password!', 'N3w-password!', undefined],
    [
      'different passwords',
      'N3w-password!',
      'N3w-password?',
      { title: 'mismatchTitle', description: 'mismatchDescription' },
    ],
    ['identical weak passwords', 'password', 'password', { title: 'weakTitle', description: 'weakDescription' }],
    [
      'mismatch reported before weakness',
      'weak',
      'other',
      { title: 'mismatchTitle', description: 'mismatchDescription' },
    ],
  ])('%s', (_, password, confirm, expected) => {
    expect(resetProblem(password, confirm)).toEqual(expected);
  });
});

describe('server answers to toasts', () => {
  it.each<[Parameters<typeof signUpFailure>[0], ReturnType<typeof signUpFailure>]>([
    [
      { code: 'account_exists', message: 'A user with this email address has already been registered.' },
      { title: 'accountExistsTitle', description: 'accountExistsDescription' },
    ],
    // The code decides, whatever the sentence says.
    [
      { code: 'account_exists', message: 'Reworded.' },
      { title: 'accountExistsTitle', description: 'accountExistsDescription' },
    ],
    [{ code: 'account_exists' }, { title: 'accountExistsTitle', description: 'accountExistsDescription' }],
    // A sentence that mentions "already" without the code is shown as it is.
    [
      { code: 'auth_refused', message: 'User already registered' },
      { title: 'signUpFailedTitle', text: 'User already registered' },
    ],
    [
      { code: 'invalid_input', message: 'Email must be a valid email address.' },
      { title: 'signUpFailedTitle', text: 'Email must be a valid email address.' },
    ],
    [{ message: '  ' }, { title: 'signUpFailedTitle', description: 'signUpFailedDescription' }],
    [undefined, { title: 'signUpFailedTitle', description: 'signUpFailedDescription' }],
  ])('sign-up %j', (refusal, expected) => {
    expect(signUpFailure(refusal)).toEqual(expected);
  });

  it.each([
    [
      { code: 'invalid_credentials', message: 'Invalid login credentials' },
      { title: 'invalidCredentialsTitle', description: 'invalidCredentialsDescription' },
    ],
    // Without the code the auth service's words are shown: nothing is decided on its text.
    [{ message: 'Invalid login credentials' }, { title: 'signInFailedTitle', text: 'Invalid login credentials' }],
    [
      { code: 'email_not_confirmed', message: 'Email not confirmed' },
      { title: 'notConfirmedTitle', description: 'notConfirmedDescription' },
    ],
    [{ message: 'Email not confirmed' }, { title: 'signInFailedTitle', text: 'Email not confirmed' }],
    [
      { code: 'user_banned', message: 'User is banned' },
      { title: 'signInFailedTitle', text: 'User is banned' },
    ],
  ])('sign-in %j', (err, expected) => {
    expect(signInFailure(err)).toEqual(expected);
  });

  it.each([
    [
      'Too many requests from your address. Please try again in 10 minutes.',
      { title: 'resetFailedTitle', text: 'Too many requests from your address. Please try again in 10 minutes.' },
    ],
    [undefined, { title: 'resetFailedTitle', description: 'resetFailedDescription' }],
  ])('reset request %j', (text, expected) => {
    expect(resetRequestFailure(text)).toEqual(expected);
  });

  it.each([
    [{ name: 'AuthSessionMissingError', message: 'Auth session missing!' }, true],
    [{ name: 'AuthInvalidTokenResponseError', message: 'Auth session or user missing' }, true],
    // Decided by the error's name or code, never its text.
    [{ message: 'Auth session missing!' }, false],
    [{ code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' }, true],
    [{ code: 'bad_jwt', message: 'invalid JWT' }, true],
    [{ code: 'weak_password', message: 'Password is known to be weak' }, false],
    [{ code: 'same_password', message: 'New password should be different from the old password.' }, false],
    [null, false],
  ])('expired session %j -> %s', (err, expected) => {
    expect(isExpiredSessionError(err)).toBe(expected);
  });
});

describe('the emailed code', () => {
  it.each([
    ['123456', '123456'],
    [' 123 456 ', '123456'],
    ['123-456', '123456'],
    ['', ''],
  ])('%j is sent as %j', (typed, sent) => {
    expect(cleanCode(typed)).toBe(sent);
  });

  it.each([
    ['123456', undefined],
    ['12345', 'codeFormat'],
    ['1234567', 'codeFormat'],
    ['', 'codeFormat'],
  ])('%j before sending: %s', (code, expected) => {
    expect(codeProblem(code)).toBe(expected);
  });

  it.each([
    // GoTrue's answer to a wrong, used or expired code alike (403).
    [{ code: 'otp_expired', message: 'Token has expired or is invalid', status: 403 }, { label: 'codeWrong' }],
    [{ message: 'Token has expired or is invalid' }, { text: 'Token has expired or is invalid' }],
    // Anything else in the auth service's words, e.g. its per-IP limit on /verify.
    [
      { code: 'over_request_rate_limit', message: 'Request rate limit reached', status: 429 },
      { text: 'Request rate limit reached' },
    ],
    [{ status: 500, message: '' }, { label: 'codeFailed' }],
  ])('refused %j', (err, expected) => {
    expect(codeFailure(err)).toEqual(expected);
  });

  it.each<[Parameters<typeof resendOutcome>[0], ReturnType<typeof resendOutcome>]>([
    // An address waiting to be confirmed, an unknown one and a confirmed one all get 200 {}.
    [null, { title: 'codeSentTitle', description: 'codeSentDescription' }],
    // The function's 429s (its per-address limit, the project's mail budget spent) say to wait.
    [
      { code: 'rate_limited', message: 'Too many requests from your address. Please try again in 58 minutes.' },
      { title: 'codeWaitTitle', description: 'codeWaitDescription' },
    ],
    [
      { code: 'rate_limited', message: 'Too many emails have been sent. Please try again later.' },
      { title: 'codeWaitTitle', description: 'codeWaitDescription' },
    ],
    [
      { code: 'invalid_input', message: 'Email must be a valid email address.' },
      { title: 'codeSendFailedTitle', text: 'Email must be a valid email address.' },
    ],
    [{ code: 'upstream_failure' }, { title: 'codeSendFailedTitle', description: 'unexpectedDescription' }],
  ])('a new confirmation mail asked for, answer %j', (err, expected) => {
    expect(resendOutcome(err)).toEqual(expected);
  });
});

describe('the password that confirms a new account', () => {
  it.each<[string, Parameters<typeof chosenPasswordResult>[0], ReturnType<typeof chosenPasswordResult>]>([
    ['accepted', null, 'set'],
    // The account already had exactly this password: whoever typed it holds it.
    [
      'the same as the stored one',
      { code: 'same_password', message: 'New password should be different from the old password.' },
      'set',
    ],
    ['the session is gone', { code: 'session_not_found', message: 'Session not found' }, 'expired'],
    ['no session', { name: 'AuthSessionMissingError', message: 'Auth session missing!' }, 'expired'],
    [
      'weak (e.g. a leaked password)',
      { code: 'weak_password', message: 'Password is known to be weak and easy to guess' },
      { title: 'weakTitle', description: 'weakDescription' },
    ],
    [
      'anything else, in the service words',
      { code: 'over_request_rate_limit', message: 'Request rate limit reached' },
      { title: 'updateFailedTitle', text: 'Request rate limit reached' },
    ],
    ['anything else, no words', { message: ' ' }, { title: 'updateFailedTitle', description: 'unexpectedDescription' }],
  ])('%s', (_, err, expected) => {
    expect(chosenPasswordResult(err)).toEqual(expected);
  });

  it('a password nobody knows meets the rules, fits bcrypt and differs every time', () => {
    const zero = unknownPassword(new Uint8Array(32));
    expect(zero).toBe(`Aa1!${'0'.repeat(64)}`);
    expect(passwordMeetsRules(zero)).toBe(true);
    expect(new TextEncoder().encode(zero).length).toBeLessThanOrEqual(72);
    const a = unknownPassword();
    const b = unknownPassword();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^Aa1!([0-9a-f]{64})$/);
  });

  it('a used or expired link lands on the Account verified page in its expired state', () => {
    const url = new URL(CONFIRM_LINK_EXPIRED, 'https://signalone.example');
    expect(url.pathname).toBe('/newsletter-verified');
    expect(url.searchParams.get('type')).toBe('user');
    expect(new URLSearchParams(url.hash.slice(1)).get('error_code')).toBe('otp_expired');
  });
});
