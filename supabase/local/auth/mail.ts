// Auth emails: the verify link GoTrue's template mailer builds, our own templates, the per-address
// frequency limit ([auth.email] max_frequency) and the hourly email budget ([auth.rate_limit] email_sent).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mailer } from '../mail/mailer.ts';
import { tooManyRequests } from './errors.ts';
import { queryEscape } from './go-url.ts';
import type { RateLimiter } from './ratelimit.ts';
import type { AuthSettings } from './settings.ts';

export type MailKind = 'confirmation' | 'recovery' | 'magic_link';
export type VerifyType = 'signup' | 'recovery' | 'magiclink' | 'invite';

const SUBJECTS: Record<MailKind, string> = {
  confirmation: 'Confirm your SignalOne account',
  recovery: 'Reset your SignalOne password',
  magic_link: 'Your SignalOne sign-in link',
};

const templateDir = join(import.meta.dirname, 'templates');
const cache = new Map<string, string>();

function template(name: string): string {
  let t = cache.get(name);
  if (t === undefined) {
    t = readFileSync(join(templateDir, name), 'utf8');
    cache.set(name, t);
  }
  return t;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export interface TemplateData {
  ConfirmationURL: string;
  Email: string;
  Token: string;
  SiteURL: string;
}

/** Fills `{{ .Name }}` placeholders, HTML-escaped in the HTML part. */
export function render(kind: MailKind, data: TemplateData): { subject: string; text: string; html: string } {
  const fill = (source: string, encode: (s: string) => string) =>
    source.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_m, key: string) =>
      encode(String((data as unknown as Record<string, string>)[key] ?? '')),
    );
  return {
    subject: SUBJECTS[kind],
    text: fill(template(`${kind}.txt`), (s) => s),
    html: fill(template(`${kind}.html`), escapeHtml),
  };
}

/** encodeRedirectURL: left as given unless it holds &, = or #. */
function encodeRedirect(url: string): string {
  return /[&=#]/.test(url) ? queryEscape(url) : url;
}

/** The link in the email: `<API external URL>/auth/v1/verify?token=…&type=…&redirect_to=…`. */
export function actionLink(settings: AuthSettings, token: string, type: VerifyType, redirectTo: string): string {
  return `${settings.externalUrl}/verify?token=${queryEscape(token)}&type=${queryEscape(type)}&redirect_to=${encodeRedirect(redirectTo)}`;
}

/** validateSentWithinFrequencyLimit: 429 with the seconds left, when rate limits are on. */
export function checkFrequency(settings: AuthSettings, sentAt: string | null): void {
  if (!settings.rateLimits || !sentAt) return;
  const until = Date.parse(sentAt) + settings.emailMaxFrequency * 1000;
  const left = until - Date.now();
  if (left > 0) {
    throw tooManyRequests(
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${Math.trunc(left / 1000)} seconds.`,
    );
  }
}

export interface AuthMailer {
  send(kind: MailKind, to: string, data: TemplateData): Promise<void>;
}

export function authMailer(settings: AuthSettings, mailer: Mailer, limiter: RateLimiter): AuthMailer {
  return {
    async send(kind, to, data) {
      if (settings.rateLimits && !limiter.allow('email_sent', settings.rateLimits.emailSent, 3600)) {
        throw tooManyRequests('over_email_send_rate_limit', 'email rate limit exceeded');
      }
      const { subject, text, html } = render(kind, data);
      await mailer.send({ to, subject, text, html });
    },
  };
}
