import { describe, expect, test } from 'vitest';
import {
  contactSchema,
  DEFAULT_CONTACT_SUBJECT,
  honeypotFilled,
  LIMITS,
  PASSWORD_RULES_MESSAGE,
  validateContact,
  validatePasswordReset,
  validateSignup,
} from '../../../supabase/functions/_shared/schemas.ts';

const valid = { name: 'Ann Lee', email: 'ann@example.com', subject: 'Question', message: 'Hello there' };
const emailOfLength = (n: number) => `${'a'.repeat(n - '@example.com'.length)}@example.com`;

describe('contact payload limits', () => {
  test.each([
    ['name', 'a'.repeat(LIMITS.name), true],
    ['name', 'a'.repeat(LIMITS.name + 1), false],
    ['email', emailOfLength(LIMITS.email), true],
    ['email', emailOfLength(LIMITS.email + 1), false],
    ['subject', 's'.repeat(LIMITS.subject), true],
    ['subject', 's'.repeat(LIMITS.subject + 1), false],
    ['message', 'm'.repeat(LIMITS.message), true],
    ['message', 'm'.repeat(LIMITS.message + 1), false],
  ] as const)('%s of %#: length %s', (field, value, ok) => {
    const result = validateContact({ ...valid, [field]: value });
    expect(result.ok).toBe(ok);
    if (ok && result.ok) expect(result.data[field]).toBe(value);
  });

  test.each([
    ['name', 'Name must be at most 100 characters.'],
    ['email', 'Email must be at most 254 characters.'],
    ['subject', 'Subject must be at most 200 characters.'],
    ['message', 'Message must be at most 5,000 characters.'],
  ] as const)('one past the %s limit names the field and the limit', (field, message) => {
    const value = field === 'email' ? emailOfLength(LIMITS.email + 1) : 'x'.repeat(LIMITS[field] + 1);
    expect(validateContact({ ...valid, [field]: value })).toEqual({ ok: false, field, error: message });
  });
});

describe('required fields', () => {
  test.each([
    ['name', 'Name is required.'],
    ['email', 'Email is required.'],
    ['message', 'Message is required.'],
  ] as const)('missing %s', (field, error) => {
    const { [field]: _gone, ...rest } = valid;
    expect(validateContact(rest)).toEqual({ ok: false, field, error });
  });

  test.each([
    ['name', '   ', 'Name is required.'],
    ['email', '', 'Email is required.'],
    ['message', '\n\t ', 'Message is required.'],
    ['name', 42, 'Name must be text.'],
    ['message', ['a'], 'Message must be text.'],
    ['email', 'not-an-email', 'Email must be a valid email address.'],
    ['email', 'ann@', 'Email must be a valid email address.'],
    ['email', 'ann@example.com\r\nBcc: x@y.z', 'Email must be a valid email address.'],
  ] as const)('%s = %j is refused', (field, value, error) => {
    expect(validateContact({ ...valid, [field]: value })).toEqual({ ok: false, field, error });
  });

  test('a body that is not an object is refused as a whole', () => {
    expect(validateContact(null)).toMatchObject({ ok: false, error: 'Request body must be a JSON object.' });
    expect(validateContact([valid])).toMatchObject({ ok: false, error: 'Request body must be a JSON object.' });
  });

  test('the first problem in form order is the one reported', () => {
    expect(validateContact({ email: 'bad' })).toMatchObject({ field: 'name' });
  });
});

describe('subject default and cleaning', () => {
  test.each([[undefined], [null], [''], ['   ']])('subject %j becomes the default', (subject) => {
    const result = validateContact({ ...valid, subject });
    expect(result).toMatchObject({ ok: true, data: { subject: DEFAULT_CONTACT_SUBJECT } });
  });

  test('the default is the text the spec names', () => {
    expect(DEFAULT_CONTACT_SUBJECT).toBe('New Contact Form Submission');
  });

  test('one-line fields lose line breaks and control characters; the message keeps its lines', () => {
    const result = validateContact({
      name: '  Ann \r\n Lee\u0000 ',
      email: ' ann@example.com ',
      subject: 'Hello\r\nBcc: victim@example.com',
      message: 'Line one\r\nLine two\u0000\n',
    });
    expect(result).toEqual({
      ok: true,
      data: {
        name: 'Ann Lee',
        email: 'ann@example.com',
        subject: 'Hello Bcc: victim@example.com',
        message: 'Line one\nLine two',
      },
    });
  });

  test('unknown keys and the honeypot are not part of the validated data', () => {
    const result = validateContact({ ...valid, website: '', clientIP: '1.2.3.4' });
    expect(result.ok && Object.keys(result.data).sort()).toEqual(['email', 'message', 'name', 'subject']);
  });

  test('the schema is plain zod that forms can use directly', () => {
    expect(contactSchema.safeParse(valid).success).toBe(true);
  });
});

describe('honeypot', () => {
  test.each([
    [{ website: 'http://spam.example' }, true],
    [{ website: ' x ' }, true],
    [{ website: 1 }, true],
    [{ website: true }, true],
    [{ website: '' }, false],
    [{ website: '   ' }, false],
    [{ website: null }, false],
    [{}, false],
    [null, false],
    ['website', false],
  ])('%j filled: %s', (payload, filled) => {
    expect(honeypotFilled(payload)).toBe(filled);
  });
});

describe('sign-up payload', () => {
  const signup = { email: 'ada@example.com', password: 'Str0ng-pass!', firstName: ' Ada ', lastName: 'Lovelace' };

  test('trims names and drops client-sent address, agent and time', () => {
    expect(validateSignup({ ...signup, clientIP: '1.2.3.4', userAgent: 'x', timestamp: 'now', website: '' })).toEqual({
      ok: true,
      data: { email: 'ada@example.com', password: 'Str0ng-pass!', firstName: 'Ada', lastName: 'Lovelace' },
    });
  });

  test.each([
    ['firstName', { firstName: '  ' }, 'First name is required.'],
    ['lastName', { lastName: undefined }, 'Last name is required.'],
    ['firstName', { firstName: 'a'.repeat(101) }, 'First name must be at most 100 characters.'],
    ['email', { email: 'nope' }, 'Email must be a valid email address.'],
    ['password', { password: undefined }, 'Password is required.'],
    ['password', { password: 'password1' }, PASSWORD_RULES_MESSAGE],
    ['password', { password: `Aa1!${'x'.repeat(69)}` }, PASSWORD_RULES_MESSAGE],
  ])('%s: %j', (field, change, error) => {
    expect(validateSignup({ ...signup, ...change })).toEqual({ ok: false, field, error });
  });
});

describe('password-reset payload', () => {
  test.each([
    [{ email: 'a@example.com', redirectTo: 'https://x.example/auth' }, 'https://x.example/auth'],
    [{ email: 'a@example.com' }, undefined],
    [{ email: 'a@example.com', redirectTo: 42 }, undefined],
    [{ email: 'a@example.com', redirectTo: `https://x.example/${'a'.repeat(2100)}` }, undefined],
  ])('%j keeps redirectTo %s', (body, redirectTo) => {
    expect(validatePasswordReset(body)).toEqual({ ok: true, data: { email: 'a@example.com', redirectTo } });
  });

  test('a missing email names the field', () => {
    expect(validatePasswordReset({})).toEqual({ ok: false, field: 'email', error: 'Email is required.' });
  });
});
