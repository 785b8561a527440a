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

test('the verification mail carries the link in text and HTML and says how long it works', () => {
  const link = 'https://abc.supabase.co/functions/v1/newsletter-signup?token=t';
  const mail = verificationMail('ann@example.com', link);
  expect(mail.to).toBe('ann@example.com');
  expect(mail.subject).toBe('Confirm your SignalOne newsletter subscription');
  expect(mail.text).toContain(`\n${link}\n`);
  expect(mail.text).toContain('24 hours');
  expect(mail.html).toContain(`<a href="${link}">`);
});
