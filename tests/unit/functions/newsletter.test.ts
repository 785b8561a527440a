import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  hashToken,
  isTokenShaped,
  landingUrl,
  newToken,
  RESEND_AFTER_MS,
  TOKEN_TTL_MS,
  verificationMail,
  verifyLink,
} from '../../../supabase/functions/newsletter-signup/newsletter.ts';
import { unsubscribeKey, unsubscribeUrl } from '../../../supabase/functions/newsletter-signup/unsubscribe.ts';

describe('tokens', () => {
  test('a new token is 32 random bytes in base64url, stored only as its SHA-256', async () => {
    const a = await newToken();
    const b = await newToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(createHash('sha256').update(a.token).digest('hex'));
    expect(await hashToken(a.token)).toBe(a.hash);
    expect(isTokenShaped(a.token)).toBe(true);
  });

  test.each([[null], [undefined], [''], ['A'.repeat(42)], ['A'.repeat(44)], [`${'A'.repeat(42)}=`], ['a b']])(
    '%j is not a token',
    (token) => {
      expect(isTokenShaped(token)).toBe(false);
    },
  );

  test('a link works for 24 hours; another mail may go out after an hour', () => {
    expect(TOKEN_TTL_MS).toBe(24 * 3_600_000);
    expect(RESEND_AFTER_MS).toBe(3_600_000);
  });
});

describe('links', () => {
  test.each([
    ['https://abc.supabase.co', 'https://abc.supabase.co/functions/v1/newsletter-signup?token=tok_-1'],
    ['http://127.0.0.1:54321/', 'http://127.0.0.1:54321/functions/v1/newsletter-signup?token=tok_-1'],
  ])('the verification link on %s', (api, link) => {
    expect(verifyLink(api, 'tok_-1')).toBe(link);
  });

  test.each([
    ['verified', 'https://signals.example/newsletter-verified'],
    ['expired', 'https://signals.example/newsletter-verified?status=expired'],
    ['invalid', 'https://signals.example/newsletter-verified?status=invalid'],
  ] as const)('%s lands on %s', (outcome, url) => {
    expect(landingUrl('https://signals.example/', outcome)).toBe(url);
  });
});

test('the verification mail carries the link in text and HTML, says how long it works, and an unsubscribe link with its headers', () => {
  const link = 'https://abc.supabase.co/functions/v1/newsletter-signup?token=t';
  const unsubscribe = 'https://abc.supabase.co/functions/v1/newsletter-signup/unsubscribe?id=i&token=u';
  const mail = verificationMail('ann@example.com', link, unsubscribe);
  expect(mail.to).toBe('ann@example.com');
  expect(mail.subject).toBe('Confirm your SignalOne newsletter subscription');
  expect(mail.text).toContain(`\n${link}\n`);
  expect(mail.text).toContain('24 hours');
  expect(mail.html).toContain(`<a href="${link}">`);
  expect(mail.text).toContain(`\n${unsubscribe}\n`);
  // Escaped as every mail the functions send is (_shared/html.ts): numeric references, which every mail client reads.
  expect(mail.html).toContain(`<a href="${unsubscribe.replace('&', '&#38;')}">Unsubscribe</a>`);
  expect(mail.headers).toEqual({
    'List-Unsubscribe': `<${unsubscribe}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  });
});

describe('unsubscribe tokens', () => {
  const env = (secret?: string) => ({ get: (name: string) => (name === 'UNSUBSCRIBE_SECRET' ? secret : undefined) });
  const id = '0b9a9c43-6d0e-4c59-9f0c-2b8f6d1e7a01';
  const other = '5f1d2c3b-4a59-4e68-8d7c-6b5a49382716';

  test('an HMAC of the id: 43 base64url characters, the same for the same id and secret, checked only for that id', async () => {
    const key = await unsubscribeKey(env('s'.repeat(32)));
    const token = await key.token(id);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await key.token(id)).toBe(token);
    expect(await key.check(id, token)).toBe(true);
    expect(await key.check(other, token)).toBe(false);
    expect(await key.check(id, await key.token(other))).toBe(false);
    expect(await key.check(id, `${token.slice(0, 42)}${token.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(await key.check(id, 'not a token')).toBe(false);
    expect(await key.check('not-a-uuid', token)).toBe(false);
    // Another secret, another token: a link cannot be made without the key.
    expect(await (await unsubscribeKey(env('t'.repeat(32)))).check(id, token)).toBe(false);
  });

  test.each([[undefined], [''], ['short secret']])('UNSUBSCRIBE_SECRET %j is refused, naming it', async (secret) => {
    await expect(unsubscribeKey(env(secret))).rejects.toThrow(/UNSUBSCRIBE_SECRET must be set/);
  });

  test("the URL is the function's /unsubscribe path on the public API URL", () => {
    expect(unsubscribeUrl('https://abc.supabase.co/', 'newsletter-signup', id, 'tok')).toBe(
      `https://abc.supabase.co/functions/v1/newsletter-signup/unsubscribe?id=${id}&token=tok`,
    );
  });
});
