// The headers of the content editor at /admin/ (Decap CMS, scripts/lib/cms-admin.ts), apart from the public
// pages' rules (src/lib/security-headers.ts), which do not change for it. Decap is a single-page React app
// that compiles its config schema at run time (ajv: 'unsafe-eval') and writes its styles into <style>
// elements (emotion: 'unsafe-inline' for styles); it talks to the GitHub API and shows GitHub avatars and
// editors' uploads (blob: previews). Scripts still come only from this origin; nothing may frame it.
import type { HeaderRule } from './security-headers.ts';

/** The GitHub API the production admin reads and commits through. */
export const GITHUB_API = 'https://api.github.com';

export const ADMIN_ROUTES = ['/admin', '/admin/'];

export function adminPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src 'self' ${GITHUB_API}`,
    "frame-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** The admin page's rules: its own CSP, and no search engine indexes it (with the page's robots meta). */
export function adminRules(): HeaderRule[] {
  return ADMIN_ROUTES.map((path) => ({
    path,
    headers: [
      ['Content-Security-Policy', adminPolicy()],
      ['X-Robots-Tag', 'noindex, nofollow'],
    ],
  }));
}
