// The forms check with form-rules.ts, the functions with the zod schemas built from it: they must agree on
// every input, with the same message for the same field.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  anyBlank,
  checkField,
  checkForm,
  contactRules,
  EMAIL_PATTERN,
  LIMITS,
  newsletterRules,
} from '../../../supabase/functions/_shared/form-rules.ts';
import { PUBLISHED_CONSENT_WORDINGS } from '../../../supabase/functions/_shared/newsletter-consent.ts';
import { validateContact, validateNewsletter } from '../../../supabase/functions/_shared/schemas.ts';

const valid = { name: 'Ann Lee', email: 'ann@example.com', subject: 'Question', message: 'Hello there' };
/** A wording version the card may send: one the site published. */
const consentVersion = PUBLISHED_CONSENT_WORDINGS[0]?.version;

describe('checkField', () => {
  test.each([
    ['a missing required field', contactRules.name, undefined, { ok: false, error: 'Name is required.' }],
    ['a blank required field', contactRules.message, ' \n\t ', { ok: false, error: 'Message is required.' }],
    ['a number', contactRules.name, 42, { ok: false, error: 'Name must be text.' }],
    ['a missing optional field', contactRules.subject, undefined, { ok: true, value: '' }],
    ['a name at the limit', contactRules.name, 'n'.repeat(LIMITS.name), { ok: true, value: 'n'.repeat(100) }],
    [
      'a name past the limit',
      contactRules.name,
      'n'.repeat(LIMITS.name + 1),
      { ok: false, error: 'Name must be at most 100 characters.' },
    ],
    [
      'a message past the limit',
      contactRules.message,
      'm'.repeat(LIMITS.message + 1),
      { ok: false, error: 'Message must be at most 5,000 characters.' },
    ],
    [
      'a subject past the limit',
      contactRules.subject,
      's'.repeat(LIMITS.subject + 1),
      { ok: false, error: 'Subject must be at most 200 characters.' },
    ],
    ['spaces around a name', contactRules.name, '  Ann \r\n Lee ', { ok: true, value: 'Ann Lee' }],
    ['a malformed email', newsletterRules.email, 'ann@', { ok: false, error: 'Email must be a valid email address.' }],
    [
      'an email with a header',
      newsletterRules.email,
      'a@b.co\r\nBcc: x@y.z',
      {
        ok: false,
        error: 'Email must be a valid email address.',
      },
    ],
    [
      'an email with spaces around',
      newsletterRules.email,
      '  ann@example.com ',
      { ok: true, value: 'ann@example.com' },
    ],
  ])('%s', (_label, rule, input, expected) => {
    expect(checkField(rule, input)).toEqual(expected);
  });
});

describe('checkForm', () => {
  test('every problem, and the first in form order', () => {
    expect(checkForm(contactRules, { email: 'nope', message: 'm'.repeat(5001) })).toEqual({
      ok: false,
      first: 'name',
      errors: {
        name: 'Name is required.',
        email: 'Email must be a valid email address.',
        message: 'Message must be at most 5,000 characters.',
      },
    });
  });

  test('cleaned values when all is well', () => {
    expect(checkForm(contactRules, { ...valid, subject: '  ' })).toEqual({
      ok: true,
      values: { name: 'Ann Lee', email: 'ann@example.com', subject: '', message: 'Hello there' },
    });
  });
});

test.each([
  [{ name: '', email: 'a@b.co', message: 'x' }, true],
  [{ name: 'A', email: '  ', message: 'x' }, true],
  [{ name: 'A', email: 'a@b.co' }, true],
  [{ name: 'A', email: 'a@b.co', message: 'x', subject: '' }, false],
])('anyBlank(%j) is %s (Missing Information)', (values, blank) => {
  expect(anyBlank(values, ['name', 'email', 'message'])).toBe(blank);
});

// Inputs that stress the rules: lengths around the limits, whitespace and control characters, odd emails.
const textish = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('', ' ', '\n', '\u0000', '\r\n', 'a\tb'),
  fc.integer({ min: 95, max: 105 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 195, max: 205 }).map((n) => ` ${'s'.repeat(n)}`),
  fc.integer({ min: 4995, max: 5005 }).map((n) => 'm'.repeat(n)),
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
);
const emailish = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((e) => ` ${e.toUpperCase()} `),
  fc.integer({ min: 240, max: 260 }).map((n) => `${'a'.repeat(n - 12)}@example.com`),
  fc.constantFrom('ann@', '@x.io', 'a..b@x.io', 'a@b', 'a@b.c', 'a b@x.io', ''),
  textish,
);

describe('form rules and zod schemas agree', () => {
  test('contact: same verdict, same first field, same message, same cleaned values', () => {
    fc.assert(
      fc.property(textish, emailish, textish, textish, (name, email, subject, message) => {
        const input = { name, email, subject, message };
        const form = checkForm(contactRules, input);
        const server = validateContact(input);
        if (form.ok) {
          expect(server).toEqual({
            ok: true,
            data: { ...form.values, subject: form.values.subject || 'New Contact Form Submission' },
          });
        } else {
          expect(server).toEqual({ ok: false, field: form.first, error: form.errors[form.first] });
        }
      }),
      { numRuns: 400 },
    );
  });

  test('newsletter email: same verdict and message', () => {
    fc.assert(
      fc.property(emailish, (email) => {
        const form = checkForm(newsletterRules, { email });
        const server = validateNewsletter({ email, consentVersion });
        if (form.ok) expect(server).toEqual({ ok: true, data: { email: form.values.email, consentVersion } });
        else expect(server).toEqual({ ok: false, field: 'email', error: form.errors.email });
      }),
      { numRuns: 300 },
    );
  });

  test('the email pattern is zod 4 own', async () => {
    const { regexes } = await import('zod/v4/core');
    const { email } = regexes;
    // The same pattern, written without zod's redundant escapes of '-' at the end of a class.
    expect(EMAIL_PATTERN.source).toBe(email.source.replaceAll('\\-]', '-]'));
    expect(EMAIL_PATTERN.flags).toBe(email.flags);
  });
});

describe('newsletter payload', () => {
  test('client-sent clientIP, userAgent and timestamp are accepted and dropped', () => {
    expect(
      validateNewsletter({
        email: ' Ann@Example.com ',
        clientIP: '203.0.113.9',
        userAgent: 'Mozilla/5.0',
        timestamp: '2026-11-22T10:00:00.000Z',
        consentVersion,
        website: '',
      }),
    ).toEqual({ ok: true, data: { email: 'Ann@Example.com', consentVersion } });
  });

  test.each([
    [{ clientIP: 'x'.repeat(65) }, 'clientIP', 'clientIP must be at most 64 characters.'],
    [{ userAgent: 5 }, 'userAgent', 'userAgent must be text.'],
    [{ timestamp: { at: 1 } }, 'timestamp', 'timestamp must be a date string or a number.'],
  ])('a malformed %j is refused with a clear message', (extra, field, error) => {
    expect(validateNewsletter({ email: 'ann@example.com', consentVersion, ...extra })).toEqual({
      ok: false,
      field,
      error,
    });
  });
});
