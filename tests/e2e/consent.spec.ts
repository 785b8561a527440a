import { type APIRequestContext, expect, type Page, type Request, test } from '@playwright/test';
import { TRADINGVIEW_FRAME_ORIGIN, TRADINGVIEW_SCRIPT } from '../../src/lib/chart-widget.ts';
import { copy, labels, section } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API } from './env.ts';

// Consent before third parties: no public page requests anything from another origin than the site's own and the
// Supabase project's until the visitor chooses to (the news cards' pictures aside, named in the privacy notice),
// and TradingView's charts on /trading-ideas load only once chosen, again on the next visit when remembered, and no
// more once the choice is withdrawn on /privacy-settings.

const t = labels('consent');
const news = labels('news');
const pairs = (section('trading-ideas', 'charts').items ?? []).map((item) => item.title);
const site = copy('site/navigation');
// The first answer of the news function waits for the functions host and the feeds: allow for a busy machine.
const LOADED = { timeout: 20_000 };

/** The public pages: the build's sitemap, as a search engine reads it, as paths. */
async function sitemapRoutes(request: APIRequestContext): Promise<string[]> {
  const locs = async (path: string) =>
    [...(await (await request.get(path)).text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  const routes: string[] = [];
  for (const sitemap of await locs('/sitemap-index.xml')) routes.push(...(await locs(sitemap)));
  return routes;
}

/** Scrolls the page from top to bottom a half screen at a time, a frame apart, so lazy parts start. */
async function scrollThrough(page: Page) {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    for (let y = 0; y <= document.documentElement.scrollHeight; y += innerHeight / 2) {
      scrollTo(0, y);
      await frame();
      await frame();
    }
  });
}

/**
 * TradingView's widget as the charts' own origins would serve it, so the test needs no network: the script puts its
 * chart frame (of TradingView's frame origin) into its container, as the real one does. Returns the script's fetches.
 */
