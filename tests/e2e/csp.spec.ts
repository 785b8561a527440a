import { expect, test } from '@playwright/test';

// Every page carries a CSP without 'unsafe-inline' for scripts; each of its own scripts must be allowed.
const routes = [
  '/',
  '/auth',
  '/dashboard',
  '/analysis',
  '/settings',
  '/about-us',
  '/features',
  '/signals',
  '/track-record',
  '/news',
  '/investing-news',
  '/trading-ideas',
  '/how-it-works',
  '/vps-hosting',
  '/setup-guide',
  '/contact-us',
  '/faq',
  '/support',
  '/risk-management',
  '/privacy',
  '/principles',
  '/quiz',
  '/newsletter-verified?type=user',
  '/newsletter-verified?status=unsubscribed',
  '/no-such-page',
];

for (const route of routes) {
  test(`${route}: no Content-Security-Policy violation`, async ({ page }) => {
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.goto(route);
    // /dashboard and /settings send a visitor without a session on to /auth: check the page it lands on.
    if (route === '/dashboard' || route === '/settings') await page.waitForURL(/\/auth\/?$/);
    await page.waitForLoadState('networkidle');
    const csp = await page.locator('meta[http-equiv="content-security-policy"]').getAttribute('content');
    // /trading-ideas also names the chart widget's script, by its full URL.
    expect(csp).toMatch(/script-src 'self' (https:\/\/[\w./-]+ )*'sha256-/);
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });
}
