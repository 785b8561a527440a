// Mail down: the stack's SMTP points at a port where nothing listens until a test starts a catcher there.
// Sign-up answers with a clear message and creates nothing; a contact message is kept as pending and is
// sent by the scheduled retry (the stack's timer, as pg_cron on hosted Supabase) once mail is back,
// exactly once, with no other visitor writing.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { failure, type RelayDownStack, startStackWithRelayDown, type TestStack, until } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signUpFailure } from '../../src/lib/auth-forms.ts';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { MAIL_FAILURE_MESSAGE } from '../../supabase/functions/user-signup/signup.ts';

/** The contact function's retry entry, which the migration's pg_cron job calls every minute. */
const RETRY_PATH = '/functions/v1/send-contact-email/retry';

/** A label of the /auth page as content/labels/auth.md words it. */
function authLabel(key: string): string {
  const text = readFileSync('content/labels/auth.md', 'utf8');
  const match = new RegExp(`^\\s+${key}: (.+)$`, 'm').exec(text);
  if (!match) throw new Error(`no ${key} in content/labels/auth.md`);
  return match[1].trim();
}

const address = (what: string) => `${what}-${randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = 'Sup3r-secret!';

let t: TestStack;
let down: RelayDownStack;

beforeAll(async () => {
  // Nothing listens on the relay port until it comes back; the retry timer ticks every 300 ms.
  down = await startStackWithRelayDown({ cron: { 'contact-mail-retry': 0.3 } });
  t = down.t;
});
afterAll(async () => {
  await down?.stop();
});

async function rowOf(email: string): Promise<Tables<'contact_messages'> | undefined> {
  const { data, error } = await t.admin<Database>().from('contact_messages').select('*').eq('email', email);
  expect(error).toBeNull();
  return data?.[0];
}

/** Captured messages whose Reply-To (contact mail) or To (auth mail) is `email`. */
async function mailFor(email: string): Promise<{ Subject: string }[]> {
  if (!down.relay) return [];
  const found: { Subject: string }[] = [];
  for (const m of down.relay.store.list()) {
    const people = [...m.ReplyTo, ...m.To].map((a) => a.Address.toLowerCase());
    if (people.includes(email.toLowerCase())) found.push({ Subject: m.Subject });
  }
  return found;
}

async function userExists(email: string): Promise<boolean> {
  const { data, error } = await t.admin().auth.admin.listUsers({ perPage: 1000 });
  expect(error).toBeNull();
  return data.users.some((u) => u.email === email);
}

const contactEmail = address('kept');
const signupEmail = address('signup');
const directEmail = address('direct');

describe('SMTP down', () => {
  test('sign-up through user-signup: 503 with a clear message the site shows under "Sign up failed"; no user', async () => {
    const { error } = await t.anon().functions.invoke('user-signup', {
      body: { email: signupEmail, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' },
    });
    const { status, body } = await failure(error);
    expect(status).toBe(503);
    expect(body).toEqual({ error: MAIL_FAILURE_MESSAGE, code: 'mail_unavailable' });
    // What the sign-up form makes of it (src/islands/auth/AuthSignUp.tsx): the title and the server's words.
    const shown = signUpFailure({ code: 'mail_unavailable', message: body.error as string });
    expect(authLabel(shown.title)).toBe('Sign up failed');
    expect(shown.text).toBe(
      'We could not send the confirmation email, so your account was not created. Please try again in a few minutes.',
    );
    expect(await userExists(signupEmail)).toBe(false);
  });

  test('auth.signUp: GoTrue\'s 500 "Error sending confirmation email"; no user is kept', async () => {
    const { data, error } = await t.anon().auth.signUp({ email: directEmail, password: PASSWORD });
    expect(data.user).toBeNull();
    // supabase-js reports a 5xx as retryable, with the service's message.
    expect(error).toMatchObject({
      name: 'AuthRetryableFetchError',
      status: 500,
      message: 'Error sending confirmation email',
    });
    expect(await userExists(directEmail)).toBe(false);
  });

  test('contact form: 202 queued, the message is stored as pending with the mail error', async () => {
    const { data, error, response } = await t.anon().functions.invoke('send-contact-email', {
      body: { name: 'Hal', email: contactEmail, subject: 'Kept safe', message: 'Do not lose me' },
    });
    expect(error).toBeNull();
    // The form treats any 2xx as sent and shows 'Message Sent!': the message is in the database.
    expect(response?.status).toBe(202);
    expect(data).toEqual({ success: true, queued: true });
    // The schedule retries it every few seconds while mail is down: read it between two attempts.
    const row = await until('the row between attempts', async () => {
      const r = await rowOf(contactEmail);
      return r && r.delivery_status !== 'sending' ? r : undefined;
    });
    expect(row).toMatchObject({ subject: 'Kept safe', delivery_status: 'pending', delivered_at: null });
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.delivery_error).toMatch(/ECONNREFUSED|connect/i);
  });

  test('the retry entry refuses the public key: 401, nothing claimed', async () => {
    const res = await fetch(`${t.url}${RETRY_PATH}`, {
      method: 'POST',
      headers: { apikey: t.config.anonKey, Authorization: `Bearer ${t.config.anonKey}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'The retry entry requires the service-role key.', code: 'not_admin' });
    expect((await rowOf(contactEmail))?.delivery_status).toMatch(/^(pending|sending)$/);
  });
});

describe('SMTP back', () => {
  test('the pending contact message is mailed once by the schedule and marked sent; nobody else wrote', async () => {
    await down.relayUp();
    const sent = await until(
      'the pending message to be sent',
      async () => {
        const row = await rowOf(contactEmail);
        return row?.delivery_status === 'sent' ? row : undefined;
      },
      20_000,
    );
    expect(sent.delivery_error).toBeNull();
    expect(sent.delivered_at).not.toBeNull();
    // Several more ticks of the timer: still exactly one mail.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await mailFor(contactEmail)).toEqual([{ Subject: 'Kept safe' }]);
  });

  test('sign-up works again: the account is created and the confirmation mail arrives', async () => {
    const { data, error } = await t.anon().functions.invoke('user-signup', {
      body: { email: signupEmail, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' },
    });
    expect(error).toBeNull();
    expect(data).toEqual({ message: 'Please check your email to verify your account before signing in.' });
    expect(await userExists(signupEmail)).toBe(true);
    await until('the confirmation mail', async () => ((await mailFor(signupEmail)).length === 1 ? true : undefined));
  });

  test('concurrent retry runs send each pending message exactly once', async () => {
    const admin = t.admin<Database>();
    const emails = Array.from({ length: 6 }, () => address('queued'));
    const { error } = await admin
      .from('contact_messages')
      .insert(emails.map((email, i) => ({ name: 'Queued', email, subject: `Queued ${i}`, message: 'Waiting' })));
    expect(error).toBeNull();
    // Four callers at once, beside the stack's own timer; the secret key counts as the service role too.
    const calls = await Promise.all(
      [t.config.serviceRoleKey, t.config.secretKey, t.config.serviceRoleKey, t.config.secretKey].map((key) =>
        fetch(`${t.url}${RETRY_PATH}`, { method: 'POST', headers: { apikey: key } }),
      ),
    );
    for (const res of calls) {
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ success: true });
    }
    await until('every queued message to be sent', async () => {
      const { data } = await admin.from('contact_messages').select('delivery_status').in('email', emails);
      return (data ?? []).every((r) => r.delivery_status === 'sent') ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 600));
    for (const [i, email] of emails.entries()) expect(await mailFor(email)).toEqual([{ Subject: `Queued ${i}` }]);
  });
});
