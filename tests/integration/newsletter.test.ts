// newsletter-signup through the real stack: supabase-js invoke, the functions host, REST, Postgres, SMTP and
// the mail catcher; the verification link is opened as a browser would (a GET without keys).
import { randomUUID } from 'node:crypto';
import { type MailCatcher, startMailCatcher } from 'local-supabase';
import { failure, freePort, startTestStack, type TestStack } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consentVersion } from '../../src/lib/consent-version.ts';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { labels } from '../content.ts';

const SITE = 'http://127.0.0.1:4321';
const address = () => `reader-${randomUUID().slice(0, 8)}@example.com`;
const card = labels('newsletter');
/** The version the built card sends: its current wording's (content/labels/newsletter.md). */
const CONSENT = consentVersion([card('intro'), card('consent')]);

/** A sign-up as the card sends it (the wording's version unless the body names one), from `userAgent`. */
async function signUp(t: TestStack, body: Record<string, unknown>, userAgent?: string) {
  return t.anon().functions.invoke('newsletter-signup', {
    body: { consentVersion: CONSENT, ...body },
    headers: userAgent ? { 'User-Agent': userAgent } : {},
  });
}

/** The consent record of `email`, oldest first. */
async function events(t: TestStack, email: string): Promise<Tables<'newsletter_consent_events'>[]> {
  const { data, error } = await t
    .admin<Database>()
    .from('newsletter_consent_events')
    .select('*')
    .ilike('email', email)
    .order('id');
  expect(error).toBeNull();
  return data ?? [];
}

async function rows(t: TestStack, email: string): Promise<Tables<'newsletter_subscribers'>[]> {
  const { data, error } = await t.admin<Database>().from('newsletter_subscribers').select('*').ilike('email', email);
  expect(error).toBeNull();
  return data ?? [];
}

async function mailsTo(t: TestStack, email: string) {
  return (await t.mail.list()).filter((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase()));
}

/** The verification link in the newest mail to `email`. */
async function linkFor(t: TestStack, email: string): Promise<string> {
  const mail = await t.mail.waitFor(email);
  const link = /https?:\/\/\S+\/functions\/v1\/newsletter-signup\?token=[A-Za-z0-9_-]+/.exec(mail.Text)?.[0];
  expect(link, mail.Text).toBeTruthy();
  expect(mail.HTML).toContain(`href="${link}"`);
  return link as string;
}

/** Opens a link the way a mail client hands it to a browser: no apikey, no Authorization. */
async function open(link: string, userAgent?: string): Promise<{ status: number; location: string | null }> {
  const res = await fetch(link, { redirect: 'manual', headers: userAgent ? { 'User-Agent': userAgent } : {} });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get('location') };
}