async function standInWidget(page: Page): Promise<string[]> {
  const fetched: string[] = [];
  await page.context().route(TRADINGVIEW_SCRIPT, (route) => {
    fetched.push(route.request().url());
    return route.fulfill({
      contentType: 'text/javascript',
      body: `(() => {
        const script = document.currentScript;
        const { symbol } = JSON.parse(script.textContent);
        const frame = document.createElement('iframe');
        frame.title = symbol;
        frame.src = '${TRADINGVIEW_FRAME_ORIGIN}/embed-widget/advanced-chart/#' + encodeURIComponent(symbol);
        script.parentElement.querySelector('.tradingview-widget-container__widget').append(frame);
      })();`,
    });
  });
  await page
    .context()
    .route(`${TRADINGVIEW_FRAME_ORIGIN}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>chart</title><p>chart</p>' }),
    );
  return fetched;
}

const slot = (page: Page, pair: string) => page.getByRole('region', { name: `${pair} ${news('chartLabel')}` });
const loadButton = (page: Page, pair: string) => slot(page, pair).getByRole('button', { name: t('chartLoad') });

test('before any choice, no public page requests another origin than its own and the Supabase project, news pictures aside', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(300_000);
  const routes = await sitemapRoutes(request);
  expect(routes).toEqual(expect.arrayContaining(['/', '/trading-ideas/', '/news/', '/privacy/']));
  const own = new URL(baseURL ?? '').origin;
  const supabase = new URL(API).origin;
  const outside: Request[] = [];
  const inFlight = new Set<Request>();
  page.on('request', (req) => {
    inFlight.add(req);
    const url = new URL(req.url());
    if (/^https?:$/.test(url.protocol) && url.origin !== own && url.origin !== supabase) outside.push(req);
  });
  page.on('requestfinished', (req) => inFlight.delete(req));
  page.on('requestfailed', (req) => inFlight.delete(req));
  for (const route of routes) {
    await test.step(route, async () => {
      outside.length = 0;
      await page.goto(route);
      await scrollThrough(page);
      const cards = page.getByTestId('news-card');
      if (['/news/', '/investing-news/', '/trading-ideas/'].includes(route)) {
        // The news loaded: its cards, or the empty message when the fixture feeds are down, which news.spec.ts,
        // running beside this one, does at times. Either way the page has asked for all it asks for.
        await expect(cards.first().or(page.getByText(news('empty')))).toBeVisible(LOADED);
        await scrollThrough(page); // the cards' pictures load as they come into view
      }
      await expect.poll(() => inFlight.size).toBe(0);
      if (route === '/trading-ideas/') {
        await expect(page.locator('chart-slot[data-state]')).toHaveCount(0);
        await expect(page.getByRole('button', { name: t('chartLoad') })).toHaveCount(pairs.length);
      }
      // A news card's picture comes from its publisher's host; nothing else may leave (without cards, nothing at all).
      const pictures = await cards
        .locator('img')
        .evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).src));
      const unexplained = outside
        .filter((req) => !(req.resourceType() === 'image' && pictures.includes(req.url())))
        .map((req) => `${req.resourceType()} ${req.url()}`);
      expect(unexplained).toEqual([]);
    });
  }
});

test('/trading-ideas: each slot says what would load and from whom; the charts load once chosen and, remembered, on the next visit', async ({
  page,
}) => {
  const fetched = await standInWidget(page);
  await page.goto('/trading-ideas');
  for (const pair of pairs) {
    await expect(slot(page, pair)).toContainText(t('chartFrom').replace('{pair}', pair));
    await expect(loadButton(page, pair)).toBeVisible();
  }
  expect(fetched).toEqual([]);

  await page.getByRole('checkbox', { name: t('chartRemember') }).check();
  await loadButton(page, pairs[0]).click();
  // One choice loads every chart: the consent is to TradingView, not to one pair.
  for (const pair of pairs) {
    await expect(slot(page, pair).frameLocator('iframe').getByText('chart')).toBeVisible();
    await expect(slot(page, pair)).toHaveAttribute('data-state', 'loaded');
    await expect(loadButton(page, pair)).toBeHidden();
  }
  await expect(slot(page, pairs[0])).toBeFocused();
  // Chromium fetches the one script URL once for the slots that ask for it together.
  const firstVisit = fetched.length;
  expect(firstVisit).toBeGreaterThan(0);

  // The next visit: no question, each chart loads as it scrolls into view.
  await page.goto('/trading-ideas');
  for (const pair of pairs) {
    await page.getByRole('heading', { level: 3, name: pair }).scrollIntoViewIfNeeded();
    await expect(slot(page, pair).frameLocator('iframe').getByText('chart')).toBeVisible();
    await expect(loadButton(page, pair)).toBeHidden();
  }
  expect(fetched.length).toBeGreaterThan(firstVisit);
});

test('/trading-ideas: a choice not remembered holds for that page only', async ({ page }) => {
  const fetched = await standInWidget(page);
  await page.goto('/trading-ideas');
  await loadButton(page, pairs[1]).click();
  for (const pair of pairs) await expect(slot(page, pair)).toHaveAttribute('data-state', 'loaded');
  const loaded = fetched.length;
  expect(loaded).toBeGreaterThan(0);
  await page.reload();
  await scrollThrough(page);
  for (const pair of pairs) await expect(loadButton(page, pair)).toBeVisible();
  await expect(page.locator('chart-slot[data-state]')).toHaveCount(0);
  expect(fetched).toHaveLength(loaded);
});

test('/trading-ideas: once chosen, a chart TradingView cannot serve says so in its box', async ({ page }) => {
  await page.context().route(TRADINGVIEW_SCRIPT, (route) => route.abort('internetdisconnected'));
  await page.goto('/trading-ideas');
  await loadButton(page, pairs[0]).click();
  for (const pair of pairs) {
    await expect(slot(page, pair)).toContainText(news('chartUnavailable'));
    expect((await slot(page, pair).boundingBox())?.height).toBe(300);
  }
});

test('Privacy settings, linked from every footer, withdraws the remembered choice by keyboard', async ({ page }) => {
  // Two full axe runs take a while on a busy machine.
  test.setTimeout(60_000);
  const fetched = await standInWidget(page);
  await page.goto('/trading-ideas');
  await page.getByRole('checkbox', { name: t('chartRemember') }).check();
  await loadButton(page, pairs[0]).click();
  await expect(slot(page, pairs[0])).toHaveAttribute('data-state', 'loaded');

  await page.goto('/faq');
  const legal = page.getByRole('contentinfo').getByRole('navigation', { name: site.legal?.label });
  const label = site.legal?.links.find((link) => link.href === '/privacy-settings')?.label ?? '';
  await legal.getByRole('link', { name: label, exact: true }).click();
  await expect(page).toHaveURL(/\/privacy-settings\/?$/);
  const toggle = page.getByRole('checkbox', { name: t('settingsToggle') });
  await expect(toggle).toBeChecked();
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).not.toBeChecked();
  await expect(page.getByRole('status').filter({ hasText: t('settingsWithdrawn') })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);

  const before = fetched.length;
  await page.goto('/trading-ideas');
  await scrollThrough(page);
  for (const pair of pairs) await expect(loadButton(page, pair)).toBeVisible();
  await expect(page.locator('chart-slot[data-state]')).toHaveCount(0);
  expect(fetched).toHaveLength(before);
  expect(await axeViolations(page)).toEqual([]);
});

test('the privacy notice names every third party a page can contact', async ({ page }) => {
  await page.goto('/privacy');
  const main = page.getByRole('main');
  for (const party of ['Supabase', 'TradingView', 'Cloudflare Turnstile', 'News pictures']) {
    await expect(main.getByText(party, { exact: true }).first()).toBeVisible();
  }
  await expect(main).not.toContainText('a few display preferences');
});
