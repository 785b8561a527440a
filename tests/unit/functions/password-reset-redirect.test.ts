import { describe, expect, it } from 'vitest';
import { isAllowedRedirect, resetRedirect } from '../../../supabase/functions/password-reset/redirect.ts';

const policy = {
  siteUrl: 'https://signals.example',
  additional: 'https://preview-*.signals.example/**, http://localhost:4321/**',
};

describe('password-reset redirect allow-list', () => {
  it.each([
    ['the site reset page', 'https://signals.example/auth?tab=reset', true],
    ['another page of the site', 'https://signals.example/anything', true],
    ['an additional URL glob', 'https://preview-42.signals.example/auth?tab=reset', true],
    ['localhost from the list', 'http://localhost:4321/auth?tab=reset', true],
    ['another origin', 'https://evil.example/auth?tab=reset', false],
    ['a look-alike host', 'https://signals.example.evil.example/auth', false],
    ['another scheme on the site host', 'http://signals.example/auth', false],
    ['another port on the site host', 'https://signals.example:8443/auth', false],
    ['credentials in the URL', 'https://user:pass@signals.example/auth', false],
    ['javascript:', 'javascript:alert(1)', false],
    ['a relative path', '/auth?tab=reset', false],
    ['"*" does not cross a dot', 'https://preview-1.x.signals.example/auth', false],
  ])('%s', (_, url, ok) => {
    expect(isAllowedRedirect(url, policy)).toBe(ok);
  });

  it('falls back to SITE_URL/auth?tab=reset', () => {
    expect(resetRedirect('https://evil.example/', policy)).toBe('https://signals.example/auth?tab=reset');
    expect(resetRedirect(undefined, { siteUrl: 'http://127.0.0.1:4321/' })).toBe(
      'http://127.0.0.1:4321/auth?tab=reset',
    );
    expect(resetRedirect('https://signals.example/auth?tab=reset', policy)).toBe(
      'https://signals.example/auth?tab=reset',
    );
  });
});
