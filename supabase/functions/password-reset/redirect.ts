// Which reset-link targets the function passes on: SITE_URL's origin, or a match of the project's
// additional redirect URLs (AUTH_REDIRECT_URLS, the same globs as config.toml's additional_redirect_urls).
// Anything else falls back to SITE_URL/auth?tab=reset, so a crafted request cannot send the link elsewhere.

export const RESET_PATH = '/auth?tab=reset';

/** A glob as the auth service reads it: "*" stays within a "." or "/" segment, "**" crosses them. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (ch === '*') re += '[^./]*';
    else if (ch === '?') re += '[^./]';
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export interface RedirectPolicy {
  siteUrl: string;
  /** Comma- or space-separated globs. */
  additional?: string;
}

export function defaultResetRedirect(siteUrl: string): string {
  return `${siteUrl.replace(/\/+$/, '')}${RESET_PATH}`;
}

export function isAllowedRedirect(candidate: string, policy: RedirectPolicy): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password) return false;
  if (url.origin === new URL(policy.siteUrl).origin) return true;
  const withoutFragment = candidate.split('#')[0];
  return (policy.additional ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((glob) => globToRegExp(glob).test(withoutFragment));
}

/** The redirect the reset mail carries: the one asked for when allowed, else the site's reset page. */
export function resetRedirect(requested: string | undefined, policy: RedirectPolicy): string {
  return requested && isAllowedRedirect(requested, policy) ? requested : defaultResetRedirect(policy.siteUrl);
}
