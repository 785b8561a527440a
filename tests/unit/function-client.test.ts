import { describe, expect, test } from 'vitest';
import { functionHeaders, invokeFunction } from '../../src/lib/functions.ts';

// What invokeFunction sends beside the body, as supabase-js's functions.invoke does. Its answers are read
// against the functions themselves in tests/integration (accounts, contact, newsletter, account-data).

describe('functionHeaders', () => {
  test('a legacy anon key (a JWT) goes as apikey and as the bearer', () => {
    expect(functionHeaders(undefined, 'eyJ.anon.key')).toEqual({
      apikey: 'eyJ.anon.key',
      Authorization: 'Bearer eyJ.anon.key',
    });
  });

  test('a publishable key is not a JWT: apikey only', () => {
    expect(functionHeaders(undefined, 'sb_publishable_abc')).toEqual({ apikey: 'sb_publishable_abc' });
  });

  test("the member's access token is the bearer when given", () => {
    expect(functionHeaders('member.jwt', 'sb_publishable_abc')).toEqual({
      apikey: 'sb_publishable_abc',
      Authorization: 'Bearer member.jwt',
    });
  });
});

describe('the payload map types every call (checked by astro check)', () => {
  test('a missing field, a misspelt one and a GET of a form function do not compile', () => {
    const calls = [
      // @ts-expect-error newsletter-signup needs the wording's version
      () => invokeFunction('newsletter-signup', { email: 'ann@example.com' }),
      // @ts-expect-error user-signup has firstName, not first_name
      () => invokeFunction('user-signup', { email: 'a@b.co', password: 'x', first_name: 'A', lastName: 'B' }),
      // @ts-expect-error only account is read with a GET
      () => invokeFunction('password-reset', null),
      () => invokeFunction('account', null),
      () => invokeFunction('account', { password: 'x', code: '123456' }),
    ];
    expect(calls).toHaveLength(5);
  });
});
