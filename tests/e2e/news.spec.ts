import { expect, type Page, test } from '@playwright/test';
import { axeViolations, hold } from './checks.ts';
import { API, FEEDS_URL } from './env.ts';

// News pages against the real news function, which reads fixture feeds served on 127.0.0.1 by scripts/test.ts
// (E2E_FEEDS_URL), fresh on every request. One test takes every feed down, so the tests here run one at a time.
test.describe.configure({ mode: 'serial' });

const EMPTY = 'No news articles available. Please try refreshing.';
const FAILED = 'Failed to load news. Please try again.';

const cards = (page: Page) => page.getByTestId('news-card');
// The first answer waits for the functions host to load the function and for the feeds: allow for a busy machine.
const LOADED = { timeout: 20_000 };

/** The datetime of every card's time, in page order. */
const times = (page: Page) =>
  cards(page).evaluateAll((els) =>
    els.map((el) => Date.parse(el.querySelector('time')?.getAttribute('datetime') ?? '')),
  );

/** The page's requests for the investing feed. */
const INVESTING = '**/functions/v1/news?feed=investing';

async function articlesNow(request: import('@playwright/test').APIRequestContext, feed: string): Promise<number> {
  const res = await request.get(`${API}/functions/v1/news?feed=${feed}`);
  return ((await res.json()) as { articles: unknown[] }).articles.length;
}

