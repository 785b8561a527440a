import { describe, expect, test } from 'vitest';
import { functionHeaders } from '../../src/lib/functions.ts';

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
