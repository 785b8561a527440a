// The mail catcher over real SMTP and HTTP: what the stack's tests and a person at the page see.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer/lib/mailer';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type MailCatcher, startMailCatcher } from '../../src/mail/index.ts';
import { freePort } from '../../testing/free-port.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

interface Listing {
  total: number;
  count: number;
  unread: number;
  messages_count: number;
  start: number;
  messages: Record<string, unknown>[];
}

const send = (port: number, mail: SendMailOptions) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false }).sendMail(mail);

async function listAt(base: string, query = ''): Promise<Listing> {
  const res = await fetch(`${base}/api/v1/messages${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Listing;
}

describe('the stack’s mail catcher', () => {
  let t: TestStack;
  let web: string;
  beforeAll(async () => {
    t = await startTestStack();
    web = `http://127.0.0.1:${t.config.ports.mailWeb}`;
  });
  afterAll(() => t?.stop());
  beforeEach(() => t.mail.clear());

  test('a message sent over SMTP is listed and read back in Mailpit’s shapes', async () => {
    const before = Date.now();
    const info = await send(t.config.ports.smtp, {
      from: '"Ann Lee" <ann@example.com>',
      to: '"Bob Stone" <bob@example.com>, carol@example.com',
      cc: 'dave@example.com',
      bcc: 'erin@example.com',
      replyTo: '"Ann at home" <ann@home.example>',
      subject: 'Quarterly numbers – ready ✓',
      text: 'Hello Bob,\n\nthe numbers are in.\n',
      html: '<p>Hello <b>Bob</b>,</p><p>the numbers are in.</p>',
    });

    const listing = await listAt(web);
    expect(listing).toMatchObject({ total: 1, count: 1, unread: 1, messages_count: 1, start: 0 });
    const [m] = listing.messages;
    expect(m).toMatchObject({
      MessageID: info.messageId.replace(/^<|>$/g, ''),
      Read: false,
      From: { Name: 'Ann Lee', Address: 'ann@example.com' },
      To: [
        { Name: 'Bob Stone', Address: 'bob@example.com' },
        { Name: '', Address: 'carol@example.com' },
      ],
      Cc: [{ Name: '', Address: 'dave@example.com' }],
      Bcc: [{ Name: '', Address: 'erin@example.com' }],
      ReplyTo: [{ Name: 'Ann at home', Address: 'ann@home.example' }],
      Subject: 'Quarterly numbers – ready ✓',
      Snippet: 'Hello Bob, the numbers are in.',
      Attachments: 0,
    });
    expect(m.ID).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(m.Size).toBeGreaterThan(300);
    const created = Date.parse(m.Created as string);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now());
    expect(m.Created).toBe(new Date(created).toISOString());

    const res = await fetch(`${web}/api/v1/message/${m.ID}`);
    expect(res.status).toBe(200);
    const full = (await res.json()) as Record<string, unknown>;
    expect(full).toMatchObject({
      ID: m.ID,
      Subject: 'Quarterly numbers – ready ✓',
      Text: 'Hello Bob,\n\nthe numbers are in.\n',
      HTML: '<p>Hello <b>Bob</b>,</p><p>the numbers are in.</p>',
      ReplyTo: [{ Name: 'Ann at home', Address: 'ann@home.example' }],
      ReturnPath: 'ann@example.com',
    });
    expect(Date.parse(full.Date as string)).not.toBeNaN();
    const headers = full.Headers as Record<string, string[]>;
    expect(headers.Subject).toHaveLength(1);
    expect(headers.Subject[0]).toMatch(/^=\?UTF-8\?Q\?Quarterly_numbers_/);
    expect(headers['Reply-To']).toEqual(['Ann at home <ann@home.example>']);

    // Opening a message marks it read.
    expect((await listAt(web)).unread).toBe(0);
    // The test client sees the same message.
    expect((await t.mail.waitFor('carol@example.com')).ID).toBe(m.ID);
  });

  test('newest first, with start and limit', async () => {
    for (const n of [1, 2, 3]) {
      await send(t.config.ports.smtp, { from: 'a@example.com', to: 'b@example.com', subject: `n${n}`, text: 'x' });
    }
    const subjects = (l: Listing) => l.messages.map((m) => m.Subject);
    expect(subjects(await listAt(web))).toEqual(['n3', 'n2', 'n1']);
    const page = await listAt(web, '?start=1&limit=1');
    expect(subjects(page)).toEqual(['n2']);
    expect(page).toMatchObject({ total: 3, count: 1, start: 1 });
  });

  test('an unknown message is 404', async () => {
    expect((await fetch(`${web}/api/v1/message/nope`)).status).toBe(404);
    expect((await fetch(`${web}/view/nope`)).status).toBe(404);
  });

  test('DELETE clears every message', async () => {
    await send(t.config.ports.smtp, { from: 'a@example.com', to: 'b@example.com', subject: 'gone', text: 'x' });
    expect((await listAt(web)).total).toBe(1);
    const res = await fetch(`${web}/api/v1/messages`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await listAt(web)).toMatchObject({ total: 0, count: 0, messages: [] });
  });

  test('DELETE with IDs removes only those', async () => {
    for (const s of ['keep', 'drop']) {
      await send(t.config.ports.smtp, { from: 'a@example.com', to: 'b@example.com', subject: s, text: 'x' });
    }
    const drop = (await listAt(web)).messages.find((m) => m.Subject === 'drop');
    await fetch(`${web}/api/v1/messages`, { method: 'DELETE', body: JSON.stringify({ IDs: [drop?.ID] }) });
    expect((await listAt(web)).messages.map((m) => m.Subject)).toEqual(['keep']);
  });

  test('search by recipient and subject', async () => {
    await send(t.config.ports.smtp, {
      from: 'a@example.com',
      to: 'x@example.com',
      subject: 'Welcome aboard',
      text: '1',
    });
    await send(t.config.ports.smtp, {
      from: 'a@example.com',
      to: 'y@example.com',
      subject: 'Reset password',
      text: '2',
    });
    const search = async (q: string) =>
      ((await (await fetch(`${web}/api/v1/search?query=${encodeURIComponent(q)}`)).json()) as Listing).messages.map(
        (m) => m.Subject,
      );
    expect(await search('to:y@example.com')).toEqual(['Reset password']);
    expect(await search('subject:welcome')).toEqual(['Welcome aboard']);
    expect(await search('to:nobody@example.com')).toEqual([]);
  });

  test('the page lists mail with everything escaped, and a message renders its HTML only in a sandbox', async () => {
    await send(t.config.ports.smtp, {
      from: '"<img src=x onerror=alert(1)>" <evil@example.com>',
      to: 'victim@example.com',
      subject: '<script>alert("subject")</script>',
      text: 'Plain <b>not bold</b>',
      html: '<p>Hi</p><script>alert("body")</script><a href="http://127.0.0.1:4321/x">Confirm</a>',
    });
    const list = await fetch(`${web}/`);
    expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
    const listHtml = await list.text();
    expect(listHtml).toContain('&#60;script&#62;alert(&#34;subject&#34;)&#60;/script&#62;');
    expect(listHtml).not.toContain('<script>');
    expect(listHtml).not.toContain('<img src=x');
    expect(listHtml).toContain('victim@example.com');
    const id = /href="\/view\/([^"]+)"/.exec(listHtml)?.[1];
    expect(id).toBeTruthy();

    const view = await fetch(`${web}/view/${id}`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const viewHtml = await view.text();
    expect(viewHtml).not.toContain('<script>');
    const iframe = /<iframe[^>]*>/.exec(viewHtml)?.[0] ?? '';
    expect(iframe).toMatch(/sandbox="allow-popups allow-popups-to-escape-sandbox"/);
    expect(iframe).not.toContain('allow-scripts');
    expect(iframe).toContain('srcdoc="&#60;base target=&#34;_blank&#34;&#62;&#60;p&#62;Hi');
    expect(viewHtml).toContain('<pre>Plain &#60;b&#62;not bold&#60;/b&#62;</pre>');
  });

  test('the raw source and the headers are available', async () => {
    await send(t.config.ports.smtp, { from: 'a@example.com', to: 'b@example.com', subject: 'Raw', text: 'body' });
    const raw = await (await fetch(`${web}/api/v1/message/latest/raw`)).text();
    expect(raw).toMatch(/^Subject: Raw\r?$/m);
    const headers = (await (await fetch(`${web}/api/v1/message/latest/headers`)).json()) as Record<string, string[]>;
    expect(headers.To).toEqual(['b@example.com']);
  });
});

