// Auth mail templates from config.toml, the same files hosted Supabase gets with `supabase config push`:
//   [auth.email.template.<kind>] subject = "...", content_path = "./supabase/templates/<kind>.html"
// content_path is relative to the project root (the folder holding supabase/), as the CLI resolves it.
// Security notifications ([auth.email.notification.<kind>] enabled, subject, content_path) are the CLI's
// other table: their content_path is relative to the supabase/ folder, and only enabled ones are read.
// A `.txt` beside the HTML is the plain-text part the local stack also sends (hosted sends HTML
// only); without one the text part is the HTML with its tags taken out.
//
// GoTrue fills Go templates; the local stack supports the variable forms `{{ .Name }}` and
// `{{ .Data.key }}` (with `{{-` / `-}}` trimming) and refuses any other action at start, naming the file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type TomlTable, tomlTable } from '../project.ts';

export type MailKind = 'confirmation' | 'recovery' | 'magic_link' | 'reauthentication';

export const MAIL_KINDS: MailKind[] = ['confirmation', 'recovery', 'magic_link', 'reauthentication'];

/** The security notifications the stack sends, by the CLI's keys (GoTrue's MFAFactor(Un)enrolledNotification). */
export type NotificationKind = 'mfa_factor_enrolled' | 'mfa_factor_unenrolled';

export const NOTIFICATION_KINDS: NotificationKind[] = ['mfa_factor_enrolled', 'mfa_factor_unenrolled'];

// GoTrue's other notifications (the CLI's keys): the stack does not send them, so enabling one stops the start.
const UNSENT_NOTIFICATIONS = [
  'password_changed',
  'email_changed',
  'phone_changed',
  'identity_linked',
  'identity_unlinked',
];

export interface MailTemplate {
  subject: string;
  html: string;
  /** The plain-text part's template; undefined to derive it from the HTML. */
  text?: string;
  /** Where the HTML came from, for messages. */
  source: string;
}

/** A notification: sent only when `enabled` ([auth.email.notification.<kind>] enabled, off by default). */
export interface Notification {
  enabled: boolean;
  template: MailTemplate;
}

export interface TemplateData {
  ConfirmationURL: string;
  Email: string;
  Token: string;
  TokenHash: string;
  SiteURL: string;
  RedirectTo: string;
  /** The user's user_metadata, read as `{{ .Data.key }}`. */
  Data: Record<string, unknown>;
}

/** What GoTrue gives a factor notification's template (templatemailer MFAFactor(Un)enrolledNotificationMail). */
export interface NotificationData {
  SiteURL: string;
  Email: string;
  /** The factor's type: totp. */
  FactorType: string;
  Data: Record<string, unknown>;
}

const TEMPLATE_VARIABLES = ['ConfirmationURL', 'Email', 'Token', 'TokenHash', 'SiteURL', 'RedirectTo'];
const NOTIFICATION_VARIABLES = ['SiteURL', 'Email', 'FactorType'];

const shown = (names: string[]) => [...names.map((n) => `{{ .${n} }}`), '{{ .Data.<key> }}'];

export const SUPPORTED_VARIABLES = shown(TEMPLATE_VARIABLES);

// GoTrue's built-in templates (mailer/template.go), used when config.toml names none.
const DEFAULTS: Record<MailKind, { subject: string; html: string }> = {
  confirmation: {
    subject: 'Confirm Your Signup',
    html: '<h2>Confirm your signup</h2>\n\n<p>Follow this link to confirm your user:</p>\n<p><a href="{{ .ConfirmationURL }}">Confirm your mail</a></p>',
  },
  recovery: {
    subject: 'Reset Your Password',
    html: '<h2>Reset Password</h2>\n\n<p>Follow this link to reset the password for your user:</p>\n<p><a href="{{ .ConfirmationURL }}">Reset Password</a></p>',
  },
  magic_link: {
    subject: 'Your Magic Link',
    html: '<h2>Magic Link</h2>\n\n<p>Follow this link to login:</p>\n<p><a href="{{ .ConfirmationURL }}">Log In</a></p>',
  },
  // The code GET /reauthenticate mails (templatemailer.go's defaults for the reauthentication template).
  reauthentication: {
    subject: '{{ .Token }} is your verification code',
    html: '<h2>Your verification code</h2>\n\n<p>Use the code below to verify your identity. It expires shortly.</p>\n<p>{{ .Token }}</p>',
  },
};

// GoTrue's built-in notification subjects and bodies (templatemailer.go).
const NOTIFICATION_DEFAULTS: Record<NotificationKind, { subject: string; html: string }> = {
  mfa_factor_enrolled: {
    subject: 'A new verification method was added to your account',
    html: "<h2>A new verification method was added</h2>\n\n<p>Sign-in verification method {{ .FactorType }} was added to your account.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n",
  },
  mfa_factor_unenrolled: {
    subject: 'A verification method was removed from your account',
    html: "<h2>A verification method was removed</h2>\n\n<p>Sign-in verification method {{ .FactorType }} was removed from your account.</p>\n<p>If you didn't make this change, contact support immediately.</p>\n",
  },
};

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const VARIABLE = /^\.([A-Za-z]+)$|^\.Data\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Throws, naming the file, when a template uses an action the local stack cannot fill from `names`. */
function checkActions(source: string, text: string, names = TEMPLATE_VARIABLES): void {
  for (const m of text.matchAll(ACTION)) {
    const v = VARIABLE.exec(m[1]);
    if (!v || (v[1] !== undefined && !names.includes(v[1]))) {
      throw new Error(`${source}: "${m[0]}" is not supported by the local stack (it fills ${shown(names).join(', ')})`);
    }
  }
}