test('/news: 15 cards, newest first, cut descriptions, source badges, sentiment, Read More in a new tab', async ({
  page,
}) => {
  await page.goto('/news');
  await expect(cards(page)).toHaveCount(15, LOADED);
  const t = await times(page);
  expect(t).toEqual([...t].sort((a, b) => b - a));

  const first = cards(page).first();
  await expect(first.getByRole('heading', { level: 3 })).toHaveText('Stocks rally as markets gain & profits surge');
  await expect(first).toContainText('Shares rose sharply on Wall Street & in Europe.');
  await expect(first.getByText('Fixture Business', { exact: true })).toBeVisible();
  await expect(first.getByRole('img', { name: 'Positive sentiment' })).toBeVisible();
  const readMore = first.getByRole('link', { name: /^Read More/ });
  await expect(readMore).toHaveAttribute('href', 'https://business.example.com/stocks-rally');
  await expect(readMore).toHaveAttribute('target', '_blank');
  await expect(readMore).toHaveAttribute('rel', 'noopener noreferrer');

  const oil = cards(page).filter({ hasText: 'Oil prices steady ahead of OPEC meeting' });
  const text = (await oil.locator('p').textContent()) ?? '';
  expect(text.endsWith('...')).toBe(true);
  expect(text.length).toBeLessThanOrEqual(203);
  await expect(
    cards(page).filter({ hasText: 'Pound & euro slide' }).getByRole('img', { name: 'Negative sentiment' }),
  ).toBeVisible();
  await expect(cards(page).filter({ hasText: 'Fixture Markets' }).first()).toBeVisible();
  await expect(cards(page).filter({ hasText: 'Fixture Headlines' }).first()).toBeVisible();
  // Items without a title or with a javascript: link never show; every link is http(s).
  await expect(page.getByText('Script link is dropped')).toHaveCount(0);
  const hrefs = await cards(page)
    .getByRole('link')
    .evaluateAll((els) => els.map((a) => a.getAttribute('href')));
  expect(hrefs.every((h) => /^https?:\/\//.test(h ?? ''))).toBe(true);
  // The combined feed has no pictures.
  await expect(cards(page).locator('img')).toHaveCount(0);
});

test('/investing-news: 9 placeholders while loading, then 20 cards with pictures; a broken picture is hidden', async ({
  page,
}) => {
  // Hold the request back until the loading state has been seen.
  const held = await hold(page, INVESTING);
  await page.goto('/investing-news');
  await expect(page.getByRole('heading', { level: 2, name: 'Latest Investing News' })).toBeVisible();
  await expect(page.getByTestId('news-skeletons').locator('li')).toHaveCount(9);
  await expect(page.getByRole('button', { name: 'Refresh' })).toBeDisabled();
  held.release();

  await expect(cards(page)).toHaveCount(20, LOADED);
  await expect(page.getByTestId('news-skeletons')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Refresh' })).toBeEnabled();
  await expect(page.getByTestId('last-updated')).toContainText('Last updated:');
  const t = await times(page);
  expect(t).toEqual([...t].sort((a, b) => b - a));

  const [first, second, third] = [cards(page).nth(0), cards(page).nth(1), cards(page).nth(2)];
  await expect(first.getByRole('heading')).toHaveText('Investors cheer strong earnings as stocks rally');
  await expect(first.getByRole('img', { name: 'Positive sentiment' })).toBeVisible();
  await expect(second.getByRole('img', { name: 'Negative sentiment' })).toBeVisible();
  await expect(third.getByRole('img', { name: 'Neutral sentiment' })).toBeVisible();
  await expect(first.getByText('Fixture Investing', { exact: true })).toBeVisible();

  // A picture that loads is shown; the one whose address answers 404 fails in the browser and is hidden in its
  // box (the function passes picture addresses on without requesting them); the third has none.
  const picture = first.locator('img');
  await expect(picture).toBeVisible();
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(second.locator('img')).toHaveAttribute('data-failed', '');
  await expect(second.locator('img')).toBeHidden();
  await expect(third.locator('img')).toHaveCount(0);

  const cut = await first.locator('p').textContent();
  expect(cut?.endsWith('...')).toBe(true);
  expect(cut?.length).toBeGreaterThan(290);
  expect(cut?.length).toBeLessThanOrEqual(303);
});

test('/investing-news: Refresh loads again and is disabled while it does', async ({ page }) => {
  await page.goto('/investing-news');
  await expect(cards(page)).toHaveCount(20, LOADED);
  const held = await hold(page, INVESTING);
  const refresh = page.getByRole('button', { name: 'Refresh' });
  await refresh.click();
  await expect(refresh).toBeDisabled();
  await expect(page.getByTestId('news-skeletons').locator('li')).toHaveCount(9);
  held.release();
  await expect(refresh).toBeEnabled(LOADED);
  await expect(cards(page)).toHaveCount(20, LOADED);
  expect(held.calls()).toBe(1);
});

test('/investing-news: Refresh asks for a fresh answer, a plain visit does not', async ({ page }) => {
  // The headers as the browser sent them (no route here: a route sees a request before the browser's cache
  // layer adds Cache-Control: no-cache for a reload).
  const sent: (string | undefined)[] = [];
  page.on('requestfinished', async (request) => {
    if (request.url().endsWith('/functions/v1/news?feed=investing')) {
      sent.push((await request.allHeaders())['cache-control']);
    }
  });
  await page.goto('/investing-news');
  await expect(cards(page)).toHaveCount(20, LOADED);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(cards(page)).toHaveCount(20, LOADED);
  // The function revalidates on no-cache instead of answering from its cache.
  await expect.poll(() => sent).toEqual([undefined, 'no-cache']);
});

test('/investing-news: when the news cannot be loaded, a toast for 3 seconds and the empty message', async ({
  page,
}) => {
  await page.route(INVESTING, (route) => route.abort('connectionrefused'));
  await page.goto('/investing-news');
  const toast = page.getByText(FAILED);
  await expect(toast).toBeVisible();
  await expect(page.getByText(EMPTY)).toBeVisible(LOADED);
  await expect(toast).toBeHidden({ timeout: 5000 });
});

test('/investing-news: when the investing feed cannot be read, a toast for 3 seconds and the empty message', async ({
  page,
  request,
}) => {
  await request.post(`${FEEDS_URL}/down/investing.xml`);
  try {
    // Answers are refreshed in the background: wait until the function has seen the feed fail.
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(0);
    const answer = await (await request.get(`${API}/functions/v1/news?feed=investing`)).json();
    expect(answer.feeds.failed).toEqual([`${FEEDS_URL}/feeds/investing.xml`]);
    await page.goto('/investing-news');
    const toast = page.getByText(FAILED);
    await expect(toast).toBeVisible(LOADED);
    await expect(page.getByText(EMPTY)).toBeVisible();
    await expect(toast).toBeHidden({ timeout: 5000 });
  } finally {
    await request.post(`${FEEDS_URL}/up`);
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(20);
  }
});

test('/investing-news with a real-world feed: broken pictures hidden without a layout shift or a console error', async ({
  page,
  request,
}) => {
  // A dozen articles with long HTML descriptions; five pictures answer 404 or drop the connection on the picture
  // host. Three more are broken in the browser: one 404, one refused connection, one that is not an image.
  await request.post(`${FEEDS_URL}/swap/investing.xml/real-world.xml`);
  try {
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(12);
    await page.route('**/images/thumb-b.png', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.route('**/images/thumb-d.png', (route) => route.abort('connectionrefused'));
    await page.route('**/images/thumb-f.png', (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: 'not a picture' }),
    );
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      // The browser's own network log of a picture that fails in it is not the page's code, and cannot be
      // silenced.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        errors.push(message.text());
      }
    });
    const requested: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/images/')) requested.push(r.url());
    });
    await page.goto('/investing-news');
    await expect(cards(page)).toHaveCount(12, LOADED);
    // From the cards' first render on, every layout shift is summed.
    await page.evaluate(() => {
      const w = window as unknown as { shifts: number };
      w.shifts = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) w.shifts += entry.value;
      }).observe({ type: 'layout-shift' });
    });
    // Every picture loads or fails (lazy pictures load as they come into view).
    for (const card of await cards(page).all()) await card.scrollIntoViewIfNeeded();
    const pictures = page.getByTestId('news-card').locator('img');
    // 12 articles, one without a picture.
    await expect(pictures).toHaveCount(11);
    await expect
      .poll(() => pictures.evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).complete)))
      .toBe(true);
    // The five that fail on their host and the three broken here: every one hidden, none shown broken.
    const failed = pictures.and(page.locator('[data-failed]'));
    await expect(failed).toHaveCount(8);
    for (const img of await failed.all()) await expect(img).toBeHidden();
    await expect(pictures.and(page.locator(':not([data-failed])')).first()).toBeVisible();
    // Every picture box keeps its size, failed or not.
    const heights = new Set(
      await pictures.evaluateAll((imgs) => imgs.map((img) => img.getBoundingClientRect().height)),
    );
    expect(heights.size).toBe(1);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts)).toBe(0);
    // The descriptions' HTML is shown as text only: no markup, no script's content.
    const texts = await cards(page).locator('p').allTextContents();
    expect(texts.every((t) => !/[<>]/.test(t) && !t.includes('alert(') && t.length <= 303)).toBe(true);
    expect(errors).toEqual([]);
    // The browser, not the function, asked for the pictures that fail on their host.
    expect(requested.filter((url) => /missing-image|refused-image/.test(url))).not.toEqual([]);
  } finally {
    await request.post(`${FEEDS_URL}/up`);
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(20);
  }
});

