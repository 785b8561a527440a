// The input rules of the site's forms as plain data and functions, with no dependencies: the browser forms
// check with these (zod would weigh more than a whole page's budget) and the zod schemas in schemas.ts are
// built from the same rules, so the form and the function always agree on what is valid and on the message.

/** Input limits, the same in forms and functions (characters). */
export const LIMITS = {
  name: 100,
  email: 254,
  subject: 200,
  message: 5000,
} as const;

export const DEFAULT_CONTACT_SUBJECT = 'New Contact Form Submission';

/** zod 4's own email pattern (`z.email()`), given to zod explicitly so both sides test the same thing. */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

// Postgres text cannot hold NUL, and no other control character belongs in a form field.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
/** One-line fields: control characters removed, runs of whitespace (newlines included) made one space. */
export const oneLine = (s: string): string => s.replace(CONTROL_CHARS, '').replace(/\s+/g, ' ');
/** Multi-line fields keep newlines and tabs. */
export const multiLine = (s: string): string => s.replace(CONTROL_CHARS, '').replace(/\r\n?/g, '\n');

const count = (n: number) => n.toLocaleString('en-US');

/** The sentences people see; each names the field. */
export const messages = {
  required: (label: string) => `${label} is required.`,
  notText: (label: string) => `${label} must be text.`,
  tooLong: (label: string, max: number) => `${label} must be at most ${count(max)} characters.`,
  invalidEmail: 'Email must be a valid email address.',
};

export interface FieldRule {
  label: string;
  max: number;
  clean: (s: string) => string;
  required: boolean;
  email?: boolean;
}

export const emailRule: FieldRule = { label: 'Email', max: LIMITS.email, clean: oneLine, required: true, email: true };

/** The contact form's fields, in form order (the first problem in this order is the one reported). */
export const contactRules = {
  name: { label: 'Name', max: LIMITS.name, clean: oneLine, required: true },
  email: emailRule,
  subject: { label: 'Subject', max: LIMITS.subject, clean: oneLine, required: false },
  message: { label: 'Message', max: LIMITS.message, clean: multiLine, required: true },
} satisfies Record<string, FieldRule>;

export const newsletterRules = { email: emailRule } satisfies Record<string, FieldRule>;

export type FieldCheck = { ok: true; value: string } | { ok: false; error: string };

/** One field: cleaned and trimmed, then length, presence and email shape, in the order zod checks them. */
export function checkField(rule: FieldRule, input: unknown): FieldCheck {
  if (input === undefined || input === null) {
    return rule.required ? { ok: false, error: messages.required(rule.label) } : { ok: true, value: '' };
  }
  if (typeof input !== 'string') return { ok: false, error: messages.notText(rule.label) };
  const value = rule.clean(input).trim();
  if (value.length > rule.max) return { ok: false, error: messages.tooLong(rule.label, rule.max) };
  if (rule.required && value === '') return { ok: false, error: messages.required(rule.label) };
  if (rule.email && !EMAIL_PATTERN.test(value)) return { ok: false, error: messages.invalidEmail };
  return { ok: true, value };
}

export type FormCheck<K extends string> =
  | { ok: true; values: Record<K, string> }
  | { ok: false; errors: Partial<Record<K, string>>; first: K };

/** Every field of a form; on failure all problems, and the first one in form order. */
export function checkForm<K extends string>(
  rules: Record<K, FieldRule>,
  input: Partial<Record<K, unknown>>,
): FormCheck<K> {
  const values = {} as Record<K, string>;
  const errors: Partial<Record<K, string>> = {};
  let first: K | undefined;
  for (const key of Object.keys(rules) as K[]) {
    const result = checkField(rules[key], input[key]);
    if (result.ok) values[key] = result.value;
    else {
      errors[key] = result.error;
      first ??= key;
    }
  }
  return first === undefined ? { ok: true, values } : { ok: false, errors, first };
}

/** True when any of the named fields is empty after trimming (the contact form's "Missing Information"). */
export function anyBlank(input: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.some((key) => {
    const value = input[key];
    return typeof value !== 'string' || value.trim() === '';
  });
}

/** Every honeypot field is named `website`: anything in it means a robot filled the form. */
export function honeypotFilled(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null) return false;
  const value = (payload as { website?: unknown }).website;
  if (value === undefined || value === null || value === false) return false;
  return typeof value !== 'string' || value.trim() !== '';
}