describe('newsletter-signup', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  test('a sign-up stores a pending row with a hashed, expiring token and mails a link that verifies and redirects', async () => {
    const email = address();
    const before = Date.now();
    const { data, error } = await signUp(t, {
      email,
      clientIP: '203.0.113.9',
      userAgent: 'Sent By The Client',
      timestamp: new Date().toISOString(),
    });
    const after = Date.now();
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });

    const [row, ...more] = await rows(t, email);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ email, status: 'pending', verified_at: null });
    // The address and user agent come from the request, not from the client's payload.
    expect(row.ip).toBe('127.0.0.1');
    expect(row.user_agent).not.toBe('Sent By The Client');
    expect(row.user_agent).toBeTruthy();
    expect(row.verify_token_hash).toMatch(/^[0-9a-f]{64}$/);
    const expires = Date.parse(row.verify_expires_at ?? '');
    // 24 hours from when the row was stored, while the request ran (to the second: the database's clock).
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(after + 24 * 3_600_000 + 1000);

    const link = await linkFor(t, email);
    const token = new URL(link).searchParams.get('token') ?? '';
    expect(row.verify_token_hash).not.toContain(token);
    expect(new URL(link).origin).toBe(t.url);

    expect(await open(link)).toEqual({ status: 303, location: `${SITE}/newsletter-verified` });
    const [verified] = await rows(t, email);
    expect(verified.status).toBe('verified');
    expect(Date.parse(verified.verified_at ?? '')).toBeGreaterThanOrEqual(Date.parse(verified.created_at));

    // Opening the same link again still lands on the verified page.
    expect(await open(link)).toEqual({ status: 303, location: `${SITE}/newsletter-verified` });
  });

  test('signing up again within the hour: one row, the same answer, no second mail', async () => {
    const email = address();
    const first = await signUp(t, { email });
    await t.mail.waitFor(email);
    const [row] = await rows(t, email);
    const second = await signUp(t, { email });
    expect(second.error).toBeNull();
    expect(second.data).toEqual(first.data);
    const after = await rows(t, email);
    expect(after).toHaveLength(1);
    expect(after[0]?.verify_token_hash).toBe(row.verify_token_hash);
    // A mail would have been sent before the answer: none came.
    expect(await mailsTo(t, email)).toHaveLength(1);
  });

  test('addresses are compared case-insensitively: another case is the same subscriber', async () => {
    const email = address();
    await signUp(t, { email });
    await t.mail.waitFor(email);
    const shouted = email.toUpperCase();
    const { data, error } = await signUp(t, { email: `  ${shouted} ` });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await rows(t, email)).toHaveLength(1);
    expect(await mailsTo(t, email)).toHaveLength(1);
  });

  test('five sign-ups of one new address at once (in mixed case): one row, one mail, five equal answers', async () => {
    const email = address();
    const variants = [email, email.toUpperCase(), email, ` ${email}`, email.replace('reader', 'READER')];
    const answers = await Promise.all(variants.map((e) => signUp(t, { email: e })));
    expect(answers.map((a) => [a.error, a.data])).toEqual(variants.map(() => [null, { success: true }]));
    expect(await rows(t, email)).toHaveLength(1);
    await t.mail.waitFor(email);
    expect(await mailsTo(t, email)).toHaveLength(1);
  });

  test('after an hour a pending address gets one new link, and the old link no longer works', async () => {
    const email = address();
    await signUp(t, { email });
    const oldLink = await linkFor(t, email);
    const [row] = await rows(t, email);
    const hourAgo = new Date(Date.now() - 61 * 60_000).toISOString();
    await t.admin().from('newsletter_subscribers').update({ verify_sent_at: hourAgo }).eq('id', row.id);

    expect((await signUp(t, { email })).data).toEqual({ success: true });
    expect(await mailsTo(t, email)).toHaveLength(2);
    const newLink = await linkFor(t, email);
    expect(newLink).not.toBe(oldLink);
    // A third try within the new hour sends nothing.
    await signUp(t, { email });
    expect(await mailsTo(t, email)).toHaveLength(2);

    expect(await open(oldLink)).toEqual({ status: 303, location: `${SITE}/newsletter-verified?status=invalid` });
    expect(await open(newLink)).toEqual({ status: 303, location: `${SITE}/newsletter-verified` });
  });

  test('a verified subscriber signing up again gets the same answer and no mail, even after an hour', async () => {
    const email = address();
    await signUp(t, { email });
    expect((await open(await linkFor(t, email))).status).toBe(303);
    const [row] = await rows(t, email);
    const dayAgo = new Date(Date.now() - 24 * 3_600_000).toISOString();
    await t.admin().from('newsletter_subscribers').update({ verify_sent_at: dayAgo }).eq('id', row.id);

    const { data, error } = await signUp(t, { email });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await mailsTo(t, email)).toHaveLength(1);
    expect((await rows(t, email))[0]?.status).toBe('verified');
  });

  test('an expired link lands on the expired page and verifies nothing', async () => {
    const email = address();
    await signUp(t, { email });
    const link = await linkFor(t, email);
    const [row] = await rows(t, email);
    const past = new Date(Date.now() - 60_000).toISOString();
    await t.admin().from('newsletter_subscribers').update({ verify_expires_at: past }).eq('id', row.id);

    expect(await open(link)).toEqual({ status: 303, location: `${SITE}/newsletter-verified?status=expired` });
    expect((await rows(t, email))[0]?.status).toBe('pending');
  });

  test.each([
    ['an unknown token', 'A'.repeat(43)],
    ['a malformed token', 'not a token'],
    ['no token', null],
  ])('%s lands on the invalid-link page', async (_label, token) => {
    const url = new URL(`${t.url}/functions/v1/newsletter-signup`);
    if (token !== null) url.searchParams.set('token', token);
    expect(await open(url.href)).toEqual({ status: 303, location: `${SITE}/newsletter-verified?status=invalid` });
  });

  test.each([
    ['no email', {}, 'Email is required.'],
    ['a blank email', { email: '   ' }, 'Email is required.'],
    ['an invalid email', { email: 'reader-at-example.com' }, 'Email must be a valid email address.'],
    [
      'an email of 255 characters',
      { email: `${'a'.repeat(243)}@example.com` },
      'Email must be at most 254 characters.',
    ],
    ['a number for an email', { email: 42 }, 'Email must be text.'],
  ])('%s: 400 with a clear message, nothing stored, nothing mailed', async (_label, body, message) => {
    const before = (await t.admin().from('newsletter_subscribers').select('id')).data?.length ?? 0;
    const mailsBefore = (await t.mail.list()).length;
    const { data, error } = await signUp(t, body);
    expect(data).toBeNull();
    expect(await failure(error)).toEqual({
      status: 400,
      body: { error: message, code: 'invalid_input', field: 'email' },
    });
    expect((await t.admin().from('newsletter_subscribers').select('id')).data).toHaveLength(before);
    expect(await t.mail.list()).toHaveLength(mailsBefore);
  });

  test('a filled honeypot: the same answer, nothing stored, nothing mailed', async () => {
    const email = address();
    const { data, error } = await signUp(t, { email, website: 'http://spam.example' });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await rows(t, email)).toEqual([]);
    expect(await mailsTo(t, email)).toEqual([]);
  });

  test('the table is closed to the anon key', async () => {
    const { data } = await t.anon().from('newsletter_subscribers').select('*');
    expect(data ?? []).toEqual([]);
    const { error } = await t.anon().from('newsletter_subscribers').insert({ email: address() });
    expect(error).not.toBeNull();
  });

  test('PUT: 405 naming GET and POST', async () => {
    const { error } = await t.anon().functions.invoke('newsletter-signup', { method: 'PUT', body: {} });
    expect(await failure(error)).toEqual({
      status: 405,
      body: { error: 'Method not allowed: use GET or POST.', code: 'method_not_allowed' },
    });
  });
});