/** The template file at `file` (with its .txt beside it, if any), its actions checked against `names`. */
function readTemplate(subject: string, file: string, source: string, names: string[]): MailTemplate {
  const textFile = file.replace(/\.html?$/i, '.txt');
  const template: MailTemplate = {
    subject,
    html: readFileSync(file, 'utf8'),
    text: textFile !== file && existsSync(textFile) ? readFileSync(textFile, 'utf8') : undefined,
    source,
  };
  checkActions(source, template.html, names);
  if (template.text !== undefined) checkActions(source.replace(/\.html?$/i, '.txt'), template.text, names);
  return template;
}

/** The templates config.toml names, read once at start; GoTrue's defaults for kinds it leaves out. */
export function loadMailTemplates(supabaseDir: string, toml: TomlTable): Record<MailKind, MailTemplate> {
  const root = dirname(resolve(supabaseDir));
  const configured = tomlTable(tomlTable(tomlTable(tomlTable(toml.auth).email).template));
  const out = {} as Record<MailKind, MailTemplate>;
  for (const kind of MAIL_KINDS) {
    const entry = tomlTable(configured[kind]);
    const subject = typeof entry.subject === 'string' ? entry.subject : DEFAULTS[kind].subject;
    let template: MailTemplate = { subject, html: DEFAULTS[kind].html, source: `GoTrue's default ${kind} template` };
    if (typeof entry.content_path === 'string' && entry.content_path !== '') {
      const file = resolve(root, entry.content_path);
      if (!existsSync(file)) {
        throw new Error(`config.toml [auth.email.template.${kind}] content_path: ${entry.content_path} does not exist`);
      }
      template = readTemplate(subject, file, entry.content_path, TEMPLATE_VARIABLES);
    } else {
      checkActions(template.source, template.html);
    }
    checkActions(`config.toml [auth.email.template.${kind}] subject`, template.subject);
    out[kind] = template;
  }
  return out;
}

/**
 * [auth.email.notification.<kind>] of config.toml, read at start: whether each is on, and its template
 * (GoTrue's default where content_path is left out). content_path is relative to the supabase/ folder, as
 * the CLI resolves it; a disabled notification's file is not read (the CLI does not read it either).
 */
export function loadNotifications(supabaseDir: string, toml: TomlTable): Record<NotificationKind, Notification> {
  const configured = tomlTable(tomlTable(tomlTable(tomlTable(toml.auth).email).notification));
  for (const name of UNSENT_NOTIFICATIONS) {
    if (tomlTable(configured[name]).enabled === true) {
      throw new Error(
        `config.toml [auth.email.notification.${name}] is enabled, but the local stack sends only ` +
          `${NOTIFICATION_KINDS.join(' and ')} notifications`,
      );
    }
  }
  const out = {} as Record<NotificationKind, Notification>;
  for (const kind of NOTIFICATION_KINDS) {
    const entry = tomlTable(configured[kind]);
    const enabled = entry.enabled === true;
    const subject = typeof entry.subject === 'string' ? entry.subject : NOTIFICATION_DEFAULTS[kind].subject;
    let template: MailTemplate = {
      subject,
      html: NOTIFICATION_DEFAULTS[kind].html,
      source: `GoTrue's default ${kind} notification`,
    };
    if (enabled && typeof entry.content_path === 'string' && entry.content_path !== '') {
      const file = resolve(supabaseDir, entry.content_path);
      if (!existsSync(file)) {
        throw new Error(
          `config.toml [auth.email.notification.${kind}] content_path: ${entry.content_path} does not exist ` +
            '(it is relative to the supabase folder)',
        );
      }
      template = readTemplate(subject, file, entry.content_path, NOTIFICATION_VARIABLES);
    }
    checkActions(`config.toml [auth.email.notification.${kind}] subject`, template.subject, NOTIFICATION_VARIABLES);
    out[kind] = { enabled, template };
  }
  return out;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function fill(source: string, data: TemplateData | NotificationData, encode: (s: string) => string): string {
  // `{{- ` and ` -}}` drop the whitespace before / after the action, as in Go.
  const trimmed = source.replace(/\s*\{\{-\s/g, '{{ ').replace(/\s-\}\}\s*/g, ' }}');
  const values = data as unknown as Record<string, unknown>;
  return trimmed.replace(ACTION, (_all, action: string) => {
    const m = VARIABLE.exec(action);
    // A missing metadata key renders empty, as html/template does.
    const value = !m ? undefined : m[1] ? values[m[1]] : data.Data?.[m[2]];
    return value === undefined || value === null ? '' : encode(String(value));
  });
}

/** Text from HTML, for a template without a .txt: tags out, entities back, blank runs collapsed. */
function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
    .replace(/<br\s*\/?>|<\/(p|h[1-6]|div|tr|li)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Subject, text and HTML of one mail; values are HTML-escaped in the HTML part. */
export function renderMail(
  template: MailTemplate,
  data: TemplateData | NotificationData,
): { subject: string; text: string; html: string } {
  const html = fill(template.html, data, escapeHtml);
  return {
    subject: fill(template.subject, data, (s) => s),
    text: template.text !== undefined ? fill(template.text, data, (s) => s) : htmlToText(html),
    html,
  };
}