describe('a catcher of its own', () => {
  const catchers: MailCatcher[] = [];
  const dirs: string[] = [];
  async function start(opts: { dataDir?: string; maxMessages?: number } = {}) {
    const smtpPort = await freePort();
    const webPort = await freePort();
    const c = await startMailCatcher({ host: '127.0.0.1', smtpPort, webPort, ...opts });
    catchers.push(c);
    return { c, smtpPort, web: `http://127.0.0.1:${webPort}` };
  }
  afterAll(async () => {
    await Promise.all(catchers.map((c) => c.close().catch(() => {})));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('captured mail survives a restart when it has a data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mail-catcher-'));
    dirs.push(dataDir);
    const first = await start({ dataDir });
    await send(first.smtpPort, { from: 'a@example.com', to: 'keep@example.com', subject: 'Kept', text: 'Still here' });
    await send(first.smtpPort, { from: 'a@example.com', to: 'keep@example.com', subject: 'Kept too', text: '2' });
    const [newest] = (await listAt(first.web)).messages;
    await fetch(`${first.web}/api/v1/message/${newest.ID}`);
    await first.c.close();

    const second = await start({ dataDir });
    const listing = await listAt(second.web);
    expect(listing.messages.map((m) => [m.Subject, m.Read])).toEqual([
      ['Kept too', true],
      ['Kept', false],
    ]);
    const kept = listing.messages[1];
    const full = (await (await fetch(`${second.web}/api/v1/message/${kept.ID}`)).json()) as Record<string, unknown>;
    expect(full.Text).toBe('Still here\n');
    expect(await (await fetch(`${second.web}/api/v1/message/${kept.ID}/raw`)).text()).toContain('Still here');

    // A message received after the restart is still the newest.
    await send(second.smtpPort, { from: 'a@example.com', to: 'keep@example.com', subject: 'After', text: '3' });
    expect((await listAt(second.web)).messages.map((m) => m.Subject)).toEqual(['After', 'Kept too', 'Kept']);

    // Cleared mail stays cleared.
    await fetch(`${second.web}/api/v1/messages`, { method: 'DELETE' });
    await second.c.close();
    const third = await start({ dataDir });
    expect((await listAt(third.web)).total).toBe(0);
  });

  test('a restart drops left-overs of a crash and messages past a smaller cap', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mail-catcher-'));
    dirs.push(dataDir);
    const first = await start({ dataDir });
    for (const n of [1, 2, 3]) {
      await send(first.smtpPort, { from: 'a@example.com', to: 'b@example.com', subject: `r${n}`, text: 'x' });
    }
    await first.c.close();
    const mailDir = join(dataDir, 'mail');
    writeFileSync(join(mailDir, 'orphan.eml'), 'Subject: orphan\r\n\r\nx');
    writeFileSync(join(mailDir, 'half.json.tmp'), '{"seq":');
    writeFileSync(join(mailDir, 'cut.json'), '{"seq": 9, "mail": {"ID"');

    const second = await start({ dataDir, maxMessages: 2 });
    expect((await listAt(second.web)).messages.map((m) => m.Subject)).toEqual(['r3', 'r2']);
    const left = readdirSync(mailDir).filter((f) => !f.startsWith('cut.'));
    expect(left.sort()).toEqual(
      second.c.store
        .list()
        .flatMap((m) => [`${m.ID}.eml`, `${m.ID}.json`])
        .sort(),
    );
  });

  test('the oldest messages go past the cap', async () => {
    const { smtpPort, web } = await start({ maxMessages: 3 });
    for (const n of [1, 2, 3, 4, 5]) {
      await send(smtpPort, { from: 'a@example.com', to: 'b@example.com', subject: `m${n}`, text: 'x' });
    }
    const listing = await listAt(web);
    expect(listing.total).toBe(3);
    expect(listing.messages.map((m) => m.Subject)).toEqual(['m5', 'm4', 'm3']);
  });

  test('a message over 10 MB is refused with 552 and not stored', async () => {
    const { smtpPort, web } = await start();
    const big = 'x'
      .repeat(76)
      .concat('\r\n')
      .repeat(Math.ceil((10.5 * 1024 * 1024) / 78));
    const err = await send(smtpPort, { from: 'a@example.com', to: 'b@example.com', subject: 'big', text: big }).catch(
      (e: { responseCode?: number }) => e,
    );
    expect((err as { responseCode?: number }).responseCode).toBe(552);
    expect((await listAt(web)).total).toBe(0);
  });

  test('SMTP with credentials is accepted too (relays configured with a user)', async () => {
    const { smtpPort, web } = await start();
    await nodemailer
      .createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, auth: { user: 'u', pass: 'p' } })
      .sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 'authed', text: 'x' });
    expect(((await listAt(web)).messages[0] as { Subject: string }).Subject).toBe('authed');
  });
});

