// The auth settings GoTrue reads from its environment, taken here from supabase/config.toml's [auth] tables
// (as the Supabase CLI passes them) plus the stack's own URLs and keys.
import type { StackConfig } from '../config.ts';
import type { JwtKeys } from '../jwt.ts';
import { type TomlTable, tomlTable as table } from '../project.ts';
import { type CaptchaSettings, loadCaptchaSettings } from './captcha.ts';
import { type HookSettings, loadHooks } from './hooks.ts';
import {
  loadMailTemplates,
  loadNotifications,
  type MailKind,
  type MailTemplate,
  type Notification,
  type NotificationKind,
} from './templates.ts';

export interface AuthSettings {
  siteUrl: string;
  /** Base of email links: `${apiExternalUrl}/auth/v1/verify?...`. */
  externalUrl: string;
  jwtSecret: string;
  /** The secret and the ES256 signing key: access tokens are signed and verified with these. */
  jwtKeys: JwtKeys;
  jwtIssuer: string;
  jwtExpiry: number;
  additionalRedirectUrls: string[];
  refreshTokenRotation: boolean;
  refreshTokenReuseInterval: number;
  disableSignup: boolean;
  /** /otp may create users (OTP_SIGNUPS; GoTrue has no such switch, only the request's create_user). */
  otpSignups: boolean;
  emailEnabled: boolean;
  /** Sign-ups are confirmed at once when email confirmations are off. */
  mailerAutoconfirm: boolean;
  passwordMinLength: number;
  /**
   * [auth.email] secure_password_change (GoTrue's SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION): a
   * password change from a session older than RECENT_SIGN_IN_SECONDS needs the nonce /reauthenticate mails.
   */
  securePasswordChange: boolean;
  /** SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: the stack's REQUIRE_CURRENT_PASSWORD (config.ts). */
  requireCurrentPassword: boolean;
  /** Each set must contribute one character (GoTrue's PASSWORD_REQUIRED_CHARACTERS, decoded). */
  passwordRequiredCharacters: string[];
  emailMaxFrequency: number;
  otpExpiry: number;
  otpLength: number;
  flowStateExpiry: number;
  rateLimits: RateLimitSettings | null;
  /** [auth.email.template.*] of config.toml, read at start. */
  templates: Record<MailKind, MailTemplate>;
  /** [auth.email.notification.*]: the factor notifications, on or off, with their templates. */
  notifications: Record<NotificationKind, Notification>;
  /** [auth.captcha] (with the CLI's environment overrides): null when off. */
  captcha: CaptchaSettings | null;
  /** [auth.hook.*]: the Postgres-function hooks the stack calls. */
  hooks: HookSettings;
  /** [auth.sessions]: seconds a session lives (timebox) and may sit unrefreshed (inactivity_timeout); 0 is off. */
  sessions: { timebox: number; inactivityTimeout: number };
  mfa: MfaSettings;
}

/** [auth.mfa] of config.toml, and GoTrue's MFA defaults (internal/conf/configuration.go MFAConfiguration). */
export interface MfaSettings {
  /** max_enrolled_factors: factors of any status a user may hold (GOTRUE_MFA_MAX_ENROLLED_FACTORS). */
  maxEnrolledFactors: number;
  /** GOTRUE_MFA_MAX_VERIFIED_FACTORS; config.toml has no key for it. */
  maxVerifiedFactors: number;
  /** [auth.mfa.totp] enroll_enabled / verify_enabled. */
  totpEnroll: boolean;
  totpVerify: boolean;
  /** Seconds a challenge can be verified (GoTrue: 300, and never less). */
  challengeExpiry: number;
  /** Seconds before an unverified factor without challenges is deleted (GoTrue: 300, and never less). */
  factorExpiry: number;
  /** Challenges and verifications per minute per IP (GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY). */
  challengeAndVerifyPerMinute: number;
}

export interface RateLimitSettings {
  /** Emails per hour, for the whole project. */
  emailSent: number;
  /** Emails per hour sent on the requests of one client address: a fifth of emailSent, at least 1. */
  emailSentPerAddress: number;
  /** Sign-ins and sign-ups per 5 minutes per IP. */
  signInSignUps: number;
  /** Refreshes per 5 minutes per IP. */
  tokenRefresh: number;
  /** Link and OTP verifications per 5 minutes per IP. */
  tokenVerifications: number;
}

// The CLI's values for config.toml's password_requirements (GOTRUE_PASSWORD_REQUIRED_CHARACTERS).
const REQUIRED_CHARACTERS: Record<string, string> = {
  '': '',
  letters_digits: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789',
  lower_upper_letters_digits: 'abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789',
  lower_upper_letters_digits_symbols:
    'abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};\'\\:"|<>?,./`~',
};

