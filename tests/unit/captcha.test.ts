// The site's side of the CAPTCHA without a browser: the build's site key, the pages' CSP with and without it,
// where a token goes, and how the widget's single-use tokens reach the forms.
import { describe, expect, test } from 'vitest';
import { signInFailure } from '../../src/lib/auth-forms.ts';
import {
  bodyWithCaptcha,
  CAPTCHA_MESSAGE,
  captchaSiteKey,
  isCaptchaRefusal,
  TURNSTILE_FRAME_ORIGIN,
  TURNSTILE_SCRIPT,
} from '../../src/lib/captcha.ts';
import { createTokenSlot } from '../../src/lib/captcha-tokens.ts';
import { allowCaptcha } from '../../src/lib/csp.ts';

/** What a page's frontmatter call puts into Astro's CSP. */
function policyOf(siteKey: string) {
  const resources: string[] = [];
  const directives: string[] = [];
  allowCaptcha(
    { csp: { insertScriptResource: (r) => resources.push(r), insertDirective: (d) => directives.push(d) } },
    siteKey,
  );
  return { resources, directives };
}

describe('captchaSiteKey', () => {
  test.each([
    [undefined, ''],
    ['', ''],
    ['  ', ''],
    ['1x00000000000000000000AA', '1x00000000000000000000AA'],
    [' 0x4AAAAAAABkMYinukE8nzY_ ', '0x4AAAAAAABkMYinukE8nzY_'],
  ])('%j → %j', (value, key) => {
    expect(captchaSiteKey(value)).toBe(key);
  });

  test('a value that cannot be a key stops the build', () => {
    expect(() => captchaSiteKey('"><script>')).toThrow('is not a Turnstile site key');
  });
});

describe('the CSP of a page with a form', () => {
  test('with a site key: exactly Turnstile’s script URL and its frame origin', () => {
    expect(policyOf('1x00000000000000000000AA')).toEqual({
      resources: ["'self'", 'https://challenges.cloudflare.com/turnstile/v0/api.js'],
      directives: ['frame-src https://challenges.cloudflare.com'],
    });
    expect(TURNSTILE_SCRIPT).toBe('https://challenges.cloudflare.com/turnstile/v0/api.js');
    expect(TURNSTILE_FRAME_ORIGIN).toBe('https://challenges.cloudflare.com');
  });

  test('without one: unchanged', () => {
    expect(policyOf('')).toEqual({ resources: [], directives: [] });
  });
});

describe('where the token goes', () => {
  test('a function’s body gets captchaToken only when there is a token', () => {
    expect(bodyWithCaptcha({ email: 'a@b.co' }, 'tok')).toEqual({ email: 'a@b.co', captchaToken: 'tok' });
    expect(bodyWithCaptcha({ email: 'a@b.co' }, undefined)).toEqual({ email: 'a@b.co' });
  });

  test('a refusal is told by the auth service’s code, from the auth service or a function', () => {
    expect(isCaptchaRefusal({ code: 'captcha_failed' })).toBe(true);
    expect(isCaptchaRefusal({ code: 'invalid_credentials' })).toBe(false);
    expect(isCaptchaRefusal(null)).toBe(false);
    expect(CAPTCHA_MESSAGE).toBe('The security check did not pass. Please try again.');
  });

  test('a sign-in the auth service refused for its CAPTCHA says so in words, not in its own', () => {
    expect(
      signInFailure({
        code: 'captcha_failed',
        message: 'captcha protection: request disallowed (invalid-input-response)',
      }),
    ).toEqual({ title: 'signInFailedTitle', text: CAPTCHA_MESSAGE });
  });
});

describe('createTokenSlot', () => {
  test('a token is handed out once', async () => {
    const slot = createTokenSlot();
    slot.put('t1');
    expect(await slot.take()).toBe('t1');
    let second: string | undefined = 'none yet';
    void slot.take().then((t) => {
      second = t;
    });
    await Promise.resolve();
    expect(second).toBe('none yet');
    slot.put('t2');
    await Promise.resolve();
    expect(second).toBe('t2');
  });

  test('a caller that asked first waits for the widget', async () => {
    const slot = createTokenSlot();
    const waiting = slot.take();
    slot.put('t1');
    expect(await waiting).toBe('t1');
  });

  test('two callers get two tokens', async () => {
    const slot = createTokenSlot();
    const a = slot.take();
    const b = slot.take();
    slot.put('t1');
    slot.put('t2');
    expect([await a, await b]).toEqual(['t1', 't2']);
  });

  test('an expired token is not handed out', async () => {
    const slot = createTokenSlot();
    slot.put('old');
    slot.expire();
    const next = slot.take();
    slot.put('new');
    expect(await next).toBe('new');
  });

  test('a failed widget lets waiting callers go on without a token, and a later token still counts', async () => {
    const slot = createTokenSlot();
    const waiting = slot.take();
    slot.fail();
    expect(await waiting).toBeUndefined();
    slot.put('t3');
    expect(await slot.take()).toBe('t3');
  });
});
