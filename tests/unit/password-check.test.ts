import { describe, expect, it } from 'vitest';
import { CAPTCHA_MESSAGE } from '../../src/lib/captcha.ts';
import { passwordCheckFailure, passwordCheckWay } from '../../src/lib/password-check.ts';

describe('passwordCheckWay', () => {
  it.each([
    [
      'a member without a factor: the sign-in becomes the session',
      { currentLevel: 'aal1', nextLevel: 'aal1' },
      'sign-in',
    ],
    ['a member at aal2 keeps the session: aside', { currentLevel: 'aal2', nextLevel: 'aal2' }, 'aside'],
    ['a password-only session of a member with a factor: aside', { currentLevel: 'aal1', nextLevel: 'aal2' }, 'aside'],
    ['no session: aside', { currentLevel: null, nextLevel: null }, 'aside'],
    ['a level that could not be read: aside', null, 'aside'],
  ] as const)('%s', (_name, level, expected) => {
    expect(passwordCheckWay(level)).toBe(expected);
  });
});

describe('passwordCheckFailure', () => {
  it.each([
    ['a wrong password', { code: 'invalid_credentials', message: 'Invalid login credentials' }, { kind: 'wrong' }],
    ['a wrong current_password', { code: 'current_password_invalid', message: 'x' }, { kind: 'wrong' }],
    ['no session left', { name: 'AuthSessionMissingError', message: 'Auth session missing!' }, { kind: 'expired' }],
    ['a session that was ended', { code: 'session_not_found', message: 'x' }, { kind: 'expired' }],
    [
      'a refused CAPTCHA token: said as at sign-in, not in GoTrue’s words',
      { code: 'captcha_failed', message: 'captcha protection: request disallowed (timeout-or-duplicate)' },
      { kind: 'failed', text: CAPTCHA_MESSAGE },
    ],
    [
      'too many sign-ins: the service’s words',
      { code: 'over_request_rate_limit', message: ' Request rate limit reached ' },
      { kind: 'failed', text: 'Request rate limit reached' },
    ],
    ['no words at all', { message: '' }, { kind: 'failed' }],
  ])('%s', (_name, error, expected) => {
    expect(passwordCheckFailure(error)).toEqual(expected);
  });
});