/** GoTrue's PasswordRequiredCharacters.Decode: sets split on ":", where "\:" is a literal colon. */
export function decodeRequiredCharacters(value: string): string[] {
  const parts = value.split(':');
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    if (part === '') continue;
    if (part.endsWith('\\')) {
      parts[i] = `${part.slice(0, -1)}:${parts[i + 1]}`;
      parts[i + 1] = '';
    }
  }
  return parts.filter((p) => p !== '');
}

/** Go's time.ParseDuration for the forms config.toml uses ("60s", "1m30s", "1h"). */
export function parseDuration(value: unknown, fallback: number): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value.trim() === '') return fallback;
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  let rest = value.trim();
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest);
    if (!m) throw new Error(`config.toml: cannot read the duration "${value}"`);
    total += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** A duration of [auth.sessions] in seconds (0: unset, as the CLI sends it); a negative one stops the start. */
function sessionBound(value: unknown, key: string): number {
  const seconds = parseDuration(value, 0);
  if (seconds < 0) throw new Error(`config.toml [auth.sessions] ${key} must be positive when set`);
  return seconds;
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

export function loadAuthSettings(config: StackConfig, toml: TomlTable, jwtKeys: JwtKeys): AuthSettings {
  const auth = table(toml.auth);
  const email = table(auth.email);
  const limits = table(auth.rate_limit);
  const mfa = table(auth.mfa);
  const totp = table(mfa.totp);
  const sessions = table(auth.sessions);
  const o = config.authOverrides ?? {};

  const requirements = String(auth.password_requirements ?? '');
  if (!(requirements in REQUIRED_CHARACTERS)) {
    throw new Error(`config.toml: [auth] password_requirements "${requirements}" is not one the CLI accepts`);
  }
  // config.toml's list (pushed to the hosted project) and LOCAL_REDIRECT_URLS (this stack only).
  const redirects = [
    ...(Array.isArray(auth.additional_redirect_urls) ? auth.additional_redirect_urls.map(String) : []),
    ...(config.localRedirectUrls ?? []),
  ];

  return {
    siteUrl: config.siteUrl,
    externalUrl: `${config.apiExternalUrl.replace(/\/+$/, '')}/auth/v1`,
    jwtSecret: config.jwtSecret,
    jwtKeys,
    jwtIssuer: `${config.apiExternalUrl.replace(/\/+$/, '')}/auth/v1`,
    jwtExpiry: o.jwtExpiry ?? num(auth.jwt_expiry, 3600),
    additionalRedirectUrls: redirects,
    refreshTokenRotation: bool(auth.enable_refresh_token_rotation, true),
    refreshTokenReuseInterval: o.refreshTokenReuseInterval ?? num(auth.refresh_token_reuse_interval, 10),
    disableSignup: !bool(auth.enable_signup, true),
    otpSignups: config.otpSignups ?? true,
    emailEnabled: bool(email.enable_signup, true),
    mailerAutoconfirm: !bool(email.enable_confirmations, false),
    passwordMinLength: num(auth.minimum_password_length, 6),
    securePasswordChange: bool(email.secure_password_change, false),
    requireCurrentPassword: config.requireCurrentPassword,
    passwordRequiredCharacters: decodeRequiredCharacters(REQUIRED_CHARACTERS[requirements]),
    emailMaxFrequency: o.emailMaxFrequency ?? parseDuration(email.max_frequency, 1),
    otpExpiry: o.otpExpiry ?? num(email.otp_expiry, 3600),
    otpLength: num(email.otp_length, 6),
    flowStateExpiry: o.flowStateExpiry ?? 300,
    rateLimits: config.rateLimits
      ? {
          emailSent: num(limits.email_sent, 2),
          emailSentPerAddress: Math.max(1, Math.floor(num(limits.email_sent, 2) / 5)),
          signInSignUps: num(limits.sign_in_sign_ups, 30),
          tokenRefresh: num(limits.token_refresh, 150),
          tokenVerifications: num(limits.token_verifications, 30),
        }
      : null,
    templates: loadMailTemplates(config.supabaseDir, toml),
    notifications: loadNotifications(config.supabaseDir, toml),
    // The stack's own environment: StackConfig does not carry these (the CLI reads them from its own too).
    captcha: loadCaptchaSettings(toml, process.env),
    hooks: loadHooks(toml),
    sessions: {
      timebox: sessionBound(sessions.timebox, 'timebox'),
      inactivityTimeout: sessionBound(sessions.inactivity_timeout, 'inactivity_timeout'),
    },
    mfa: {
      maxEnrolledFactors: num(mfa.max_enrolled_factors, 10),
      maxVerifiedFactors: 10,
      // GoTrue's defaults are on; the CLI passes the [auth.mfa.totp] switches as they are written.
      totpEnroll: bool(totp.enroll_enabled, true),
      totpVerify: bool(totp.verify_enabled, true),
      challengeExpiry: 300,
      factorExpiry: 300,
      challengeAndVerifyPerMinute: 15,
    },
  };
}