/** The newest mail to `email` with its headers, as the mail catcher's Mailpit API gives them. */
async function mailWithHeaders(t: TestStack, email: string) {
  const mail = await t.mail.waitFor(email);
  const res = await fetch(`http://127.0.0.1:${t.config.ports.mailWeb}/api/v1/message/${mail.ID}/headers`);
  return { mail, headers: (await res.json()) as Record<string, string[]> };
}

/** The unsubscribe URL of the newest mail to `email`, from its List-Unsubscribe header. */
async function unsubscribeLinkFor(t: TestStack, email: string): Promise<string> {
  const { headers } = await mailWithHeaders(t, email);
  const url = /^<(.+)>$/.exec(headers['List-Unsubscribe']?.[0] ?? '')?.[1];
  expect(url, JSON.stringify(headers)).toBeTruthy();
  return url as string;
}

/** RFC 8058's one-click POST, as a mail provider sends it: no key, a form body, no redirects followed. */
async function oneClick(url: string, body: BodyInit = 'List-Unsubscribe=One-Click', userAgent = 'MailProvider/1.0') {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'User-Agent': userAgent,
      ...(typeof body === 'string' ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body,
    redirect: 'manual',
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('newsletter unsubscribe and consent', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  /** Subscribes `email` and confirms it through the mailed link. */
  async function subscribed(email = address()) {
    await signUp(t, { email });
    expect((await open(await linkFor(t, email))).status).toBe(303);
    expect((await rows(t, email))[0]?.status).toBe('verified');
    return email;
  }

  test('the confirmation mail carries a visible unsubscribe link and the RFC 8058 headers on the function', async () => {
    const email = address();
    await signUp(t, { email });
    const { mail, headers } = await mailWithHeaders(t, email);
    const [row] = await rows(t, email);
    const url = new URL(await unsubscribeLinkFor(t, email));
    expect(url.origin).toBe(t.url);
    expect(url.pathname).toBe('/functions/v1/newsletter-signup/unsubscribe');
    expect(url.searchParams.get('id')).toBe(row.id);
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(headers['List-Unsubscribe']).toEqual([`<${url.href}>`]);
    expect(headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);
    expect(mail.Text).toContain(`\n${url.href}\n`);
    expect(mail.HTML).toContain(`href="${url.href.replaceAll('&', '&#38;')}"`);
  });

  test('a one-click POST (no key, no sign-in) unsubscribes at once; a second one answers the same', async () => {
    const email = await subscribed();
    const link = await unsubscribeLinkFor(t, email);
    const [subscribedRow] = await rows(t, email);
    const before = Date.now();
    expect(await oneClick(link)).toEqual({ status: 200, body: { success: true } });
    const [row] = await rows(t, email);
    // The hourly mail slot is kept: no confirmation mail within the hour after a withdrawal.
    expect(row).toMatchObject({
      status: 'unsubscribed',
      verify_token_hash: null,
      verify_expires_at: null,
      verify_sent_at: subscribedRow.verify_sent_at,
    });
    expect(Date.parse(row.unsubscribed_at ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(await oneClick(link)).toEqual({ status: 200, body: { success: true } });
    expect((await rows(t, email))[0]?.unsubscribed_at).toBe(row.unsubscribed_at);
  });

  test('the one-click POST may be multipart/form-data; a POST without List-Unsubscribe=One-Click changes nothing', async () => {
    const email = await subscribed();
    const link = await unsubscribeLinkFor(t, email);
    expect(await oneClick(link, 'unsubscribe=yes')).toEqual({
      status: 400,
      body: {
        error: 'Send List-Unsubscribe=One-Click as a form body (RFC 8058).',
        code: 'invalid_input',
        field: 'List-Unsubscribe',
      },
    });
    expect((await rows(t, email))[0]?.status).toBe('verified');
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    expect(await oneClick(link, form)).toEqual({ status: 200, body: { success: true } });
    expect((await rows(t, email))[0]?.status).toBe('unsubscribed');
  });

  test('a click on the link (GET) unsubscribes and redirects to the page that says so', async () => {
    const email = await subscribed();
    const res = await fetch(await unsubscribeLinkFor(t, email), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${SITE}/newsletter-verified?status=unsubscribed`);
    expect((await rows(t, email))[0]?.status).toBe('unsubscribed');
  });

  test("another address's token is refused: nothing changes for either address", async () => {
    const mine = await subscribed();
    const theirs = await subscribed();
    const myLink = new URL(await unsubscribeLinkFor(t, mine));
    const [their] = await rows(t, theirs);
    const forged = new URL(myLink);
    forged.searchParams.set('id', their.id);
    expect(await oneClick(forged.href)).toEqual({
      status: 403,
      body: { error: 'This unsubscribe link is not valid.', code: 'invalid_link' },
    });
    expect(await open(forged.href)).toEqual({
      status: 303,
      location: `${SITE}/newsletter-verified?status=unsubscribe-invalid`,
    });
    const altered = new URL(myLink);
    altered.searchParams.set('token', 'A'.repeat(43));
    expect(await oneClick(altered.href)).toEqual({
      status: 403,
      body: { error: 'This unsubscribe link is not valid.', code: 'invalid_link' },
    });
    expect((await rows(t, theirs))[0]?.status).toBe('verified');
    expect((await rows(t, mine))[0]?.status).toBe('verified');
  });

  test('unsubscribing before confirming voids the confirmation link', async () => {
    const email = address();
    await signUp(t, { email });
    const confirm = await linkFor(t, email);
    expect((await oneClick(await unsubscribeLinkFor(t, email))).status).toBe(200);
    expect(await open(confirm)).toEqual({ status: 303, location: `${SITE}/newsletter-verified?status=invalid` });
    expect((await rows(t, email))[0]?.status).toBe('unsubscribed');
  });

  test('the row keeps how consent was given: the wording version, when the form was sent and when the link confirmed it', async () => {
    const email = address();
    const sent = Date.now();
    expect((await signUp(t, { email })).error).toBeNull();
    const [pending] = await rows(t, email);
    expect(pending.consent_text_version).toBe(CONSENT);
    const requested = Date.parse(pending.consent_requested_at ?? '');
    expect(requested).toBeGreaterThanOrEqual(sent - 1000);
    expect(requested).toBeLessThanOrEqual(Date.now() + 1000);
    expect(pending.verified_at).toBeNull();

    await open(await linkFor(t, email));
    const [confirmed] = await rows(t, email);
    expect(confirmed).toMatchObject({
      status: 'verified',
      consent_text_version: CONSENT,
      consent_requested_at: (await events(t, email))[0]?.created_at,
    });
    expect(Date.parse(confirmed.verified_at ?? '')).toBeGreaterThanOrEqual(requested);
  });

  test.each([
    ['a malformed wording version', 'v1 of the form', 'consentVersion must be 16 hexadecimal digits.'],
    [
      'a wording version the site never published',
      'ffffffffffffffff',
      'This form is out of date: reload the page and try again.',
    ],
    ['no wording version', null, 'consentVersion is required: the version of the wording the person agreed to.'],
  ])('%s: 400 naming the field, nothing stored, nothing mailed', async (_label, version, message) => {
    const email = address();
    const { error } = await signUp(t, { email, consentVersion: version });
    expect(await failure(error)).toEqual({
      status: 400,
      body: { error: message, code: 'invalid_input', field: 'consentVersion' },
    });
    expect(await rows(t, email)).toEqual([]);
    expect(await events(t, email)).toEqual([]);
    expect(await mailsTo(t, email)).toEqual([]);
  });
});

describe('the consent record (newsletter_consent_events)', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  const HOUR_AND_A_MINUTE = 61 * 60_000;

  /** Subscribed from Reader/1.0, confirmed from Reader-Browser/1.0, withdrawn by a mail client's one-click POST. */
  async function withdrawn() {
    const email = address();
    await signUp(t, { email }, 'Reader/1.0');
    expect((await open(await linkFor(t, email), 'Reader-Browser/1.0')).status).toBe(303);
    expect((await oneClick(await unsubscribeLinkFor(t, email))).status).toBe(200);
    const [row] = await rows(t, email);
    expect(row).toMatchObject({ status: 'unsubscribed', user_agent: 'Reader/1.0' });
    return { email, row, record: await events(t, email) };
  }

  /** Moves the last mail and the withdrawal of `email` more than an hour into the past. */
  async function anHourLater(email: string) {
    const [row] = await rows(t, email);
    const earlier = (at: string | null) => at && new Date(Date.parse(at) - HOUR_AND_A_MINUTE).toISOString();
    const { error } = await t
      .admin()
      .from('newsletter_subscribers')
      .update({ verify_sent_at: earlier(row.verify_sent_at), unsubscribed_at: earlier(row.unsubscribed_at) })
      .eq('id', row.id);
    expect(error).toBeNull();
    return (await rows(t, email))[0];
  }

  test('each step appends an event with its IP address, browser and wording version: link mailed, confirmed, withdrawn', async () => {
    const { email, row, record } = await withdrawn();
    const common = { subscriber_id: row.id, email, ip: '127.0.0.1', consent_text_version: CONSENT };
    expect(record).toEqual([
      expect.objectContaining({ ...common, kind: 'requested', via: 'form', user_agent: 'Reader/1.0' }),
      expect.objectContaining({ ...common, kind: 'confirmed', via: 'link', user_agent: 'Reader-Browser/1.0' }),
      expect.objectContaining({ ...common, kind: 'withdrawn', via: 'one-click', user_agent: 'MailProvider/1.0' }),
    ]);
    const times = record.map((e) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[2]).toBeLessThanOrEqual(Date.parse(row.unsubscribed_at ?? '') + 1000);

    // A click on the link (GET) is recorded as such; unsubscribing again adds nothing.
    const other = address();
    await signUp(t, { email: other });
    const link = await unsubscribeLinkFor(t, other);
    expect((await open(link, 'Clicker/1.0')).status).toBe(303);
    expect((await open(link, 'Clicker/1.0')).status).toBe(303);
    const [request, withdrawal, ...more] = await events(t, other);
    expect([request?.kind, request?.via, withdrawal?.kind, withdrawal?.via]).toEqual([
      'requested',
      'form',
      'withdrawn',
      'link',
    ]);
    expect(withdrawal?.user_agent).toBe('Clicker/1.0');
    expect(more).toEqual([]);
  });

  test("a stranger's sign-up right after an unsubscribe: the same answer, nothing changed, nothing mailed", async () => {
    const { email, row, record } = await withdrawn();
    const { data, error } = await signUp(t, { email: email.toUpperCase() }, 'Stranger/6.6');
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await rows(t, email)).toEqual([row]);
    expect(await events(t, email)).toEqual(record);
    expect(await mailsTo(t, email)).toHaveLength(1);
  });

  test('after the hour a request mails a new link, but the withdrawal stands until that link is confirmed', async () => {
    const { email, record } = await withdrawn();
    const before = await anHourLater(email);
    await t.mail.clear();

    expect((await signUp(t, { email }, 'Returning/2.0')).error).toBeNull();
    const link = await linkFor(t, email);
    const [waiting] = await rows(t, email);
    // Only the link changed: status, withdrawal, and how the withdrawn consent was given are as they were.
    expect(waiting).toEqual({
      ...before,
      verify_token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      verify_expires_at: expect.any(String),
      verify_sent_at: expect.any(String),
    });
    const requested = await events(t, email);
    expect(requested.slice(0, 3)).toEqual(record);
    expect(requested[3]).toMatchObject({ kind: 'requested', via: 'form', user_agent: 'Returning/2.0' });
    // A third sign-up within the new hour mails nothing more.
    await signUp(t, { email }, 'Stranger/6.6');
    expect(await mailsTo(t, email)).toHaveLength(1);

    expect(await open(link, 'Returning-Browser/2.0')).toEqual({ status: 303, location: `${SITE}/newsletter-verified` });
    const [confirmed] = await rows(t, email);
    expect(confirmed).toMatchObject({
      status: 'verified',
      unsubscribed_at: null,
      user_agent: 'Returning/2.0',
      consent_text_version: CONSENT,
      consent_requested_at: requested[3]?.created_at,
    });
    const after = await events(t, email);
    expect(after.slice(0, 4)).toEqual(requested.slice(0, 4));
    expect(after.slice(4).map((e) => [e.kind, e.user_agent])).toEqual([['confirmed', 'Returning-Browser/2.0']]);
  });

  test("unsubscribing from the new link's mail voids it and records a second withdrawal", async () => {
    const { email } = await withdrawn();
    const before = await anHourLater(email);
    await t.mail.clear();
    await signUp(t, { email });
    const confirm = await linkFor(t, email);
    const started = Date.now();
    expect((await oneClick(await unsubscribeLinkFor(t, email))).status).toBe(200);
    expect(await open(confirm)).toEqual({ status: 303, location: `${SITE}/newsletter-verified?status=invalid` });
    const [row] = await rows(t, email);
    expect(row).toMatchObject({ status: 'unsubscribed', verified_at: before.verified_at, verify_token_hash: null });
    expect(Date.parse(row.unsubscribed_at ?? '')).toBeGreaterThanOrEqual(started - 1000);
    expect((await events(t, email)).map((e) => e.kind)).toEqual([
      'requested',
      'confirmed',
      'withdrawn',
      'requested',
      'withdrawn',
    ]);
  });

  test('deleting a subscribed row (as account deletion does) records the end of that consent; a pending one, nothing', async () => {
    const email = address();
    await signUp(t, { email });
    await open(await linkFor(t, email));
    const pending = address();
    await signUp(t, { email: pending });
    for (const e of [email, pending]) {
      const { error } = await t.admin().from('newsletter_subscribers').delete().ilike('email', e);
      expect(error).toBeNull();
      expect(await rows(t, e)).toEqual([]);
    }
    expect((await events(t, email)).map((e) => [e.kind, e.via, e.ip, e.consent_text_version])).toEqual([
      ['requested', 'form', '127.0.0.1', CONSENT],
      ['confirmed', 'link', '127.0.0.1', CONSENT],
      ['withdrawn', 'deletion', null, CONSENT],
    ]);
    expect((await events(t, pending)).map((e) => e.kind)).toEqual(['requested']);
  });

  test('nobody rewrites it: service_role cannot update, delete or truncate; the API keys of visitors and members see nothing', async () => {
    const { email, record } = await withdrawn();
    const [first] = record;
    const admin = t.admin<Database>().from('newsletter_consent_events');
    const changed = await admin.update({ kind: 'confirmed', user_agent: 'Forged/1.0' }).eq('id', first.id);
    expect(changed.error?.code).toBe('42501');
    const deleted = await admin.delete().eq('subscriber_id', first.subscriber_id);
    expect(deleted.error?.code).toBe('42501');
    // Even were the role granted every right on the table (as Supabase's default privileges give new tables),
    // the trigger refuses it: no statement changes a row, even one that matches none.
    for (const sql of [
      `delete from public.newsletter_consent_events where id = ${first.id}`,
      'delete from public.newsletter_consent_events where false',
      `update public.newsletter_consent_events set ip = null where id = ${first.id}`,
      'truncate public.newsletter_consent_events',
    ]) {
      await expect(
        t.stack.ctx.db.transaction(async (tx) => {
          await tx.exec('grant all on table public.newsletter_consent_events to service_role');
          await tx.exec('set local role service_role');
          await tx.query(sql);
        }),
        sql,
      ).rejects.toThrow(/newsletter_consent_events is append-only/);
    }
    expect(await events(t, email)).toEqual(record);

    // An insert keeps the database's time, whatever the caller sends.
    const started = Date.now();
    const added = await admin
      .insert({ ...first, id: undefined, created_at: '2020-01-01T00:00:00Z', kind: 'withdrawn', via: 'link' })
      .select('created_at')
      .single();
    expect(added.error).toBeNull();
    expect(Date.parse(added.data?.created_at ?? '')).toBeGreaterThanOrEqual(started - 5000);

    const anon = t.anon().from('newsletter_consent_events');
    expect((await anon.select('*')).data ?? []).toEqual([]);
    expect((await anon.insert({ ...first, id: undefined })).error).not.toBeNull();
    const member = `member-${randomUUID().slice(0, 8)}@example.com`;
    await t.admin().auth.admin.createUser({ email: member, password: 'Str0ng!Passw0rd', email_confirm: true });
    const signedIn = t.anon();
    await signedIn.auth.signInWithPassword({ email: member, password: 'Str0ng!Passw0rd' });
    expect((await signedIn.from('newsletter_consent_events').select('*')).data ?? []).toEqual([]);
    expect((await signedIn.from('newsletter_consent_events').delete().eq('id', first.id)).error).not.toBeNull();
    expect((await events(t, email)).slice(0, 3)).toEqual(record);
  });
});

describe('newsletter-signup when mail fails', () => {
  let t: TestStack;
  let relayPort: number;
  let relay: MailCatcher | undefined;
  beforeAll(async () => {
    relayPort = await freePort();
    t = await startTestStack({ smtpUrl: `smtp://127.0.0.1:${relayPort}` });
  });
  afterAll(async () => {
    await t?.stop();
    await relay?.close();
  });

  test('the sign-up is kept, the answer says it failed, and trying again once mail works sends the link', async () => {
    const email = address();
    const { error } = await signUp(t, { email });
    expect(await failure(error)).toEqual({
      status: 500,
      body: { error: 'Failed to subscribe. Please try again later.', code: 'unexpected_failure' },
    });
    const [row] = await rows(t, email);
    expect(row).toMatchObject({ status: 'pending', verify_sent_at: null });

    const webPort = await freePort();
    relay = await startMailCatcher({ host: '127.0.0.1', smtpPort: relayPort, webPort });
    const again = await signUp(t, { email });
    expect(again.error).toBeNull();
    expect(again.data).toEqual({ success: true });
    expect(await rows(t, email)).toHaveLength(1);
    const list = (await (await fetch(`http://127.0.0.1:${webPort}/api/v1/messages`)).json()) as {
      messages: { Subject: string; To: { Address: string }[] }[];
    };
    expect(list.messages.map((m) => [m.To[0]?.Address, m.Subject])).toEqual([
      [email, 'Confirm your SignalOne newsletter subscription'],
    ]);
  });
});

describe('newsletter-signup with rate limits on', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack({ rateLimits: true });
  });
  afterAll(() => t?.stop());

  test('the sixth sign-up from one address in ten minutes gets 429, and nothing is stored', async () => {
    for (let i = 0; i < 5; i++) {
      const { error } = await signUp(t, { email: address(), website: 'bot' });
      expect(error).toBeNull();
    }
    const email = address();
    const { error } = await signUp(t, { email });
    const { status, body } = await failure(error);
    expect(status).toBe(429);
    expect(body.error).toMatch(/^Too many requests from your address\. Please try again in /);
    expect(body.code).toBe('rate_limited');
    expect(await rows(t, email)).toEqual([]);
  });
});
