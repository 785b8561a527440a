// Outgoing mail from the functions. Locally: SMTP_URL, the stack's catcher. In production: an HTTP mail API
// (Resend) when RESEND_API_KEY is set, else SMTP_URL over implicit TLS (smtps://, port 465), because hosted
// Edge Functions may not open connections to ports 25 or 587.
import nodemailer from 'nodemailer';
import { COMPANY_FOOTER } from './company-footer.ts';
import type { Env } from './env.ts';
import { companyBlockHtml } from './html.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: { name: string; address: string } | string;
  /** Extra headers, e.g. List-Unsubscribe: sent as given over SMTP and through the mail API alike. */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/**
 * RFC 2369 / RFC 8058 headers for a mail with an unsubscribe link: a mail client offers one-click unsubscribe and
 * POSTs `List-Unsubscribe=One-Click` to `url` (an https URL in production).
 */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

export const RESEND_API_URL = 'https://api.resend.com/emails';

/**
 * `mail` closing with the company's details (content/company/company.md, written into company-footer.ts by
 * `npm run gen:company`): every mail the functions send carries them, as the site's footer does.
 */
export function withCompanyFooter(mail: OutgoingMail, lines: readonly string[] = COMPANY_FOOTER): OutgoingMail {
  if (lines.length === 0) return mail;
  const text = `${mail.text.trimEnd()}\n\n-- \n${lines.join('\n')}\n`;
  if (!mail.html) return { ...mail, text };
  const block = companyBlockHtml(lines);
  const html = /<\/body>/i.test(mail.html)
    ? mail.html.replace(/<\/body>/i, `${block}</body>`)
    : `${mail.html}\n${block}`;
  return { ...mail, text, html };
}

/** Ports hosted Supabase Edge Functions cannot connect to. */
export const BLOCKED_HOSTED_PORTS = [25, 587] as const;

export type MailTransport =
  | { kind: 'resend'; apiKey: string; apiUrl: string }
  | { kind: 'smtp'; url: string; host: string; port: number; secure: boolean };

/** Thrown when the mail settings cannot work where the function runs; the message says what to set. */
export class MailConfigError extends Error {
  override name = 'MailConfigError';
}

/** Supabase's hosted Edge Functions (Deno Deploy) set these; the local stack and `functions serve` do not. */
export function runsOnHostedEdge(env: Env): boolean {
  return Boolean(env.get('DENO_DEPLOYMENT_ID') || env.get('SB_REGION'));
}

/**
 * Which transport the environment asks for: Resend when RESEND_API_KEY is set, else SMTP_URL. An smtp://
 * URL on port 25 or 587 is refused on hosted Edge Functions, where those connections are blocked.
 */
export function chooseTransport(env: Env): MailTransport {
  const apiKey = env.get('RESEND_API_KEY')?.trim();
  if (apiKey) return { kind: 'resend', apiKey, apiUrl: RESEND_API_URL };
  const raw = env.get('SMTP_URL')?.trim();
  if (!raw)
    throw new MailConfigError('No mail transport: set RESEND_API_KEY, or SMTP_URL (smtps://user:pass@host:465).');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MailConfigError('SMTP_URL is not a URL: use smtps://user:pass@host:465 (or smtp:// locally).');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new MailConfigError(`SMTP_URL must start with smtps:// or smtp://, not ${url.protocol}//.`);
  }
  const implicitTls = url.protocol === 'smtps:';
  // nodemailer's defaults: 465 for implicit TLS, 587 otherwise.
  const port = url.port ? Number(url.port) : implicitTls ? 465 : 587;
  const secure = implicitTls || port === 465;
  if (!secure && runsOnHostedEdge(env) && (BLOCKED_HOSTED_PORTS as readonly number[]).includes(port)) {
    throw new MailConfigError(
      `SMTP_URL uses port ${port}, which hosted Supabase Edge Functions cannot connect to (ports 25 and 587 are ` +
        'blocked): use smtps://user:pass@host:465 (implicit TLS) or set RESEND_API_KEY.',
    );
  }
  return { kind: 'smtp', url: raw, host: url.hostname, port, secure };
}

/** A mailer over the given transport, sending as `from`. */
export function createTransportMailer(transport: MailTransport, from: string, fetchImpl: typeof fetch = fetch): Mailer {
  const inner = transportMailer(transport, from, fetchImpl);
  return { send: (mail) => inner.send(withCompanyFooter(mail)) };
}

function transportMailer(transport: MailTransport, from: string, fetchImpl: typeof fetch): Mailer {
  if (transport.kind === 'resend') return resendMailer(transport, from, fetchImpl);
  const smtp = nodemailer.createTransport({
    url: transport.url,
    secure: transport.secure,
    // A relay that does not answer must not hold a request for nodemailer's two-minute default.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send({ headers, ...mail }) {
      // `prepared`: nodemailer sends the value as it is, without encoding or folding it (a long URL in
      // List-Unsubscribe must stay one token between its angle brackets).
      const prepared = headers
        ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { prepared: true, value }]))
        : undefined;
      await smtp.sendMail({ from, ...mail, ...(prepared ? { headers: prepared } : {}) });
    },
  };
}

/**
 * The mailer the environment configures (RESEND_API_KEY or SMTP_URL, and MAIL_FROM). The settings are read at
 * the first send, so a wrong setting fails that send with its explanation (and a caller that stores first,
 * such as the contact form, keeps the message and records why it was not delivered).
 */
export function mailerFromEnv(env: Env): Mailer {
  let mailer: Mailer | undefined;
  return {
    async send(mail) {
      if (!mailer) {
        const from = env.get('MAIL_FROM')?.trim();
        if (!from) throw new MailConfigError('Missing environment variable MAIL_FROM');
        mailer = createTransportMailer(chooseTransport(env), from);
      }
      await mailer.send(mail);
    },
  };
}

/** An SMTP mailer for a URL (kept for callers that hold a URL rather than an environment). */
export function createMailer(options: { smtpUrl: string; from: string }): Mailer {
  return createTransportMailer(
    chooseTransport({ get: (name) => (name === 'SMTP_URL' ? options.smtpUrl : undefined) }),
    options.from,
  );
}

const address = (a: { name: string; address: string } | string) =>
  typeof a === 'string' ? a : `"${a.name.replace(/["\\]/g, '')}" <${a.address}>`;

/** Resend's `POST /emails`: JSON with from, to, subject, text, html, reply_to, headers; an error answer throws. */
function resendMailer(transport: { apiKey: string; apiUrl: string }, from: string, fetchImpl: typeof fetch): Mailer {
  return {
    async send(mail) {
      const res = await fetchImpl(transport.apiUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${transport.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from,
          to: [mail.to],
          subject: mail.subject,
          text: mail.text,
          ...(mail.html ? { html: mail.html } : {}),
          ...(mail.replyTo ? { reply_to: address(mail.replyTo) } : {}),
          ...(mail.headers ? { headers: mail.headers } : {}),
        }),
        signal: AbortSignal.timeout(20_000),
      });
      if (!res.ok) {
        const detail = (await res.text().catch(() => '')).slice(0, 300);
        throw new Error(`Mail API answered ${res.status}${detail ? `: ${detail}` : ''}`);
      }
      await res.body?.cancel().catch(() => {});
    },
  };
}
