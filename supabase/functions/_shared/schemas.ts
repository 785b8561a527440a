// Payload schemas shared by the functions and the site's forms: one source of truth for every input rule.
// Plain zod only (no Deno or Node APIs) so the browser bundle can import it too.
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordMeetsRules } from './password.ts';

/** Input limits, the same in forms and functions (characters). */
export const LIMITS = {
  name: 100,
  email: 254,
  subject: 200,
  message: 5000,
} as const;

export const DEFAULT_CONTACT_SUBJECT = 'New Contact Form Submission';

// Postgres text cannot hold NUL, and no other control character belongs in a form field.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
/** One-line fields: control characters removed, runs of whitespace (newlines included) made one space. */
const oneLine = (s: string) => s.replace(CONTROL_CHARS, '').replace(/\s+/g, ' ');
/** Multi-line fields keep newlines and tabs. */
const multiLine = (s: string) => s.replace(CONTROL_CHARS, '').replace(/\r\n?/g, '\n');

const count = (n: number) => n.toLocaleString('en-US');

/** A text field: `label` names it in every message. */
function text(label: string, max: number, clean: (s: string) => string) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined || iss.input === null ? `${label} is required.` : `${label} must be text.`,
    })
    .overwrite(clean)
    .trim()
    .max(max, `${label} must be at most ${count(max)} characters.`);
}

const required = (label: string, max: number, clean: (s: string) => string) =>
  text(label, max, clean).min(1, `${label} is required.`);

export const emailSchema = required('Email', LIMITS.email, oneLine).pipe(
  z.email({ error: 'Email must be a valid email address.' }),
);

export const contactSchema = z.object({
  name: required('Name', LIMITS.name, oneLine),
  email: emailSchema,
  subject: text('Subject', LIMITS.subject, oneLine)
    .nullish()
    .transform((s) => s || DEFAULT_CONTACT_SUBJECT),
  message: required('Message', LIMITS.message, multiLine),
  /** Honeypot: people leave it empty; see `honeypotFilled`. */
  website: z.unknown().optional(),
});

/** What a server says when a password breaks the shared rules (the form shows its checklist instead). */
export const PASSWORD_RULES_MESSAGE = `Password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters with a lowercase letter, an uppercase letter, a number and a symbol.`;

const passwordSchema = z
  .string({
    error: (iss) =>
      iss.input === undefined || iss.input === null ? 'Password is required.' : 'Password must be text.',
  })
  .min(1, 'Password is required.')
  .refine(passwordMeetsRules, PASSWORD_RULES_MESSAGE);

/**
 * user-signup's body. Unknown keys are dropped: clientIP, userAgent and timestamp, which older clients
 * send, are never trusted; the function reads the address and user agent from the request.
 */
export const signupSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  firstName: required('First name', LIMITS.name, oneLine),
  lastName: required('Last name', LIMITS.name, oneLine),
  website: z.unknown().optional(),
});

export type SignupPayload = z.input<typeof signupSchema>;
export type SignupInput = Omit<z.output<typeof signupSchema>, 'website'>;

/** password-reset's body: `redirectTo` is only a wish; the function keeps it only when allow-listed. */
export const passwordResetSchema = z.object({
  email: emailSchema,
  redirectTo: z
    .unknown()
    .optional()
    .transform((v) => (typeof v === 'string' && v.length <= 2048 ? v : undefined)),
  website: z.unknown().optional(),
});

export type PasswordResetPayload = z.input<typeof passwordResetSchema>;
export type PasswordResetInput = Omit<z.output<typeof passwordResetSchema>, 'website'>;

export type ContactPayload = z.input<typeof contactSchema>;
export type ContactInput = Omit<z.output<typeof contactSchema>, 'website'>;

/** Every honeypot field is named `website`: anything in it means a robot filled the form. */
export function honeypotFilled(payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null) return false;
  const value = (payload as { website?: unknown }).website;
  if (value === undefined || value === null || value === false) return false;
  return typeof value !== 'string' || value.trim() !== '';
}

export type Validation<T> = { ok: true; data: T } | { ok: false; field: string; error: string };

/** Validates with `schema`; on failure, the first problem as one sentence and the field it concerns. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): Validation<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, data: result.data };
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  if (!field && issue?.code === 'invalid_type')
    return { ok: false, field, error: 'Request body must be a JSON object.' };
  return { ok: false, field, error: issue?.message ?? 'Invalid input.' };
}

export function validateContact(input: unknown): Validation<ContactInput> {
  const result = validate(contactSchema, input);
  if (!result.ok) return result;
  const { website: _honeypot, ...data } = result.data;
  return { ok: true, data };
}

function withoutHoneypot<T extends { website?: unknown }>(result: Validation<T>): Validation<Omit<T, 'website'>> {
  if (!result.ok) return result;
  const { website: _honeypot, ...data } = result.data;
  return { ok: true, data };
}

export function validateSignup(input: unknown): Validation<SignupInput> {
  return withoutHoneypot(validate(signupSchema, input));
}

export function validatePasswordReset(input: unknown): Validation<PasswordResetInput> {
  return withoutHoneypot(validate(passwordResetSchema, input));
}