describe('the catcher answers only to its own address and refuses cross-site changes', () => {
  let t: TestStack;
  let port: number;
  beforeAll(async () => {
    t = await startTestStack();
    port = t.config.ports.mailWeb;
  });
  afterAll(() => t?.stop());

  /** One request to the catcher with exactly these headers (Host included), as a browser would send it. */
  function call(method: string, path: string, headers: Record<string, string>, body?: string) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  test('another Host name (DNS rebinding) gets 421; its own names get the mail', async () => {
    await send(t.config.ports.smtp, { from: 'a@example.com', to: 'rebind@example.com', subject: 'link', text: 'x' });
    const rebound = await call('GET', '/api/v1/messages', { Host: `rebind.attacker.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('rebind@example.com');
    expect((await call('GET', '/', { Host: `rebind.attacker.example:${port}` })).status).toBe(421);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const own = await call('GET', '/api/v1/messages', { Host: host });
      expect(own.status).toBe(200);
      expect(own.body).toContain('rebind@example.com');
    }
  });

  test('a cross-site form POST /delete-all and a cross-site DELETE are refused; the page’s own form works', async () => {
    await send(t.config.ports.smtp, { from: 'a@example.com', to: 'keep@example.com', subject: 'keep', text: 'x' });
    const form = { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/x-www-form-urlencoded' };
    const fromAttacker = await call('POST', '/delete-all', { ...form, Origin: 'https://attacker.example' }, '');
    expect(fromAttacker.status).toBe(403);
    const fetchMetadata = await call('POST', '/delete-all', { ...form, 'Sec-Fetch-Site': 'cross-site' }, '');
    expect(fetchMetadata.status).toBe(403);
    const deleteApi = await call('DELETE', '/api/v1/messages', {
      Host: `127.0.0.1:${port}`,
      Origin: `http://127.0.0.1:${port + 1}`,
    });
    expect(deleteApi.status).toBe(403);
    expect((await t.mail.list()).some((m) => m.To[0]?.Address === 'keep@example.com')).toBe(true);

    const own = await call('POST', '/delete-all', { ...form, Origin: `http://127.0.0.1:${port}` }, '');
    expect(own.status).toBe(303);
    expect(await t.mail.list()).toEqual([]);
  });
});
