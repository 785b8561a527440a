// The functions' CAPTCHA check: the token a body carries, Turnstile's siteverify (the stand-in verifier on
// 127.0.0.1, answering as Cloudflare does), and what a function answers when the check does not pass.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type CaptchaVerifierServer, startCaptchaVerifier } from '../../../scripts/lib/captcha-verifier.ts';
import {
  CAPTCHA_MESSAGE,
  CAPTCHA_UNAVAILABLE_MESSAGE,
  type CaptchaCheck,
  captchaRefusal,
  captchaTokenOf,
  captchaVerifier,
  withCaptchaToken,
} from '../../../supabase/functions/_shared/captcha.ts';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import { validatePasswordReset } from '../../../supabase/functions/_shared/schemas.ts';

describe('captchaTokenOf', () => {
  test.each([
    ['a token', { captchaToken: 'abc.def' }, 'abc.def'],
    ['trimmed', { captchaToken: '  abc  ' }, 'abc'],
    ['empty', { captchaToken: '' }, undefined],
    ['blank', { captchaToken: '   ' }, undefined],
    ['not text', { captchaToken: 42 }, undefined],
    ['absent', { email: 'a@b.co' }, undefined],
    ['longer than Turnstile makes them', { captchaToken: 'x'.repeat(2049) }, undefined],
    ['Turnstile’s longest', { captchaToken: 'x'.repeat(2048) }, 'x'.repeat(2048)],
    ['no object', null, undefined],
  ])('%s', (_name, body, expected) => {
    expect(captchaTokenOf(body)).toBe(expected);
  });
});

describe('withCaptchaToken', () => {
  const validate = withCaptchaToken(validatePasswordReset);

  test('keeps the token beside the fields the schema lets through', () => {
    expect(validate({ email: 'ann@example.com', captchaToken: 'tok' })).toEqual({
      ok: true,
      data: { fields: { email: 'ann@example.com', redirectTo: undefined }, captchaToken: 'tok' },
    });
  });

  test('a body without a token validates as before', () => {
    expect(validate({ email: 'ann@example.com' })).toMatchObject({ ok: true, data: { captchaToken: undefined } });
  });

  test("the form's own errors come first", () => {
    expect(validate({ email: 'nope', captchaToken: 'tok' })).toMatchObject({ ok: false, field: 'email' });
  });
});

describe('captchaVerifier against siteverify', () => {
  let server: CaptchaVerifierServer;
  beforeAll(async () => {
    server = await startCaptchaVerifier();
  });
  afterAll(() => server?.close());

  const env = (secret = server.secret) => envFrom({ TURNSTILE_SECRET_KEY: secret, TURNSTILE_VERIFY_URL: server.url });

  test('without TURNSTILE_SECRET_KEY nothing is checked and nothing is asked', async () => {
    const before = server.calls.length;
    const verifier = captchaVerifier(envFrom({ TURNSTILE_VERIFY_URL: server.url }));
    expect(verifier.enabled).toBe(false);
    expect(await verifier.check(undefined, '198.51.100.1')).toEqual({ ok: true, checked: false });
    expect(server.calls.length).toBe(before);
  });

  test('a token the widget gave passes once, with the visitor address sent on', async () => {
    const verifier = captchaVerifier(env());
    const token = server.issue();
    expect(await verifier.check(token, '198.51.100.7')).toEqual({ ok: true, checked: true });
    expect(server.calls.at(-1)).toEqual({ token, remoteip: '198.51.100.7', success: true, codes: [] });
    expect(await verifier.check(token, '198.51.100.7')).toEqual({
      ok: false,
      reason: 'refused',
      codes: ['timeout-or-duplicate'],
    });
  });

  test('a forged token is refused; a missing one is refused without asking', async () => {
    const verifier = captchaVerifier(env());
    expect(await verifier.check('forged', 'unknown')).toEqual({
      ok: false,
      reason: 'refused',
      codes: ['invalid-input-response'],
    });
    expect(server.calls.at(-1)?.remoteip).toBeUndefined();
    const before = server.calls.length;
    expect(await verifier.check(undefined, '198.51.100.7')).toMatchObject({ ok: false, reason: 'missing' });
    expect(server.calls.length).toBe(before);
  });

  test('a wrong secret is refused', async () => {
    expect(await captchaVerifier(env('not-the-secret')).check(server.issue(), 'unknown')).toEqual({
      ok: false,
      reason: 'refused',
      codes: ['invalid-input-secret'],
    });
  });

  test('siteverify down or unreachable is "unavailable", not a refusal', async () => {
    await fetch(new URL('/down', server.url), { method: 'POST' });
    try {
      expect(await captchaVerifier(env()).check(server.issue(), 'unknown')).toMatchObject({
        ok: false,
        reason: 'unavailable',
      });
    } finally {
      await fetch(new URL('/up', server.url), { method: 'POST' });
    }
    const nowhere = envFrom({ TURNSTILE_SECRET_KEY: 's', TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify' });
    expect(await captchaVerifier(nowhere).check('tok', 'unknown')).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
  });
});

describe('captchaRefusal', () => {
  const refused: CaptchaCheck = { ok: false, reason: 'refused', codes: ['invalid-input-response'] };
  const unavailable: CaptchaCheck = { ok: false, reason: 'unavailable', detail: 'down' };

  test('a passed or skipped check lets the request go on', () => {
    expect(captchaRefusal({ ok: true, checked: true }, 'f', 'closed')).toBeNull();
    expect(captchaRefusal({ ok: true, checked: false }, 'f', 'closed')).toBeNull();
  });

  test('a refused or missing token: 400 with the sentence and the auth service’s code', async () => {
    for (const check of [refused, { ok: false, reason: 'missing', codes: [] } as CaptchaCheck]) {
      const res = captchaRefusal(check, 'f', 'open');
      expect(res?.status).toBe(400);
      expect(await res?.json()).toEqual({ error: CAPTCHA_MESSAGE, code: 'captcha_failed' });
    }
  });

  test('Turnstile unreachable: 503 when the function fails closed, through when open', async () => {
    const res = captchaRefusal(unavailable, 'f', 'closed');
    expect(res?.status).toBe(503);
    expect(res?.headers.get('retry-after')).toBe('60');
    expect(await res?.json()).toEqual({ error: CAPTCHA_UNAVAILABLE_MESSAGE, code: 'captcha_failed' });
    expect(captchaRefusal(unavailable, 'f', 'open')).toBeNull();
  });
});
