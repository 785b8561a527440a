import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';

interface Route {
  path: string;
  title: string;
  h1: string;
  /** Texts a visitor must see in the main content. */
  texts: string[];
  /** Links in the main content: accessible name -> href. */
  links: [string, string][];
}

const routes: Route[] = [
  {
    path: '/',
    title: 'AI Forex Trading Signals in Under a Second | SignalOne',
    h1: 'Autonomous AI agents for smarter forex trading',
    texts: [
      'Limited offer: 50% off certain signals',
      '+£254',
      'Live Signals Active',
      '100+ Active Traders',
      'High Win Rate',
      'Profits shown in demos are not guaranteed',
      'Smart trading hours',
      'Equity protection and loss limits',
      'Major pairs, 24/5',
      'Delivery in under a second',
      '24/7 autonomous agents',
      '99.99% VPS uptime',
      '7-day free trial',
      '30-day money-back guarantee',
      'Email',
      'SMS',
      'Web platform',
      'Signal delivery currently uses a third-party integration service. Direct broker integration is in development.',
      'Foundation One',
      'Growth One',
      'Momentum One',
    ],
    links: [
      ['View All Signals', '/signals'],
      ['Watch Demo', '/how-it-works#demo'],
      ['Find Your Perfect Signal', '/quiz'],
      ['Compare the tiers', '/principles'],
    ],
  },
  {
    path: '/about-us',
    title: 'About Us | SignalOne',
    h1: 'About SignalOne',
    texts: [
      'Our mission',
      'Precision',
      'Community',
      'Experience',
      'Real-time',
      'founded in 2025 by a team of software engineers',
    ],
    links: [
      ['Start Free Trial', '/auth?tab=signup'],
      ['View Our Signals', '/signals'],
    ],
  },
  {
    path: '/features',
    title: 'Features | SignalOne',
    h1: 'Everything you need to trade with confidence',
    texts: [
      'Real-Time Signals',
      'Advanced Analytics',
      'Risk Management',
      'Mobile Optimised',
      '24/5 Market Coverage',
      'Performance Tracking',
      'High win rate',
      'Under 1s delivery',
      '24/5 monitoring',
    ],
    links: [
      ['Start Free Trial', '/auth?tab=signup'],
      ['View Live Signals', '/signals'],
    ],
  },
  {
    path: '/signals',
    title: 'Live Forex Signals and Results | SignalOne',
    h1: 'Live forex signals',
    texts: [
      'Current signals',
      'Recent results',
      'What You Get',
      'Entry points',
      'Risk management',
      'Multiple targets',
      // Signal bands, SPEC §9
      'Above 10',
      'Under 10%',
      'Above 90%',
      'Stop after 3 losses or a 5% equity dip',
      '1-2 per month',
      'Above 2.5',
      'Under 20%',
      'Above 65%',
      'Stop after 5 losses or a 12% dip',
      '1-2 per week',
      'Above 1.5',
      'Under 30%',
      'Above 55%',
      'Stop after 5 losses or a 20% dip',
      'Daily',
    ],
    links: [
      ['Take the Signal Quiz', '/quiz'],
      ['Start Free Trial', '/auth?tab=signup'],
    ],
  },
  {
    path: '/principles',
    title: '8 Principles and Signal Tiers | SignalOne',
    h1: 'The principles behind every signal',
    texts: [
      'Foundation One',
      'Growth One',
      'Momentum One',
      // Principles page figures, SPEC §9
      'Above 2',
      'Above 70%',
      'Under 10%',
      'Trading pauses at 5-10% losses',
      'Above 1.8',
      'Above 55%',
      'About 20-25%',
      'Above 1.2',
      'Above 45%',
      'About 30-40%',
    ],
    links: [
      ['View Signals', '/signals'],
      ['Start Free Trial', '/auth?tab=signup'],
    ],
  },
];

const main = (page: Page) => page.locator('main#main');

