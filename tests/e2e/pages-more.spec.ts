import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page, test } from '@playwright/test';

interface Route {
  path: string;
  title: string;
  h1: string;
  /** Text a visitor must see in the main content. */
  texts?: string[];
  /** Links in the main content: accessible name -> href. */
  links?: [string, string][];
  noindex?: boolean;
}

const routes: Route[] = [
  {
    path: '/how-it-works',
    title: 'How It Works | SignalOne',
    h1: 'How It Works',
    texts: [
      'Sign Up',
      'Receive Signals',
      'Execute & Profit',
      'Market Monitoring',
      'Technical Analysis',
      'Risk Assessment',
      'Signal Generation',
      'ATR for volatility, RSI for momentum, moving averages for trend and support/resistance levels',
      'Key features',
    ],
    links: [
      ['Start Free Trial', '/auth?tab=signup'],
      ['View Live Signals', '/signals'],
    ],
  },
  {
    path: '/vps-hosting',
    title: 'VPS Hosting | SignalOne',
    h1: 'VPS Hosting',
    texts: ['99.99% uptime', '24/7 autonomous agents', 'Low latency'],
    links: [
      ['View Live Signals', '/signals'],
      ['How It Works', '/how-it-works'],
    ],
  },
  {
    path: '/setup-guide',
    title: 'Setup Guide | SignalOne',
    h1: 'Setup Guide',
    texts: [
      'Set up in three steps',
      'Entry Price',
      'Stop Loss',
      'Take Profit',
      'Risk/Reward',
      'Risk 1-3% per trade',
      'Minimum 1:2 risk-reward',
      'Start capital from £100',
      'we recommend £500-1000',
      'Risk disclaimer',
    ],
    links: [
      ['View Live Signals', '/signals'],
      ['How It Works', '/how-it-works'],
      ['Explore Features', '/features'],
    ],
  },
  {
    path: '/faq',
    title: 'FAQ | SignalOne',
    h1: 'Frequently Asked Questions',
    texts: ['What are forex trading signals?', 'How do I contact support?'],
    links: [
      ['Contact Us', '/contact-us'],
      ['Visit Support Centre', '/support'],
    ],
  },
  {
    path: '/support',
    title: 'Support Centre | SignalOne',
    h1: 'Support Centre',
    texts: ['Live Chat Support', 'Trading Guides', 'Video Tutorials', 'Community Forum', 'Popular help topics'],
  },
  {
    path: '/risk-management',
    title: 'Risk Management | SignalOne',
    h1: 'Risk Management',
    texts: [
      'Risk management policy',
      'never risk more than 2% of your account on a single trade',
      'How to evaluate a signal',
      'Capital preservation',
    ],
    links: [
      ['View Live Signals', '/signals'],
      ['Contact Us', '/contact-us'],
    ],
  },
  { path: '/newsletter-verified', title: 'Email Verified | SignalOne', h1: 'Email verified', noindex: true },
  {
    path: '/auth',
    title: 'Sign In or Sign Up | SignalOne',
    h1: 'Welcome to SignalOne',
    texts: ['Email', 'Password'],
    links: [['Back to Home', '/']],
  },
  {
    path: '/quiz',
    title: 'Risk-Profile Quiz | SignalOne',
    h1: 'Find Your Perfect Signal',
    texts: ['Answer five quick questions'],
  },
  { path: '/news', title: 'Market News | SignalOne', h1: 'Market News' },
  { path: '/investing-news', title: 'Investing News | SignalOne', h1: 'Investing News' },
  {
    path: '/trading-ideas',
    title: 'Trading Ideas | SignalOne',
    h1: 'Trading Ideas',
    texts: ['EURUSD', 'GBPUSD', 'USDJPY', 'Latest Market News'],
  },
  {
    path: '/contact-us',
    title: 'Contact Us | SignalOne',
    h1: 'Contact Us',
    texts: ['Technical support', 'Under 2 hrs', 'General enquiries', 'Under 24 hrs', 'Sales', 'Under 1 hr'],
  },
  // /dashboard and /settings send a visitor to /auth: tests/e2e/member.spec.ts covers them.
  {
    path: '/analysis',
    title: 'Market Analysis | SignalOne',
    h1: 'Market Analysis',
    noindex: true,
    texts: ['Please sign in to access market analysis.'],
    links: [['Sign In', '/auth?tab=signin']],
  },
];

