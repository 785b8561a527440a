// Guessing a mailed code: failed verifications are counted per account and per code, whatever address they
// come from. After 10 misses the code (and the link of the same mail) is dead; a new mail brings a new code
// that works. Each guess comes from its own client address (X-Forwarded-For through a trusted proxy on
// loopback), so the per-address limit never stops them.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { confirmedUser, openLink, raw, uniqueEmail, verifyLink } from '../../testing/auth-helpers.ts';
import { signupVerifyLink } from '../../testing/confirmation-link.ts';
import type { MailMessage } from '../../testing/stack.ts';
import { startTestStack, type TestStack } from '../../testing/stack.ts';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack({ rateLimits: true, trustedProxies: '127.0.0.1', authOverrides: { emailMaxFrequency: 0 } });
});
afterAll(() => t?.stop());

const codeOf = (mail: MailMessage) => /code: (\d{6})/.exec(mail.Text)![1];
/** A six-digit code that is not `code`. */
const wrongCode = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

async function verifyFrom(ip: string, body: Record<string, unknown>) {
  return raw(t, '/verify', { body, headers: { 'X-Forwarded-For': ip } });
}

async function guessWrong(email: string, type: string, code: string, misses: number) {
  for (let i = 0; i < misses; i++) {
    const res = await verifyFrom(`203.0.113.${i + 1}`, { type, email, token: wrongCode(code, i) });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('otp_expired');
  }
}

test('10 wrong sign-up codes from 10 addresses: the right code and the link then fail; a new mail works', async () => {
  const email = uniqueEmail('guess');
  const signUp = await raw(t, '/signup', { body: { email, password: 'Sup3r-secret!' } });
  expect(signUp.status).toBe(200);
  const mail = await t.mail.waitFor(email);
  const code = codeOf(mail);

  await guessWrong(email, 'signup', code, 10);
  const right = await verifyFrom('198.51.100.1', { type: 'signup', email, token: code });
  expect(right.status).toBe(403);
  expect(right.body.code).toBe('otp_expired');
  expect((await openLink(signupVerifyLink(t, mail))).location).toContain('error_code=otp_expired');

  await t.mail.clear();
  const resend = await raw(t, '/resend', { body: { type: 'signup', email } });
  expect(resend.status).toBe(200);
  const fresh = codeOf(await t.mail.waitFor(email));
  const ok = await verifyFrom('198.51.100.2', { type: 'signup', email, token: fresh });
  expect(ok.status).toBe(200);
  expect(ok.body.access_token).toBeTruthy();
});

test('9 misses leave the code alive; the 10th ends it (recovery, type email too)', async () => {
  const { email } = await confirmedUser(t, uniqueEmail('guess-recovery'));
  expect((await raw(t, '/recover', { body: { email } })).status).toBe(200);
  const code = codeOf(await t.mail.waitFor(email));
  await guessWrong(email, 'recovery', code, 9);
  const ok = await verifyFrom('198.51.100.3', { type: 'recovery', email, token: code });
  expect(ok.status).toBe(200);

  await t.mail.clear();
  expect((await raw(t, '/recover', { body: { email } })).status).toBe(200);
  const next = codeOf(await t.mail.waitFor(email));
  // Misses under type "email" count against the same code.
  await guessWrong(email, 'email', next, 10);
  const dead = await verifyFrom('198.51.100.4', { type: 'recovery', email, token: next });
  expect(dead.status).toBe(403);
});

test("a mailed link's token cannot be computed from the address and the six-digit code", async () => {
  const { email } = await confirmedUser(t, uniqueEmail('guess-link'));
  expect((await raw(t, '/recover', { body: { email } })).status).toBe(200);
  const mail = await t.mail.waitFor(email);
  const token = new URL(verifyLink(mail)).searchParams.get('token')!;
  expect(token).toMatch(/^[0-9a-f]{56}$/);
  expect(token).not.toBe(
    createHash('sha224')
      .update(email + codeOf(mail))
      .digest('hex'),
  );
  // Guessing links by hash: each miss names no account; the real link still works.
  for (let i = 0; i < 10; i++) {
    const guess = createHash('sha224')
      .update(email + wrongCode(codeOf(mail), i))
      .digest('hex');
    const { location } = await openLink(`${t.url}/auth/v1/verify?token=${guess}&type=recovery`);
    expect(location).toContain('error_code=otp_expired');
  }
  expect((await openLink(verifyLink(mail))).location).toContain('type=recovery');
});
