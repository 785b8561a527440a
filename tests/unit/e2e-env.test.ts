import { expect, test } from 'vitest';
import { runsCaptchaSpec } from '../../scripts/lib/e2e-env.ts';

// `npm test -- e2e <filters>` builds and serves dist-captcha only when Playwright will run the CAPTCHA spec.
test.each<[string[], boolean]>([
  [[], true],
  [['tests/e2e/headers.spec.ts'], false],
  [['tests/e2e/auth.spec.ts', 'tests/e2e/quiz.spec.ts:12'], false],
  [['tests/e2e/captcha.spec.ts'], true],
  [['tests/e2e/captcha.spec.ts:40'], true],
  [['tests/e2e/'], true],
  [['CAPTCHA'], true],
  [['/(headers|captcha)\\.spec/'], true],
])('filters %j: dist-captcha %s', (filters, expected) => {
  expect(runsCaptchaSpec(filters)).toBe(expected);
});