const main = (page: Page): Locator => page.locator('main');

for (const route of routes) {
  test(`${route.path}: title, one h1 and the page's copy`, async ({ page }) => {
    const response = await page.goto(route.path);
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(route.title);
    await expect(page.locator('h1')).toHaveCount(1);
    await expect(page.locator('h1')).toHaveText(route.h1);
    const description = await page.locator('meta[name="description"]').getAttribute('content');
    expect(description?.length ?? 0).toBeGreaterThanOrEqual(50);
    for (const text of route.texts ?? []) {
      await expect(main(page).getByText(text, { exact: false }).first(), text).toBeVisible();
    }
    for (const [name, href] of route.links ?? []) {
      await expect(main(page).getByRole('link', { name, exact: true }).first(), name).toHaveAttribute('href', href);
    }
    const robots = page.locator('meta[name="robots"]');
    if (route.noindex) await expect(robots).toHaveAttribute('content', /noindex/);
    else await expect(robots).not.toHaveAttribute('content', /noindex/);
  });
}

test('/how-it-works explains the live demo near the top', async ({ page }) => {
  await page.goto('/how-it-works');
  const demo = page.locator('#demo');
  await expect(demo).toBeVisible();
  await expect(demo).toContainText('Live Trading Demo');
  await expect(demo).toContainText('profits shown in demos are not guaranteed');
  const sections = main(page).locator(':scope > section');
  await expect(sections.nth(1)).toHaveAttribute('id', 'demo');
});

test('/support: four option cards and four help topics with their links', async ({ page }) => {
  await page.goto('/support');
  const options = page.locator('#options li');
  await expect(options).toHaveCount(4);
  const expected: [string, string, string][] = [
    ['Live Chat Support', 'Coming Soon', '/contact-us'],
    ['Trading Guides', 'Setup', '/setup-guide'],
    ['Video Tutorials', 'Coming Soon', '/setup-guide'],
    ['Community Forum', 'Coming Soon', '/contact-us'],
  ];
  for (const [index, [title, badge, href]] of expected.entries()) {
    const card = options.nth(index);
    await expect(card.getByRole('heading', { level: 3 })).toHaveText(title);
    await expect(card.getByText(badge, { exact: true })).toBeVisible();
    await expect(card.getByRole('link')).toHaveAttribute('href', href);
  }
  const topics = page.locator('#topics li a');
  await expect(topics).toHaveCount(4);
  const hrefs = await topics.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(hrefs).toEqual(['/setup-guide', '/how-it-works', '/risk-management', '/features']);
});

test("/risk-management: a 5-step evaluation and the do and don't lists", async ({ page }) => {
  await page.goto('/risk-management');
  await expect(page.locator('#principles li')).toHaveCount(4);
  await expect(page.locator('#evaluation ol > li')).toHaveCount(5);
  await expect(page.getByRole('heading', { level: 2, name: 'Do', exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: "Don't", exact: true })).toBeVisible();
  await expect(page.locator('#do li')).not.toHaveCount(0);
  await expect(page.locator('#dont li')).not.toHaveCount(0);
});

test('/trading-ideas reserves a 300px box under each chart heading', async ({ page }) => {
  await page.goto('/trading-ideas');
  for (const pair of ['EURUSD', 'GBPUSD', 'USDJPY']) {
    await expect(page.getByRole('heading', { level: 3, name: pair })).toBeVisible();
    const box = await page.locator(`[data-symbol="${pair}"]`).boundingBox();
    expect(box?.height).toBe(300);
  }
});

