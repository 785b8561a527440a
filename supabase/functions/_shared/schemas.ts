// Payload schemas of the functions, built from the rules in form-rules.ts that the site's forms check with:
// one source of truth for every input rule. Plain zod only (no Deno or Node APIs).
import { z } from 'zod';
import {
  contactRules,
  DEFAULT_CONTACT_SUBJECT,
  EMAIL_PATTERN,
  emailRule,
  type FieldRule,
  LIMITS,
  messages,
  oneLine,
} from './form-rules.ts';
import { isPublishedConsentVersion } from './newsletter-consent.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordMeetsRules } from './password.ts';

export { DEFAULT_CONTACT_SUBJECT, honeypotFilled, LIMITS } from './form-rules.ts';

/** A consent wording version: the first 16 hex digits of the wording's SHA-256. */
export const CONSENT_VERSION_PATTERN = /^[0-9a-f]{16}$/;
/** A well-formed version the site never published: the page was built from other wording (the card shows it). */
export const OUTDATED_CONSENT_MESSAGE = 'This form is out of date: reload the page and try again.';

/** A text field from its rule in form-rules.ts: the same cleaning, limits and messages as the forms. */
function text(rule: FieldRule) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined || iss.input === null ? messages.required(rule.label) : messages.notText(rule.label),
    })
    .overwrite(rule.clean)
    .trim()
    .max(rule.max, messages.tooLong(rule.label, rule.max));
}

const required = (rule: FieldRule) => text(rule).min(1, messages.required(rule.label));

export const emailSchema = required(emailRule).pipe(z.email({ pattern: EMAIL_PATTERN, error: messages.invalidEmail }));

export const contactSchema = z.object({
  name: required(contactRules.name),
  email: emailSchema,
  subject: text(contactRules.subject)
    .nullish()
    .transform((s) => s || DEFAULT_CONTACT_SUBJECT),
  message: required(contactRules.message),
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

const nameRule = (label: string): FieldRule => ({ label, max: LIMITS.name, clean: oneLine, required: true });

/**
 * user-signup's body. Unknown keys are dropped: clientIP, userAgent and timestamp, which older clients
 * send, are never trusted; the function reads the address and user agent from the request.
 */
export const signupSchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  firstName: required(nameRule('First name')),
  lastName: required(nameRule('Last name')),
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

/** user-signup's resend entry: the address whose confirmation mail is sent again. */
export const resendSchema = z.object({ email: emailSchema, website: z.unknown().optional() });
export type ResendPayload = z.input<typeof resendSchema>;
export type ResendInput = Omit<z.output<typeof resendSchema>, 'website'>;

export type PasswordResetPayload = z.input<typeof passwordResetSchema>;
export type PasswordResetInput = Omit<z.output<typeof passwordResetSchema>, 'website'>;

export type ContactPayload = z.input<typeof contactSchema>;
export type ContactInput = Omit<z.output<typeof contactSchema>, 'website'>;

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

function withoutHoneypot<T extends { website?: unknown }>(result: Validation<T>): Validation<Omit<T, 'website'>> {
  if (!result.ok) return result;
  const { website: _honeypot, ...data } = result.data;
  return { ok: true, data };
}

export function validateContact(input: unknown): Validation<ContactInput> {
  return withoutHoneypot(validate(contactSchema, input));
}

export function validateSignup(input: unknown): Validation<SignupInput> {
  return withoutHoneypot(validate(signupSchema, input));
}

export function validateResend(input: unknown): Validation<ResendInput> {
  return withoutHoneypot(validate(resendSchema, input));
}

export function validatePasswordReset(input: unknown): Validation<PasswordResetInput> {
  return withoutHoneypot(validate(passwordResetSchema, input));
}

/**
 * The newsletter payload: email, consentVersion, clientIP, userAgent, timestamp. Only the email and the wording's
 * version are used; the server takes the address and user agent from the request itself, so the client's values
 * are checked for shape and dropped.
 */
export const newsletterSchema = z.object({
  email: emailSchema,
  clientIP: z.string({ error: 'clientIP must be text.' }).max(64, 'clientIP must be at most 64 characters.').nullish(),
  userAgent: z
    .string({ error: 'userAgent must be text.' })
    .max(1000, 'userAgent must be at most 1,000 characters.')
    .nullish(),
  timestamp: z
    .union([z.string().max(64), z.number()], { error: 'timestamp must be a date string or a number.' })
    .nullish(),
  /**
   * The version of the card's wording the person saw (the first 16 hex digits of its SHA-256, which the card
   * computes at build time), stored as the record of what was consented to: one the site has published
   * (newsletter-consent.ts), else the form is out of date.
   */
  consentVersion: z
    .string({
      error: (iss) =>
        iss.input === undefined || iss.input === null
          ? 'consentVersion is required: the version of the wording the person agreed to.'
          : 'consentVersion must be text.',
    })
    .regex(CONSENT_VERSION_PATTERN, 'consentVersion must be 16 hexadecimal digits.')
    .refine(isPublishedConsentVersion, OUTDATED_CONSENT_MESSAGE),
  /** Honeypot: people leave it empty; see `honeypotFilled`. */
  website: z.unknown().optional(),
});

export type NewsletterPayload = z.input<typeof newsletterSchema>;
export interface NewsletterInput {
  email: string;
  consentVersion: string;
}

export function validateNewsletter(input: unknown): Validation<NewsletterInput> {
  const result = validate(newsletterSchema, input);
  return result.ok
    ? { ok: true, data: { email: result.data.email, consentVersion: result.data.consentVersion } }
    : result;
}
