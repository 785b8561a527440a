// GoTrue's redirect allow-list (internal/utilities/request.go, IsRedirectURLValid): SITE_URL's scheme, host
// and port, or a match of additional_redirect_urls as globs; otherwise SITE_URL. One difference on purpose:
// GoTrue also takes any loopback IP on any port and SITE_URL's host on any loopback port (native apps,
// RFC 8252); the local stack does not, so a token-bearing link cannot be aimed at whatever else listens on
// the developer's machine. Loopback targets are allowed only as SITE_URL's own origin or when a glob
// (config.toml's list or LOCAL_REDIRECT_URLS) names them.
import { isIP } from 'node:net';

/** gobwas/glob with "." and "/" as separators: "*" stays within a segment, "**" crosses them. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        i++;
      } else {
        re += '[^./]*';
      }
    } else if (ch === '?') {
      re += '[^./]';
    } else if (ch === '{') {
      const end = pattern.indexOf('}', i);
      if (end < 0) {
        re += '\\{';
        continue;
      }
      const alternatives = pattern.slice(i + 1, end).split(',');
      re += `(?:${alternatives.map((a) => globToRegExp(a).source.slice(1, -1)).join('|')})`;
      i = end;
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (ch === '\\' && i + 1 < pattern.length) {
      re += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else {
      re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

function isLoopbackIp(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

const decimalIp = /^[0-9]+$/;
const regularHostname = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

export class RedirectAllowList {
  private siteUrl: string;
  private patterns: RegExp[];

  constructor(siteUrl: string, additional: string[]) {
    this.siteUrl = siteUrl;
    this.patterns = additional.filter(Boolean).map(globToRegExp);
  }

  isValid(redirectUrl: string | undefined | null): boolean {
    if (!redirectUrl) return false;
    if ([...redirectUrl].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f)) return false;
    let base: URL;
    let ref: URL;
    try {
      base = new URL(this.siteUrl);
      ref = new URL(redirectUrl);
    } catch {
      return false;
    }
    const refHost = ref.hostname.replace(/^\[|\]$/g, '');
    if (base.hostname === ref.hostname && base.protocol === ref.protocol && base.port === ref.port) return true;
    const isHttp = ref.protocol === 'http:' || ref.protocol === 'https:';
    if (decimalIp.test(refHost)) return false;
    // Other IP literals never; a loopback one only through a glob (see above).
    if (isIP(refHost) && !isLoopbackIp(refHost)) return false;
    if (isHttp && !regularHostname.test(refHost)) return false;
    const withoutFragment = redirectUrl.split('#')[0];
    return this.patterns.some((p) => p.test(withoutFragment));
  }

  /** GetReferrer: the redirect_to asked for when allowed, else the Referer header when allowed, else SITE_URL. */
  referrer(requested: string | undefined | null, refererHeader?: string | null): string {
    if (this.isValid(requested)) return requested as string;
    if (this.isValid(refererHeader)) return refererHeader as string;
    return this.siteUrl;
  }
}
