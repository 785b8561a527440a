// Auth emails: the verify link GoTrue's template mailer builds, the templates config.toml names
// (templates.ts), the per-address frequency limit ([auth.email] max_frequency), the hourly email
// budget ([auth.rate_limit] email_sent), and the security notifications ([auth.email.notification.*]).
import type { Mailer } from '../mail/mailer.ts';
import { tooManyRequests } from './errors.ts';
import { queryEscape } from './go-url.ts';
import type { RateLimiter } from './ratelimit.ts';
import type { AuthSettings } from './settings.ts';
import { type MailKind, type NotificationKind, renderMail, type TemplateData } from './templates.ts';
import type { UserRow } from './users.ts';

export type { MailKind, NotificationKind, TemplateData } from './templates.ts';
export type VerifyType = 'signup' | 'recovery' | 'magiclink' | 'invite';

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
  /** `client`: the address of the request the mail is sent on (its share of the budget), if any. */
  send(kind: MailKind, to: string, data: TemplateData, client?: string | null): Promise<void>;
  /**
   * A security notification about `user`'s factor of `factorType`, when config.toml enables it and the user
   * has an address. As in GoTrue it counts against the hourly budget, and a failure is logged, never answered.
   */
  notify(kind: NotificationKind, user: UserRow, factorType: string): Promise<void>;
}

export function authMailer(settings: AuthSettings, mailer: Mailer, limiter: RateLimiter): AuthMailer {
  return {
    async send(kind, to, data, client) {
      const limits = settings.rateLimits;
      // One client address may spend only its share of the hourly budget, so that nobody can use up the
      // project's mail for everyone else (GoTrue counts the budget for the whole project only).
      if (
        limits &&
        client !== undefined &&
        !limiter.allow(`email_sent:${client ?? 'unknown'}`, limits.emailSentPerAddress, 3600)
      ) {
        throw tooManyRequests('over_email_send_rate_limit', 'email rate limit exceeded');
      }
      if (limits && !limiter.allow('email_sent', limits.emailSent, 3600)) {
        throw tooManyRequests('over_email_send_rate_limit', 'email rate limit exceeded');
      }
      const { subject, text, html } = renderMail(settings.templates[kind], data);
      await mailer.send({ to, subject, text, html });
    },
    async notify(kind, user, factorType) {
      const notification = settings.notifications[kind];
      if (!notification.enabled || !user.email) return;
      try {
        if (settings.rateLimits && !limiter.allow('email_sent', settings.rateLimits.emailSent, 3600)) {
          throw tooManyRequests('over_email_send_rate_limit', 'email rate limit exceeded');
        }
        const { subject, text, html } = renderMail(notification.template, {
          SiteURL: settings.siteUrl,
          Email: user.email,
          FactorType: factorType,
          Data: (user.raw_user_meta_data ?? {}) as Record<string, unknown>,
        });
        await mailer.send({ to: user.email, subject, text, html });
      } catch (err) {
        console.warn(`auth: unable to send the ${kind} notification email:`, (err as Error).message);
      }
    },
  };
}