test.describe('/faq', () => {
  test('lists 15 questions, closed at first; two answers can be open at once @mobile', async ({ page }) => {
    await page.goto('/faq');
    const questions = main(page).locator('details');
    await expect(questions).toHaveCount(15);
    await expect(main(page).locator('details[open]')).toHaveCount(0);

    const first = main(page).getByText('A forex trading signal is a ready-made trade idea');
    const trial = main(page).getByText('Every new account starts with a 7-day free trial');
    await expect(first).toBeHidden();
    await expect(trial).toBeHidden();

    await main(page).getByText('What are forex trading signals?').click();
    await main(page).getByText('Is there a free trial?').click();
    await expect(first).toBeVisible();
    await expect(trial).toBeVisible();
    await expect(main(page).locator('details[open]')).toHaveCount(2);

    // Keyboard: a question toggles with Enter.
    const third = main(page).locator('summary').nth(2);
    await third.focus();
    await page.keyboard.press('Enter');
    await expect(main(page).locator('details[open]')).toHaveCount(3);
    await page.keyboard.press('Enter');
    await expect(main(page).locator('details[open]')).toHaveCount(2);
  });

  test('FAQPage JSON-LD carries the same 15 questions', async ({ page }) => {
    await page.goto('/faq');
    const json = await page.locator('script[type="application/ld+json"]').textContent();
    const data = JSON.parse(json ?? '{}');
    expect(data['@type']).toBe('FAQPage');
    const shown = await main(page).locator('summary > span:first-child').allInnerTexts();
    expect(data.mainEntity.map((q: { name: string }) => q.name)).toEqual(shown.map((q) => q.trim()));
    expect(data.mainEntity[5].acceptedAnswer.text).toContain('7-day free trial');
    expect(data.mainEntity[5].acceptedAnswer.text).not.toContain('<');
  });
});

test.describe('/newsletter-verified', () => {
  test('?type=user shows Account verified with Go to Login and retitles the page', async ({ page }) => {
    await page.goto('/newsletter-verified?type=user');
    await expect(page.locator('h1')).toHaveText('Account verified');
    await expect(page).toHaveTitle('Account Verified | SignalOne');
    await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', /account has been verified/);
    await expect(main(page).getByRole('link', { name: 'Go to Login' })).toHaveAttribute('href', '/auth');
    await expect(main(page).getByText('Email verified')).toBeHidden();
    await expect(main(page).getByRole('link', { name: 'Go to homepage' })).toHaveCount(0);
    await expect(main(page).getByRole('link', { name: 'Login', exact: true })).toHaveCount(0);
  });

  for (const query of ['', '?type=newsletter']) {
    test(`${query || 'no query'} shows Email verified with Go to homepage and Login`, async ({ page }) => {
      await page.goto(`/newsletter-verified${query}`);
      await expect(page.locator('h1')).toHaveText('Email verified');
      await expect(page).toHaveTitle('Email Verified | SignalOne');
      await expect(page.locator('meta[name="description"]')).toHaveAttribute(
        'content',
        /email address has been verified/,
      );
      await expect(main(page).getByRole('link', { name: 'Go to homepage' })).toHaveAttribute('href', '/');
      await expect(main(page).getByRole('link', { name: 'Login', exact: true })).toHaveAttribute('href', '/auth');
      await expect(main(page).getByRole('link', { name: 'Go to Login' })).toHaveCount(0);
      await expect(main(page).getByText('Account verified')).toBeHidden();
    });
  }

  test('tokens from a confirmation link are removed from the URL and do not sign the browser in', async ({ page }) => {
    await page.goto('/newsletter-verified?type=user#access_token=abc&refresh_token=def&type=signup');
    await expect(page.locator('h1')).toHaveText('Account verified');
    await expect.poll(() => page.evaluate(() => location.href)).not.toContain('token');
    const href = await page.evaluate(() => location.href);
    expect(href).not.toContain('abc');
    expect(href).not.toContain('def');
    expect(new URL(href).search).toBe('?type=user');
    const stored = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('auth-token')));
    expect(stored).toEqual([]);
  });

  test('query-string tokens and codes are removed too', async ({ page }) => {
    await page.goto('/newsletter-verified?access_token=abc&type=user&code=xyz&refresh_token=def');
    await expect(page.locator('h1')).toHaveText('Account verified');
    await expect.poll(() => page.evaluate(() => new URL(location.href).search)).toBe('?type=user');
  });
});

test.describe('accessibility', () => {
  const paths = [...routes.map((route) => route.path), '/newsletter-verified?type=user'];
  for (const path of paths) {
    test(`${path} has no axe violations`, async ({ browser }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(path);
      // Open every answer so that their content is checked too.
      for (const summary of await main(page).locator('summary').all()) await summary.click();
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      await context.close();
    });
  }
});
