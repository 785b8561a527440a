import { expect, type Page, test } from '@playwright/test';
import { copy, entries, labels, paragraphs, section } from '../content.ts';
import { axeViolations } from './checks.ts';

interface Route {
  path: string;
  title: string;
  h1: string;
  /** Texts a visitor must see in the main content. */
  texts: string[];
  /** Links in the main content: accessible name -> href. */
  links: [string, string][];
}

// Every text comes from content/ (tests/content.ts), so an edited sentence does not break these tests.
const signalLabels = labels('signals');
const ctas = (slug: string): [string, string][] => (copy(`pages/${slug}`).ctas ?? []).map((c) => [c.label, c.href]);
const itemTitles = (slug: string, id: string) => (section(slug, id).items ?? []).map((item) => item.title);
const bands = entries('bands').map((band) => band.data);
const tiers = entries('tiers').map((tier) => tier.data);
const head = (slug: string) => {
  const { title, heading } = copy(`pages/${slug}`);
  return { title, h1: heading };
};

const home = copy('pages/index');
const routes: Route[] = [
  {
    path: '/',
    ...head('index'),
    texts: [
      home.hero?.banner ?? '',
      home.hero?.highlight?.value ?? '',
      home.hero?.highlight?.note ?? '',
      ...(home.hero?.stats ?? []),
      section('index', 'demo-disclaimer').body ?? '',
      ...itemTitles('index', 'promises'),
      ...itemTitles('index', 'guarantee'),
      ...itemTitles('index', 'delivery'),
      section('index', 'delivery').body ?? '',
      ...itemTitles('index', 'tiers'),
    ],
    links: [
      ...ctas('index'),
      [signalLabels('principlesLink'), '/principles'],
      // The win-rate badge links to the evidence its claim names (docs/claims.md).
      [copy('claims/high-win-rate').text, copy('claims/high-win-rate').link ?? ''],
    ],
  },
  {
    path: '/about-us',
    ...head('about-us'),
    texts: [
      section('about-us', 'mission').eyebrow ?? '',
      ...entries('values').map((value) => value.data.title),
      paragraphs('pages/about-us')[0] ?? '',
    ],
    links: ctas('about-us'),
  },
  {
    path: '/features',
    ...head('features'),
    texts: [...entries('features').map((feature) => feature.data.title), ...itemTitles('features', 'results')],
    links: ctas('features'),
  },
  {
    path: '/signals',
    ...head('signals'),
    texts: [
      section('signals', 'live').heading,
      section('signals', 'results').heading,
      section('signals', 'what-you-get').heading,
      ...itemTitles('signals', 'what-you-get'),
      // The three bands' figures.
      ...bands.flatMap((band) => [band.profitFactor, band.maxDrawdown, band.winRate, band.stopRules, band.frequency]),
    ],
    links: [[signalLabels('quizLink'), '/quiz'], ...ctas('signals')],
  },
  {
    path: '/principles',
    ...head('principles'),
    texts: [
      ...tiers.map((tier) => tier.name),
      // The three tiers' figures.
      ...tiers.flatMap((tier) => [tier.profitFactor, tier.winRate, tier.drawdown, ...(tier.rule ? [tier.rule] : [])]),
    ],
    links: ctas('principles'),
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
      // A full axe run takes a while on a busy machine.
      test.setTimeout(60_000);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(route.path);
      expect(await axeViolations(page)).toEqual([]);
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
  expect(ld.name).toBe(copy('site/navigation').brand);
  const watchDemo = home.ctas?.find((cta) => cta.action === 'demo')?.label ?? '';
  await expect(main(page).getByRole('link', { name: watchDemo })).toHaveAttribute('data-demo-open', '');
});

test('home: the demo figure is labelled a simulation, as large as its caption, beside the warning', async ({
  page,
}) => {
  await page.goto('/');
  const highlight = home.hero?.highlight;
  const card = main(page)
    .locator('div', { has: page.getByText(highlight?.label ?? '', { exact: true }) })
    .last();
  const caption = card.getByText(highlight?.label ?? '', { exact: true });
  const note = card.getByText(highlight?.note ?? '', { exact: true });
  await expect(card.getByText(highlight?.value ?? '', { exact: true })).toBeVisible();
  await expect(note).toBeVisible();
  await expect(card.getByText(section('index', 'demo-disclaimer').body ?? '')).toBeVisible();
  const size = (l: typeof note) => l.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
  expect(await size(note)).toBeGreaterThanOrEqual(await size(caption));
  expect(copy('claims/demo-daily-profit').kind).toBe('simulated');
});

test('signals page: three sample signals and five results with their fields', async ({ page }) => {
  await page.goto('/signals');
  const live = page.locator('#live');
  const cards = live.getByRole('listitem');
  await expect(cards).toHaveCount(3);
  for (const card of await cards.all()) {
    await expect(card.getByText(/^(BUY|SELL)$/)).toBeVisible();
    await expect(card.getByText(/^(Active|TP1 Hit)$/)).toBeVisible();
    const tp = signalLabels('tp');
    for (const label of [
      signalLabels('entry'),
      signalLabels('stopLoss'),
      `${tp}1`,
      `${tp}2`,
      `${tp}3`,
      signalLabels('timeframe'),
      signalLabels('riskReward'),
    ]) {
      await expect(card.getByText(label, { exact: true })).toBeVisible();
    }
    await expect(card.getByText('1:3', { exact: true })).toBeVisible();
  }
  await expect(live.getByText('TP1 Hit')).toBeVisible();
  const rows = page.locator('#results tbody tr');
  await expect(rows).toHaveCount(5);
  await expect(rows.getByText(/^(WIN|LOSS)$/)).toHaveCount(5);
  await expect(rows.getByText(/^[+-]\d+ pips$/)).toHaveCount(5);
  await expect(page.locator('#bands').getByRole('heading', { level: 3 })).toHaveText(bands.map((band) => band.name));
});

test('signals page on a phone: the results table scrolls sideways from the keyboard, axe clean @mobile', async ({
  page,
  isMobile,
}) => {
  test.skip(!isMobile, 'the table overflows on a narrow screen');
  await page.goto('/signals');
  const scroller = page.getByRole('group', { name: section('signals', 'results').heading });
  await scroller.focus();
  await expect(scroller).toBeFocused();
  const before = await scroller.evaluate((el) => el.scrollLeft);
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBeGreaterThan(before);
  expect(await axeViolations(page)).toEqual([]);
});

test('robots.txt allows all and names the sitemap', async ({ request }) => {
  const response = await request.get('/robots.txt');
  expect(response.status()).toBe(200);
  const body = await response.text();
  expect(body).toContain('User-agent: *');
  expect(body).toContain('Allow: /');
  expect(body).toMatch(/^Sitemap: https?:\/\/.+\/sitemap-index\.xml$/m);
});
