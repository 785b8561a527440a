// Auth mail templates from config.toml, the same files hosted Supabase gets with `supabase config push`:
//   [auth.email.template.<kind>] subject = "...", content_path = "./supabase/templates/<kind>.html"
// content_path is relative to the project root (the folder holding supabase/), as the CLI resolves it.
// A `.txt` file beside the HTML is the plain-text part the local stack also sends (hosted sends HTML
// only); without one the text part is the HTML with its tags taken out.
//
// GoTrue fills Go templates; the local stack supports the variable forms `{{ .Name }}` and
// `{{ .Data.key }}` (with `{{-` / `-}}` trimming) and refuses any other action at start, naming the file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type TomlTable, tomlTable } from '../project.ts';

export type MailKind = 'confirmation' | 'recovery' | 'magic_link' | 'reauthentication';

export const MAIL_KINDS: MailKind[] = ['confirmation', 'recovery', 'magic_link', 'reauthentication'];

export interface MailTemplate {
  subject: string;
  html: string;
  /** The plain-text part's template; undefined to derive it from the HTML. */
  text?: string;
  /** Where the HTML came from, for messages. */
  source: string;
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

export const SUPPORTED_VARIABLES = [
  '{{ .ConfirmationURL }}',
  '{{ .Email }}',
  '{{ .Token }}',
  '{{ .TokenHash }}',
  '{{ .SiteURL }}',
  '{{ .RedirectTo }}',
  '{{ .Data.<key> }}',
];

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

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const VARIABLE = /^\.(ConfirmationURL|Email|Token|TokenHash|SiteURL|RedirectTo)$|^\.Data\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Throws, naming the file, when a template uses an action the local stack cannot fill. */
function checkActions(source: string, text: string): void {
  for (const m of text.matchAll(ACTION)) {
    if (!VARIABLE.test(m[1])) {
      throw new Error(
        `${source}: "${m[0]}" is not supported by the local stack (it fills ${SUPPORTED_VARIABLES.join(', ')})`,
      );
    }
  }
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
      const textFile = file.replace(/\.html?$/i, '.txt');
      template = {
        subject,
        html: readFileSync(file, 'utf8'),
        text: textFile !== file && existsSync(textFile) ? readFileSync(textFile, 'utf8') : undefined,
        source: entry.content_path,
      };
    }
    checkActions(`config.toml [auth.email.template.${kind}] subject`, template.subject);
    checkActions(template.source, template.html);
    if (template.text !== undefined) checkActions(template.source.replace(/\.html?$/i, '.txt'), template.text);
    out[kind] = template;
  }
  return out;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function fill(source: string, data: TemplateData, encode: (s: string) => string): string {
  // `{{- ` and ` -}}` drop the whitespace before / after the action, as in Go.
  const trimmed = source.replace(/\s*\{\{-\s/g, '{{ ').replace(/\s-\}\}\s*/g, ' }}');
  return trimmed.replace(ACTION, (_all, action: string) => {
    const m = VARIABLE.exec(action);
    // A missing metadata key renders empty, as html/template does.
    const value = !m ? undefined : m[1] ? data[m[1] as keyof Omit<TemplateData, 'Data'>] : data.Data?.[m[2]];
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
  data: TemplateData,
): { subject: string; text: string; html: string } {
  const html = fill(template.html, data, escapeHtml);
  return {
    subject: fill(template.subject, data, (s) => s),
    text: template.text !== undefined ? fill(template.text, data, (s) => s) : htmlToText(html),
    html,
  };
}