test('every feed down: both pages show the empty message, and the investing page its failure toast', async ({
  page,
  request,
}) => {
  await request.post(`${FEEDS_URL}/down`);
  try {
    // Answers are refreshed in the background: wait until the function has seen the feeds fail.
    await expect.poll(() => articlesNow(request, 'combined'), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(0);
    await page.goto('/news');
    await expect(page.getByText(EMPTY)).toBeVisible(LOADED);
    await expect(cards(page)).toHaveCount(0);
    await page.goto('/investing-news');
    await expect(page.getByText(EMPTY)).toBeVisible(LOADED);
    await expect(page.getByText(FAILED)).toBeVisible();
  } finally {
    await request.post(`${FEEDS_URL}/up`);
    await expect.poll(() => articlesNow(request, 'combined'), { timeout: 10_000 }).toBe(15);
    await expect.poll(() => articlesNow(request, 'investing'), { timeout: 10_000 }).toBe(20);
  }
});

// The charts (nothing from TradingView before the visitor chooses, then on scroll) are consent.spec.ts's.
test('/trading-ideas: the news feed', async ({ page }) => {
  await page.setViewportSize({ width: 400, height: 600 });
  await page.goto('/trading-ideas');
  await page.getByRole('heading', { level: 2, name: 'Latest Market News' }).scrollIntoViewIfNeeded();
  await expect(cards(page)).toHaveCount(15, LOADED);
});

test('/trading-ideas: the page allows exactly the chart widget origins', async ({ page }) => {
  await page.goto('/trading-ideas');
  const csp = (await page.locator('meta[http-equiv="content-security-policy"]').getAttribute('content')) ?? '';
  expect(csp).toMatch(/script-src[^;]*'self'[^;]*https:\/\/s3\.tradingview\.com/);
  expect(csp).toMatch(/frame-src https:\/\/www\.tradingview-widget\.com(;|$)/);
  await page.goto('/news');
  const plain = (await page.locator('meta[http-equiv="content-security-policy"]').getAttribute('content')) ?? '';
  expect(plain).not.toContain('tradingview');
});

for (const path of ['/news', '/investing-news', '/trading-ideas']) {
  test(`${path} with its articles has no axe violations`, async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(path);
    await page.getByText('Latest', { exact: false }).last().scrollIntoViewIfNeeded();
    await expect(cards(page).first()).toBeVisible(LOADED);
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
}
