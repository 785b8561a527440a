import type { User } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';
import { authenticatorCode, checkAal, tokenAal } from '../../../supabase/functions/account/account.ts';

/** A token's shape as the auth service issues it; only its claims matter here (the service checked the rest). */
const token = (claims: Record<string, unknown>) =>
  ['{"alg":"HS256","typ":"JWT"}', JSON.stringify(claims), 'signature']
    .map((part, i) => (i < 2 ? Buffer.from(part).toString('base64url') : part))
    .join('.');

const user = (factors: { status: string }[] | undefined) =>
  ({
    id: 'u',
    email: 'ann@example.com',
    factors: factors?.map((f, i) => ({ id: `f${i}`, factor_type: 'totp', ...f })),
  }) as unknown as User;

describe('tokenAal', () => {
  test.each([
    [{ aal: 'aal2', sub: 'u' }, 'aal2'],
    [{ aal: 'aal1' }, 'aal1'],
    // Names in user_metadata are UTF-8 in the payload: they do not get in the way.
    [{ user_metadata: { first_name: 'Zoë 李' }, aal: 'aal2' }, 'aal2'],
    [{ sub: 'u' }, null],
    [{ aal: 2 }, null],
  ])('%j → %j', (claims, aal) => {
    expect(tokenAal(token(claims))).toBe(aal);
  });

  test('not a token: no level', () => {
    expect(tokenAal('sb_publishable_abc')).toBeNull();
    expect(tokenAal('a.%%%.c')).toBeNull();
  });
});

describe('checkAal: as supabase-js reckons currentLevel and nextLevel', () => {
  test.each([
    ['no factors, aal1', undefined, 'aal1', 200],
    ['an unverified factor only, aal1', [{ status: 'unverified' }], 'aal1', 200],
    ['a verified factor, aal2', [{ status: 'verified' }], 'aal2', 200],
    ['a verified factor, aal1', [{ status: 'verified' }], 'aal1', 403],
    ['a verified factor, no aal claim', [{ status: 'verified' }], undefined, 403],
  ])('%s → %i', (_, factors, aal, status) => {
    const result = checkAal(user(factors), token(aal ? { aal } : {}));
    if (status === 200) expect(result).toEqual({ ok: true, value: null });
    else {
      expect(result).toEqual({
        ok: false,
        status: 403,
        code: 'insufficient_aal',
        error:
          'Two-factor authentication is on for this account: sign in with a code from your authenticator app to continue.',
      });
    }
  });
});

describe('authenticatorCode', () => {
  test.each([
    ['123456', '123456'],
    ['123 456', '123456'],
    [' 012345 ', '012345'],
    ['12345', undefined],
    ['1234567', undefined],
    ['12345a', undefined],
    ['١٢٣٤٥٦', undefined],
    [123456, undefined],
    [undefined, undefined],
    ['', undefined],
  ])('%j → %j', (value, code) => {
    expect(authenticatorCode(value)).toBe(code);
  });
});
