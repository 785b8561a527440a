// The catcher's own pages: the list of captured mail and one message. Everything from a message is
// escaped; its HTML body renders only inside a sandboxed iframe.
import type { Address, CapturedMail } from './message.ts';

export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  // An email's images and fonts, shown the way a mail client would show them.
  'img-src data: http: https:',
  'font-src data: http: https:',
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const who = (a: Address) => (a.Name ? `${a.Name} <${a.Address}>` : a.Address);
const list = (as: Address[]) => as.map(who).join(', ');
const time = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 19);

const STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f7f9; }
  header { background: #1b1f24; color: #fff; padding: .8rem 1.2rem; display: flex; gap: 1rem; align-items: center; }
  header h1 { font-size: 1.05rem; margin: 0; flex: 1; }
  header a, header button { color: #fff; }
  main { padding: 1rem 1.2rem; max-width: 72rem; margin: 0 auto; }
  table { width: 100%; border-collapse: collapse; background: #fff; }
  th, td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
  th { font-size: .8rem; text-transform: uppercase; color: #5b6470; }
  tr.unread td { font-weight: 600; }
  td.time { white-space: nowrap; color: #5b6470; font-variant-numeric: tabular-nums; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; background: #fff; padding: .8rem 1rem; margin: 0 0 1rem; }
  dt { color: #5b6470; } dd { margin: 0; word-break: break-word; }
  iframe { width: 100%; height: 70vh; border: 1px solid #e3e6ea; background: #fff; }
  pre { white-space: pre-wrap; word-break: break-word; background: #fff; padding: 1rem; border: 1px solid #e3e6ea; }
  button { background: none; border: 1px solid currentColor; border-radius: 4px; padding: .2rem .6rem; cursor: pointer; }
  .empty { color: #5b6470; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

export function listPage(mails: CapturedMail[]): string {
  const rows = mails
    .map(
      (m) => `<tr class="${m.Read ? 'read' : 'unread'}">
  <td class="time"><time datetime="${escapeHtml(m.Created)}">${escapeHtml(time(m.Created))}</time></td>
  <td>${escapeHtml(who(m.From))}</td>
  <td>${escapeHtml(list(m.To))}</td>
  <td><a href="/view/${encodeURIComponent(m.ID)}">${escapeHtml(m.Subject || '(no subject)')}</a></td>
</tr>`,
    )
    .join('\n');
  const table = mails.length
    ? `<table><thead><tr><th scope="col">Received</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Subject</th></tr></thead>
<tbody>${rows}</tbody></table>`
    : '<p class="empty">No mail yet. Mail sent to this SMTP port shows up here.</p>';
  return layout(
    `Mail catcher (${mails.length})`,
    `<header><h1>Mail catcher: ${mails.length} message${mails.length === 1 ? '' : 's'}</h1>
<a href="/">Refresh</a><a href="/api/v1/messages">API</a>
<form method="post" action="/delete-all"><button type="submit">Delete all</button></form></header>
<main>${table}</main>`,
  );
}

export function messagePage(m: CapturedMail): string {
  const rows: [string, string][] = [
    ['From', who(m.From)],
    ['To', list(m.To)],
    ...(m.Cc.length ? ([['Cc', list(m.Cc)]] as [string, string][]) : []),
    ...(m.Bcc.length ? ([['Bcc', list(m.Bcc)]] as [string, string][]) : []),
    ...(m.ReplyTo.length ? ([['Reply-To', list(m.ReplyTo)]] as [string, string][]) : []),
    ['Date', time(m.Date)],
    ['Size', `${m.Size.toLocaleString('en-US')} bytes`],
  ];
  const meta = rows.map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(v)}</dd>`).join('');
  // Links open in a new tab: the site refuses to be framed, and the sandbox keeps scripts out.
  const html = m.HTML
    ? `<h2>HTML</h2><iframe title="HTML body" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc="${escapeHtml(`<base target="_blank">${m.HTML}`)}"></iframe>`
    : '';
  const text = m.Text ? `<h2>Text</h2><pre>${escapeHtml(m.Text)}</pre>` : '';
  return layout(
    m.Subject || '(no subject)',
    `<header><h1>${escapeHtml(m.Subject || '(no subject)')}</h1><a href="/">All mail</a>
<a href="/api/v1/message/${encodeURIComponent(m.ID)}/raw">Source</a></header>
<main><dl>${meta}</dl>${html}${text}</main>`,
  );
}

export function notFoundPage(): string {
  return layout(
    'Message not found',
    '<header><h1>Message not found</h1><a href="/">All mail</a></header><main></main>',
  );
}
