import { expect, test } from '@playwright/test';
import { API } from './env.ts';

// The site server sends the build's _headers rules, as Netlify and Cloudflare Pages do for the same build.

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name, sources]),
  );
}

for (const route of ['/', '/faq/', '/auth', '/trading-ideas', '/dashboard/']) {
  // The page as the host serves it, read without rendering it: its headers, and the policy in its <meta>.
  test(`${route}: the header policy holds the page's own hashes and the header-only directives`, async ({
    request,
  }) => {
    const response = await request.get(route);
    expect(response.status()).toBe(200);
    const headers = response.headers();
    const header = directives(headers['content-security-policy'] ?? '');
    const html = await response.text();
    const tag = /<meta[^>]*http-equiv="content-security-policy"[^>]*>/i.exec(html)?.[0] ?? '';
    const meta = directives(
      /content="([^"]*)"/.exec(tag)?.[1]?.replaceAll('&#39;', "'").replaceAll('&quot;', '"') ?? '',
    );
    expect(meta.get('script-src')?.length).toBeGreaterThan(0);
    expect(header.get('script-src')).toEqual(meta.get('script-src'));
    expect(header.get('style-src')).toEqual(meta.get('style-src'));
    expect(header.get('frame-ancestors')).toEqual(["'none'"]);
    expect(header.get('connect-src')).toEqual([
      "'self'",
      new URL(API).origin,
      new URL(API).origin.replace(/^http/, 'ws'),
    ]);
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    const chart = route === '/trading-ideas';
    // The chart widget's one script URL on /trading-ideas, never the whole origin it is served from.
    const tradingView = (header.get('script-src') ?? []).filter((source) => source.includes('tradingview'));
    expect(tradingView).toEqual(
      chart ? ['https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js'] : [],
    );
    expect(header.get('frame-src')).toEqual(chart ? ['https://www.tradingview-widget.com'] : ["'none'"]);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(headers['permissions-policy']).toContain('camera=()');
    expect(headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
  });
}

test('another site cannot frame a page', async ({ page, baseURL }) => {
  await page.goto('/faq');
  const heading = (await page.locator('h1').textContent())?.trim() ?? '';
  expect(heading).not.toBe('');
  // A page of another origin (the API's) framing the site, beside a frame it may show.
  await page.goto(`${API}/auth/v1/health`);
  await page.setContent(
    `<iframe title="control" srcdoc="<h1>Framed</h1>"></iframe><iframe title="site" src="${baseURL}/faq"></iframe>`,
  );
  await expect(page.frameLocator('iframe[title="control"]').locator('h1')).toHaveText('Framed');
  // The browser shows its own error page in the frame instead of the site's.
  const site = page.frameLocator('iframe[title="site"]');
  await expect(site.locator('body')).toBeAttached();
  await page.waitForTimeout(1000);
  await expect(site.getByText(heading)).toHaveCount(0);
});

test('the host configuration files are not served', async ({ request }) => {
  for (const path of ['/_headers', '/_headers.nginx.conf']) {
    expect((await request.get(path)).status()).toBe(404);
  }
});
