// [auth.captcha] as the stack reads it: config.toml's keys, the CLI's environment overrides, GoTrue's refusals.
import { describe, expect, test } from 'vitest';
import { loadCaptchaSettings, SITEVERIFY_URLS } from '../../src/auth/captcha.ts';

const toml = (captcha: Record<string, unknown>) => ({ auth: { captcha } });
const project = toml({ enabled: false, provider: 'turnstile', secret: 'env(TURNSTILE_SECRET_KEY)' });

describe('loadCaptchaSettings', () => {
  test('off: no table, enabled = false, or the environment says false', () => {
    expect(loadCaptchaSettings({}, {})).toBeNull();
    expect(loadCaptchaSettings(project, { TURNSTILE_SECRET_KEY: 's' })).toBeNull();
    expect(
      loadCaptchaSettings(toml({ enabled: true, provider: 'turnstile', secret: 's' }), {
        SUPABASE_AUTH_CAPTCHA_ENABLED: 'false',
      }),
    ).toBeNull();
  });

  test('on in the file: the secret from env(NAME), siteverify where GoTrue sends it', () => {
    expect(
      loadCaptchaSettings(toml({ enabled: true, provider: 'turnstile', secret: 'env(TURNSTILE_SECRET_KEY)' }), {
        TURNSTILE_SECRET_KEY: ' the-secret ',
      }),
    ).toEqual({
      provider: 'turnstile',
      secret: 'the-secret',
      verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      timeoutMs: 10_000,
    });
    expect(SITEVERIFY_URLS.hcaptcha).toBe('https://hcaptcha.com/siteverify');
  });

  test('switched on by the environment, as `SUPABASE_AUTH_CAPTCHA_ENABLED=true supabase config push` does', () => {
    expect(
      loadCaptchaSettings(project, {
        SUPABASE_AUTH_CAPTCHA_ENABLED: 'true',
        TURNSTILE_SECRET_KEY: 'the-secret',
        CAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify',
      }),
    ).toMatchObject({ provider: 'turnstile', secret: 'the-secret', verifyUrl: 'http://127.0.0.1:9/siteverify' });
    expect(
      loadCaptchaSettings(
        {},
        {
          SUPABASE_AUTH_CAPTCHA_ENABLED: '1',
          SUPABASE_AUTH_CAPTCHA_PROVIDER: 'turnstile',
          SUPABASE_AUTH_CAPTCHA_SECRET: 'other',
        },
      ),
    ).toMatchObject({ provider: 'turnstile', secret: 'other' });
  });

  test.each([
    ['an unset secret', project, { SUPABASE_AUTH_CAPTCHA_ENABLED: 'true' }, 'env(TURNSTILE_SECRET_KEY) is unset'],
    ['no secret', toml({ enabled: true, provider: 'turnstile' }), {}, 'its secret is empty'],
    ['an unknown provider', toml({ enabled: true, provider: 'recaptcha', secret: 's' }), {}, 'provider "recaptcha"'],
    ['a switch that is not a boolean', project, { SUPABASE_AUTH_CAPTCHA_ENABLED: 'yes' }, 'is not true or false'],
  ])('on with %s: the stack does not start', (_name, file, env, message) => {
    expect(() => loadCaptchaSettings(file, env)).toThrow(message);
  });
});
