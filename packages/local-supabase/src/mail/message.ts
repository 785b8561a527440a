// A captured message in Mailpit's JSON shapes, built from the raw SMTP data.
import { randomBytes } from 'node:crypto';
import { type AddressObject, type EmailAddress, simpleParser } from 'mailparser';

export interface Address {
  Name: string;
  Address: string;
}

export interface Part {
  PartID: string;
  FileName: string;
  ContentType: string;
  ContentID: string;
  Size: number;
}

/** Everything kept about one message (the raw source is kept beside it). */
export interface CapturedMail {
  ID: string;
  MessageID: string;
  Read: boolean;
  From: Address;
  To: Address[];
  Cc: Address[];
  Bcc: Address[];
  ReplyTo: Address[];
  ReturnPath: string;
  Subject: string;
  /** When the catcher received it (ISO). */
  Created: string;
  /** The message's own Date header (ISO), else Created. */
  Date: string;
  Size: number;
  Snippet: string;
  Text: string;
  HTML: string;
  Headers: Record<string, string[]>;
  Attachments: Part[];
  Inline: Part[];
}

export interface Envelope {
  mailFrom: string;
  rcptTo: string[];
}

/** A list entry of `GET /api/v1/messages`. */
export function summary(m: CapturedMail) {
  return {
    ID: m.ID,
    MessageID: m.MessageID,
    Read: m.Read,
    From: m.From,
    To: m.To,
    Cc: m.Cc,
    Bcc: m.Bcc,
    ReplyTo: m.ReplyTo,
    Subject: m.Subject,
    Created: m.Created,
    Tags: [] as string[],
    Size: m.Size,
    Attachments: m.Attachments.length,
    Snippet: m.Snippet,
  };
}

/** The body of `GET /api/v1/message/{ID}`. */
export function detail(m: CapturedMail) {
  return {
    ...summary(m),
    ReturnPath: m.ReturnPath,
    Date: m.Date,
    Text: m.Text,
    HTML: m.HTML,
    Headers: m.Headers,
    Inline: m.Inline,
    Attachments: m.Attachments,
  };
}

/** Mailpit-style IDs: 22 URL-safe characters. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}

function addresses(obj: AddressObject | AddressObject[] | undefined): Address[] {
  const out: Address[] = [];
  const walk = (a: EmailAddress) => {
    if (a.group) a.group.forEach(walk);
    else if (a.address || a.name) out.push({ Name: a.name ?? '', Address: a.address ?? '' });
  };
  for (const o of obj ? (Array.isArray(obj) ? obj : [obj]) : []) o.value.forEach(walk);
  return out;
}

const SNIPPET_CHARS = 250;

export function snippetOf(text: string, html: string): string {
  const source = text.trim()
    ? text
    : html
        .replace(/<(style|script|head)[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<[^>]+>/g, ' ')
        .replace(/&nbsp;/g, ' ')
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'");
  return source.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS);
}

function headersOf(lines: readonly { key: string; line: string }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { line } of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line
      .slice(colon + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    const list = out[key] ?? [];
    list.push(value);
    out[key] = list;
  }
  return out;
}

export async function parseMail(raw: Buffer, envelope: Envelope, received = new Date()): Promise<CapturedMail> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
  const to = addresses(parsed.to);
  const cc = addresses(parsed.cc);
  const seen = new Set([...to, ...cc].map((a) => a.Address.toLowerCase()));
  // Envelope recipients that no header names were blind copies, as Mailpit reports them.
  const bcc = addresses(parsed.bcc);
  for (const rcpt of envelope.rcptTo) {
    if (!seen.has(rcpt.toLowerCase()) && !bcc.some((b) => b.Address.toLowerCase() === rcpt.toLowerCase())) {
      bcc.push({ Name: '', Address: rcpt });
    }
  }
  const from = addresses(parsed.from)[0] ?? { Name: '', Address: envelope.mailFrom };
  const text = parsed.text ?? '';
  const html = parsed.html || '';
  const parts = parsed.attachments.map((a, i) => ({
    inline: a.contentDisposition === 'inline' || a.related,
    part: {
      PartID: String(i + 1),
      FileName: a.filename ?? '',
      ContentType: a.contentType,
      ContentID: a.contentId?.replace(/^<|>$/g, '') ?? '',
      Size: a.size,
    },
  }));
  return {
    ID: newId(),
    MessageID: parsed.messageId?.replace(/^<|>$/g, '') ?? '',
    Read: false,
    From: from,
    To: to,
    Cc: cc,
    Bcc: bcc,
    ReplyTo: addresses(parsed.replyTo),
    ReturnPath: envelope.mailFrom,
    Subject: parsed.subject ?? '',
    Created: received.toISOString(),
    Date: (parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date : received).toISOString(),
    Size: raw.length,
    Snippet: snippetOf(text, html),
    Text: text,
    HTML: html,
    Headers: headersOf(parsed.headerLines),
    Attachments: parts.filter((p) => !p.inline).map((p) => p.part),
    Inline: parts.filter((p) => p.inline).map((p) => p.part),
  };
}
