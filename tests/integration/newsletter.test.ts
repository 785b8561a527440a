// newsletter-signup through the real stack: supabase-js invoke, the functions host, REST, Postgres, SMTP and
// the mail catcher; the verification link is opened as a browser would (a GET without keys).
import { randomUUID } from 'node:crypto';
import { type MailCatcher, startMailCatcher } from 'local-supabase';
import { failure, freePort, startTestStack, type TestStack } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

interface Row {
  id: string;
  email: string;
  status: 'pending' | 'verified' | 'unsubscribed';
  verify_token_hash: string | null;
  verify_expires_at: string | null;
  verify_sent_at: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  verified_at: string | null;
  consent_text_version: string | null;
  consent_requested_at: string | null;
  unsubscribed_at: string | null;
}

const SITE = 'http://127.0.0.1:4321';
const address = () => `reader-${randomUUID().slice(0, 8)}@example.com`;

async function signUp(t: TestStack, body: Record<string, unknown>) {
  return t.anon().functions.invoke('newsletter-signup', { body });
}

async function rows(t: TestStack, email: string): Promise<Row[]> {
  const { data, error } = await t.admin().from('newsletter_subscribers').select('*').ilike('email', email);
  expect(error).toBeNull();
  return data as Row[];
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
async function open(link: string): Promise<{ status: number; location: string | null }> {
  const res = await fetch(link, { redirect: 'manual' });
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
    expect(expires - before).toBeGreaterThan(23 * 3_600_000);
    expect(expires - before).toBeLessThanOrEqual(24 * 3_600_000 + 60_000);

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
    expect(await failure(error)).toEqual({ status: 400, body: { error: message, field: 'email' } });
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
    expect(await failure(error)).toEqual({ status: 405, body: { error: 'Method not allowed: use GET or POST.' } });
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
async function oneClick(url: string, body: BodyInit = 'List-Unsubscribe=One-Click') {
  const res = await fetch(url, {
    method: 'POST',
    headers: typeof body === 'string' ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
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
    expect(mail.HTML).toContain(`href="${url.href.replaceAll('&', '&amp;')}"`);
  });

  test('a one-click POST (no key, no sign-in) unsubscribes at once; a second one answers the same', async () => {
    const email = await subscribed();
    const link = await unsubscribeLinkFor(t, email);
    const before = Date.now();
    expect(await oneClick(link)).toEqual({ status: 200, body: { success: true } });
    const [row] = await rows(t, email);
    expect(row).toMatchObject({ status: 'unsubscribed', verify_token_hash: null, verify_sent_at: null });
    expect(Date.parse(row.unsubscribed_at ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(await oneClick(link)).toEqual({ status: 200, body: { success: true } });
    expect((await rows(t, email))[0]?.unsubscribed_at).toBe(row.unsubscribed_at);
  });

  test('the one-click POST may be multipart/form-data; a POST without List-Unsubscribe=One-Click changes nothing', async () => {
    const email = await subscribed();
    const link = await unsubscribeLinkFor(t, email);
    expect(await oneClick(link, 'unsubscribe=yes')).toEqual({
      status: 400,
      body: { error: 'Send List-Unsubscribe=One-Click as a form body (RFC 8058).' },
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
      body: { error: 'This unsubscribe link is not valid.' },
    });
    expect(await open(forged.href)).toEqual({
      status: 303,
      location: `${SITE}/newsletter-verified?status=unsubscribe-invalid`,
    });
    const altered = new URL(myLink);
    altered.searchParams.set('token', 'A'.repeat(43));
    expect((await oneClick(altered.href)).status).toBe(403);
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

  test('an unsubscribed address subscribes again through the double opt-in: a new mail, pending until confirmed', async () => {
    const email = await subscribed();
    expect((await oneClick(await unsubscribeLinkFor(t, email))).status).toBe(200);
    await t.mail.clear();

    const again = await signUp(t, { email, consentVersion: '0123456789abcdef' });
    expect(again.error).toBeNull();
    expect(again.data).toEqual({ success: true });
    const link = await linkFor(t, email);
    const [pending] = await rows(t, email);
    expect(pending).toMatchObject({
      status: 'pending',
      verified_at: null,
      unsubscribed_at: null,
      consent_text_version: '0123456789abcdef',
    });
    // The new mail carries its unsubscribe link and headers too.
    expect(await unsubscribeLinkFor(t, email)).toContain(pending.id);
    expect(await open(link)).toEqual({ status: 303, location: `${SITE}/newsletter-verified` });
    expect((await rows(t, email))[0]?.status).toBe('verified');
  });

  test('the row keeps how consent was given: the wording version, when the form was sent and when the link confirmed it', async () => {
    const email = address();
    const sent = Date.now();
    expect((await signUp(t, { email, consentVersion: 'fedcba9876543210' })).error).toBeNull();
    const [pending] = await rows(t, email);
    expect(pending.consent_text_version).toBe('fedcba9876543210');
    const requested = Date.parse(pending.consent_requested_at ?? '');
    expect(requested).toBeGreaterThanOrEqual(sent - 1000);
    expect(requested).toBeLessThanOrEqual(Date.now() + 1000);
    expect(pending.verified_at).toBeNull();

    await open(await linkFor(t, email));
    const [confirmed] = await rows(t, email);
    expect(confirmed).toMatchObject({
      status: 'verified',
      consent_text_version: 'fedcba9876543210',
      consent_requested_at: pending.consent_requested_at,
    });
    expect(Date.parse(confirmed.verified_at ?? '')).toBeGreaterThanOrEqual(requested);
  });

  test('a malformed wording version: 400 naming the field, nothing stored', async () => {
    const email = address();
    const { error } = await signUp(t, { email, consentVersion: 'v1 of the form' });
    expect(await failure(error)).toEqual({
      status: 400,
      body: { error: 'consentVersion must be 16 hexadecimal digits.', field: 'consentVersion' },
    });
    expect(await rows(t, email)).toEqual([]);
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
      body: { error: 'Failed to subscribe. Please try again later.' },
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
    expect(await rows(t, email)).toEqual([]);
  });
});