for (const route of routes) {
  test.describe(route.path, () => {
    test('answers 200 with its title, description, canonical URL and one h1', async ({ page }) => {
      const response = await page.goto(route.path);
      expect(response?.status()).toBe(200);
      await expect(page).toHaveTitle(route.title);
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      expect(description?.length).toBeGreaterThanOrEqual(50);
      expect(description?.length).toBeLessThanOrEqual(160);
      const canonical = await page.locator('link[rel="canonical"]').getAttribute('href');
      expect(new URL(canonical ?? '').pathname.replace(/\/$/, '')).toBe(route.path.replace(/\/$/, ''));
      await expect(page.locator('meta[property="og:image"]')).toHaveAttribute('content', /\/og-image\.png$/);
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(route.h1);
    });

    test('shows its copy and links', async ({ page }) => {
      await page.goto(route.path);
      for (const text of route.texts) {
        await expect(main(page).getByText(text, { exact: false }).first(), text).toBeVisible();
      }
      for (const [name, href] of route.links) {
        await expect(main(page).getByRole('link', { name, exact: true }).first(), name).toHaveAttribute('href', href);
      }
    });

    test('has no axe violations', async ({ browser }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(route.path);
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      await context.close();
    });
  });
}

test('titles and descriptions differ from page to page', async ({ request }) => {
  const heads = await Promise.all(
    routes.map(async ({ path }) => {
      const html = await (await request.get(path)).text();
      return [html.match(/<title>(.*?)<\/title>/)?.[1], html.match(/<meta name="description" content="([^"]*)"/)?.[1]];
    }),
  );
  expect(new Set(heads.map(([title]) => title)).size).toBe(routes.length);
  expect(new Set(heads.map(([, description]) => description)).size).toBe(routes.length);
});

test('home carries Organization JSON-LD and the demo hook on Watch Demo', async ({ page }) => {
  await page.goto('/');
  const ld = JSON.parse((await page.locator('script[type="application/ld+json"]').first().textContent()) ?? '{}');
  expect(ld['@type']).toBe('Organization');
  expect(ld.name).toBe('SignalOne');
  await expect(main(page).getByRole('link', { name: 'Watch Demo' })).toHaveAttribute('data-demo-open', '');
});

test('signals page: three sample signals and five results with their fields', async ({ page }) => {
  await page.goto('/signals');
  const live = page.locator('#live');
  const cards = live.getByRole('listitem');
  await expect(cards).toHaveCount(3);
  for (const card of await cards.all()) {
    await expect(card.getByText(/^(BUY|SELL)$/)).toBeVisible();
    await expect(card.getByText(/^(Active|TP1 Hit)$/)).toBeVisible();
    for (const label of ['Entry', 'Stop Loss', 'TP1', 'TP2', 'TP3', 'Timeframe', 'Risk/Reward']) {
      await expect(card.getByText(label, { exact: true })).toBeVisible();
    }
    await expect(card.getByText('1:3', { exact: true })).toBeVisible();
  }
  await expect(live.getByText('TP1 Hit')).toBeVisible();
  const rows = page.locator('#results tbody tr');
  await expect(rows).toHaveCount(5);
  await expect(rows.getByText(/^(WIN|LOSS)$/)).toHaveCount(5);
  await expect(rows.getByText(/^[+-]\d+ pips$/)).toHaveCount(5);
  await expect(page.locator('#bands').getByRole('heading', { level: 3 })).toHaveText([
    'Foundation One',
    'Growth One',
    'Momentum One',
  ]);
});

test('robots.txt allows all and names the sitemap', async ({ request }) => {
  const response = await request.get('/robots.txt');
  expect(response.status()).toBe(200);
  const body = await response.text();
  expect(body).toContain('User-agent: *');
  expect(body).toContain('Allow: /');
  expect(body).toMatch(/^Sitemap: https?:\/\/.+\/sitemap-index\.xml$/m);
});
