// send-contact-email through the real stack: supabase-js invoke, the functions host, REST, Postgres, SMTP
// and the mail catcher. Every check is on what the caller gets, what got stored, or what got mailed.
import { randomUUID } from 'node:crypto';
import {
  failure,
  failureHeaders,
  freePort,
  type MailMessage,
  type RelayDownStack,
  startStackWithRelayDown,
  startTestStack,
  type TestStack,
  until,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { tooManyRequestsMessage } from '../../supabase/functions/_shared/rate-limit.ts';

type Mail = MailMessage & { ReplyTo: { Name: string; Address: string }[] };

/** A sender address no other test uses, so rows and mail can be found by it. */
const sender = () => `sender-${randomUUID().slice(0, 8)}@example.com`;

async function rowsFrom(t: TestStack, email: string): Promise<Tables<'contact_messages'>[]> {
  const { data, error } = await t.admin<Database>().from('contact_messages').select('*').eq('email', email);
  expect(error).toBeNull();
  return data ?? [];
}

/** The catcher's messages whose Reply-To is `email`. */
async function mailFrom(t: TestStack, email: string): Promise<Mail[]> {
  const found: Mail[] = [];
  for (const m of await t.mail.list()) {
    const full = (await t.mail.get(m.ID)) as Mail;
    if (full.ReplyTo.some((r) => r.Address === email)) found.push(full);
  }
  return found;
}

async function invoke(t: TestStack, body: unknown) {
  return t.anon().functions.invoke('send-contact-email', { body: body as Record<string, unknown> });
}

describe('send-contact-email', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(() => t?.stop());

  test('a valid message is stored, mailed to the inbox with Reply-To the sender, and answered 200', async () => {
    const email = sender();
    const body = {
      name: 'Ann Lee',
      email,
      subject: 'Question about Growth One',
      message: 'How many signals\nper week?',
    };
    const { data, error } = await invoke(t, body);
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });

    const [row, ...more] = await rowsFrom(t, email);
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      name: 'Ann Lee',
      subject: 'Question about Growth One',
      message: 'How many signals\nper week?',
      ip: '127.0.0.1',
      delivery_status: 'sent',
      delivery_error: null,
      attempts: 1,
    });
    expect(row.user_agent).toBeTruthy();
    expect(Date.parse(row.delivered_at ?? '')).toBeGreaterThanOrEqual(Date.parse(row.created_at));

    const mail = (await t.mail.waitFor(t.config.functionSecrets.CONTACT_INBOX)) as Mail;
    expect(mail.Subject).toBe('Question about Growth One');
    expect(mail.ReplyTo).toEqual([{ Name: 'Ann Lee', Address: email }]);
    expect(mail.From.Address).toBe(/<(.+)>/.exec(t.config.mailFrom)?.[1] ?? t.config.mailFrom);
    expect(mail.Text).toContain('Name: Ann Lee');
    expect(mail.Text).toContain(`Email: ${email}`);
    expect(mail.Text).toContain('How many signals\nper week?');
  });

  test.each([[''], ['   '], [undefined]])('subject %j becomes "New Contact Form Submission"', async (subject) => {
    const email = sender();
    const { data, error } = await invoke(t, { name: 'Bo', email, subject, message: 'No subject here' });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect((await rowsFrom(t, email))[0]?.subject).toBe('New Contact Form Submission');
    const [mail] = await mailFrom(t, email);
    expect(mail?.Subject).toBe('New Contact Form Submission');
  });

  test.each([
    ['a missing message', (email: string) => ({ name: 'Cy', email }), 'message', 'Message is required.'],
    [
      'an invalid email',
      () => ({ name: 'Cy', email: 'cy-at-example.com', message: 'Hi' }),
      'email',
      'Email must be a valid email address.',
    ],
    [
      'a message of 5,001 characters',
      (email: string) => ({ name: 'Cy', email, message: 'x'.repeat(5001) }),
      'message',
      'Message must be at most 5,000 characters.',
    ],
    ['a missing name', (email: string) => ({ email, message: 'Hi' }), 'name', 'Name is required.'],
    [
      'a subject of 201 characters',
      (email: string) => ({ name: 'Cy', email, subject: 's'.repeat(201), message: 'Hi' }),
      'subject',
      'Subject must be at most 200 characters.',
    ],
  ])('%s: 400 with a message naming the field, nothing stored or mailed', async (_label, build, field, message) => {
    const email = sender();
    const { data, error } = await invoke(t, build(email));
    expect(data).toBeNull();
    const { status, body } = await failure(error);
    const headers = failureHeaders(error);
    expect(status).toBe(400);
    expect(body).toEqual({ error: message, code: 'invalid_input', field });
    expect(headers.get('access-control-allow-origin')).toBe('*');
    expect(await rowsFrom(t, email)).toEqual([]);
    expect(await mailFrom(t, email)).toEqual([]);
  });

  test('a message of exactly 5,000 characters is accepted', async () => {
    const email = sender();
    const { error } = await invoke(t, { name: 'Di', email, message: 'y'.repeat(5000) });
    expect(error).toBeNull();
    expect((await rowsFrom(t, email))[0]?.message).toHaveLength(5000);
  });

  test('invalid JSON: 400 with a clear message', async () => {
    const res = await fetch(`${t.url}/functions/v1/send-contact-email`, {
      method: 'POST',
      headers: {
        apikey: t.config.anonKey,
        Authorization: `Bearer ${t.config.anonKey}`,
        'Content-Type': 'application/json',
      },
      body: '{"name": "Ed",',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Request body is not valid JSON.', code: 'bad_json' });
  });

  test('a filled honeypot: 200 success, nothing stored, nothing mailed', async () => {
    const email = sender();
    const { data, error } = await invoke(t, {
      name: 'Bot',
      email,
      subject: 'Cheap pills',
      message: 'Buy now',
      website: 'http://spam.example',
    });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(await rowsFrom(t, email)).toEqual([]);
    // The answer comes after a real message is mailed, so a mail would already be here.
    expect(await mailFrom(t, email)).toEqual([]);
  });

  test('a body over 64 KB: 413, nothing stored', async () => {
    const email = sender();
    const { error } = await invoke(t, { name: 'Flo', email, message: 'z'.repeat(70 * 1024) });
    expect(await failure(error)).toEqual({
      status: 413,
      body: { error: 'Request body is larger than 64 KB.', code: 'payload_too_large' },
    });
    expect(await rowsFrom(t, email)).toEqual([]);
  });

  test('CORS preflight is answered with the supabase-js CORS headers, without a key', async () => {
    const res = await fetch(`${t.url}/functions/v1/send-contact-email`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://127.0.0.1:4321',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, x-client-info, apikey, content-type',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'x-client-info', 'apikey', 'content-type']));
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });

  test('a successful answer carries CORS for the browser', async () => {
    const res = await fetch(`${t.url}/functions/v1/send-contact-email`, {
      method: 'POST',
      headers: { apikey: t.config.anonKey, 'Content-Type': 'application/json', Origin: 'http://127.0.0.1:4321' },
      body: JSON.stringify({ name: 'Gus', email: sender(), message: 'Hello' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('GET: 405', async () => {
    const { error } = await t.anon().functions.invoke('send-contact-email', { method: 'GET' });
    const { status, body } = await failure(error);
    expect(status).toBe(405);
    expect(body).toEqual({ error: 'Method not allowed: use POST.', code: 'method_not_allowed' });
  });

  test('the table is closed to the anon key', async () => {
    const { data } = await t.anon().from('contact_messages').select('*');
    expect(data ?? []).toEqual([]);
    const { error } = await t
      .anon()
      .from('contact_messages')
      .insert({ name: 'x', email: 'x@example.com', subject: 's', message: 'm' });
    expect(error).not.toBeNull();
  });
});

describe('send-contact-email when mail fails', () => {
  let t: TestStack;
  let down: RelayDownStack;
  beforeAll(async () => {
    // The stack's retry timer is off here: the later successful send is what delivers the first message.
    down = await startStackWithRelayDown({ cron: { 'contact-mail-retry': 0 } });
    t = down.t;
  });
  afterAll(async () => {
    await down?.stop();
  });

  test('the message is stored as pending and the answer says it is queued; the next successful send delivers it', async () => {
    const email = sender();
    const { data, error } = await invoke(t, { name: 'Hal', email, subject: 'Kept safe', message: 'Do not lose me' });
    expect(error).toBeNull();
    expect(data).toEqual({ success: true, queued: true });
    const [row] = await rowsFrom(t, email);
    expect(row).toMatchObject({ subject: 'Kept safe', delivery_status: 'pending', attempts: 1, delivered_at: null });
    expect(row.delivery_error).toMatch(/ECONNREFUSED|connect/i);

    // The relay comes back; the pending row is due (its first retry waits a second) when the next send succeeds.
    const webPort = await freePort();
    await down.relayUp(webPort);
    await until('the pending message to be due', async () => {
      const [row] = await t.stack.ctx.db.query<{ due: boolean }>(
        'select next_attempt_at <= now() as due from public.contact_messages where email = $1::text',
        [email],
      );
      return row?.due ? true : undefined;
    });

    const next = sender();
    const second = await invoke(t, { name: 'Ida', email: next, message: 'I trigger the retry' });
    expect(second.error).toBeNull();
    expect(second.data).toEqual({ success: true });

    const delivered = await until('the failed message to be delivered', async () => {
      const [r] = await rowsFrom(t, email);
      return r?.delivery_status === 'sent' ? r : undefined;
    });
    expect(delivered).toMatchObject({ attempts: 2, delivery_error: null });
    const list = (await (await fetch(`http://127.0.0.1:${webPort}/api/v1/messages`)).json()) as {
      messages: { Subject: string }[];
    };
    expect(list.messages.map((m) => m.Subject).sort()).toEqual(['Kept safe', 'New Contact Form Submission']);
  });
});

describe('send-contact-email with rate limits on', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack({ rateLimits: true });
  });
  afterAll(() => t?.stop());

  test('the sixth request from one address in ten minutes gets 429 with Retry-After, and nothing is stored', async () => {
    // The window opens at the first request: Retry-After is ten minutes less what has passed since then.
    const before = Date.now();
    for (let i = 0; i < 5; i++) {
      // Honeypot submissions count too; they keep this test from mailing five times.
      const { error } = await invoke(t, { name: 'Bot', email: sender(), message: 'x', website: 'y' });
      expect(error).toBeNull();
    }
    const email = sender();
    const { error } = await invoke(t, { name: 'Jo', email, message: 'One too many' });
    const elapsedSeconds = (Date.now() - before + 1) / 1000;
    const { status, body } = await failure(error);
    const headers = failureHeaders(error);
    expect(status).toBe(429);
    const retryAfter = Number(headers.get('retry-after'));
    // The sentence says the wait the header gives, however long the requests took.
    expect(body).toEqual({ error: tooManyRequestsMessage(retryAfter), code: 'rate_limited' });
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(600 - elapsedSeconds));
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(await rowsFrom(t, email)).toEqual([]);
  });
});
