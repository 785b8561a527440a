// The password rules, one home for the sign-up and reset forms, the settings page and the functions.
// They match the auth service's policy in supabase/config.toml (minimum_password_length = 8,
// password_requirements = "lower_upper_letters_digits_symbols"), so nothing the form accepts is refused there.
// Plain TypeScript (no Deno or Node APIs): the browser bundle imports it too.

export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt reads at most 72 bytes. */
export const PASSWORD_MAX_LENGTH = 72;

/** The auth service's symbol set for lower_upper_letters_digits_symbols. */
export const PASSWORD_SYMBOLS = '!@#$%^&*()_+-=[]{};\'\\:"|<>?,./`~';

export const PASSWORD_RULES = ['length', 'lowercase', 'uppercase', 'digit', 'symbol'] as const;
export type PasswordRule = (typeof PASSWORD_RULES)[number];

const byteLength = (s: string) => new TextEncoder().encode(s).length;

const tests: Record<PasswordRule, (password: string) => boolean> = {
  // The auth service counts bytes, as Go's len() does.
  length: (p) => byteLength(p) >= PASSWORD_MIN_LENGTH,
  lowercase: (p) => /[a-z]/.test(p),
  uppercase: (p) => /[A-Z]/.test(p),
  digit: (p) => /[0-9]/.test(p),
  symbol: (p) => [...PASSWORD_SYMBOLS].some((ch) => p.includes(ch)),
};

/** Which rules the password meets, in the checklist's order. */
export function passwordChecks(password: string): Record<PasswordRule, boolean> {
  return Object.fromEntries(PASSWORD_RULES.map((rule) => [rule, tests[rule](password)])) as Record<
    PasswordRule,
    boolean
  >;
}

/** True when every rule holds and the password fits bcrypt's 72 bytes. */
export function passwordMeetsRules(password: string): boolean {
  return byteLength(password) <= PASSWORD_MAX_LENGTH && PASSWORD_RULES.every((rule) => tests[rule](password));
}
