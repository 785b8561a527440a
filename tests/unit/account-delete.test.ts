import { describe, expect, it } from 'vitest';
import { deleteProblem } from '../../src/lib/account-delete.ts';

describe('deleteProblem', () => {
  it.each([
    [
      'a wrong password: under the password',
      { error: 'The password is incorrect. Your account was not deleted.' },
      { field: 'password', text: 'The password is incorrect. Your account was not deleted.', askCode: false },
    ],
    [
      'no code from a member with two-factor: under the code, which is asked from now on',
      {
        error: 'Enter the 6-digit code from your authenticator app to delete your account.',
        code: 'mfa_code_required',
      },
      {
        field: 'code',
        text: 'Enter the 6-digit code from your authenticator app to delete your account.',
        askCode: true,
      },
    ],
    [
      'a wrong code: under the code',
      { error: 'The code is incorrect or has expired. Your account was not deleted.', code: 'mfa_verification_failed' },
      { field: 'code', text: 'The code is incorrect or has expired. Your account was not deleted.', askCode: true },
    ],
    [
      'a password-only session: under the password, in the function’s words',
      { error: 'Two-factor authentication is on for this account.', code: 'insufficient_aal' },
      { field: 'password', text: 'Two-factor authentication is on for this account.', askCode: false },
    ],
    [
      'a gateway’s { message }',
      { message: 'Too many requests' },
      { field: 'password', text: 'Too many requests', askCode: false },
    ],
    ['no words at all', { error: '  ' }, { field: 'password', askCode: false }],
    ['no body', undefined, { field: 'password', askCode: false }],
  ])('%s', (_name, body, expected) => {
    expect(deleteProblem(body)).toEqual(expected);
  });
});
