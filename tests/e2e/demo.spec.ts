import { expect, type Page, test } from '@playwright/test';
import { copy, fill, literal } from '../content.ts';
import { axeViolations, pauseClock } from './checks.ts';

// The dialog's words come from content/demo/live-trading.md, Watch Demo from content/pages/index.md, the quiz's
// from content/quiz/risk-profile.md (tests/content.ts). The figures (68 trades, £254.00) are the demo script's.
const copyOf = copy('demo/live-trading');
const { labels } = copyOf;
const watchDemoLabel = copy('pages/index').ctas?.find((cta) => cta.action === 'demo')?.label ?? '';
const quiz = copy('quiz/risk-profile');

const watchDemo = (page: Page) => page.locator('main').getByRole('link', { name: watchDemoLabel });
const demo = (page: Page) => page.getByRole('dialog', { name: copyOf.title });

// Generous: several of these tests run a whole session, and the machine may be busy.
test.describe.configure({ timeout: 60_000 });

const start = new Date('2026-01-05T09:00:00Z');
const figure = (page: Page, label: string) => demo(page).locator('dt', { hasText: label }).locator('+ dd');

test('Home loads none of the demo until Watch Demo is pointed at or pressed', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  await page.goto('/');
  await page.waitForLoadState('networkidle');
  // The demo's island, Preact (`preact.module`, `hooks.module`, `compat.module`) and the island renderer
  // (`/_astro/client.<hash>.js`).
  expect(scripts.filter((path) => /DemoModal|preact|\.module\.|\/client\./i.test(path))).toEqual([]);
  await expect(demo(page)).toHaveCount(0);

  await watchDemo(page).hover();
  await expect.poll(() => scripts.some((path) => path.includes('DemoModalMount'))).toBe(true);
  await expect(demo(page)).toHaveCount(0);
});

test('the open demo and the quiz cause no Content-Security-Policy violation', async ({ page }) => {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const violations = () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
  await page.goto('/');
  await watchDemo(page).click();
  await expect(demo(page).locator('tbody tr').first()).toBeVisible();
  expect(await violations()).toEqual([]);
  await page.goto('/quiz');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await page.locator('main').getByRole('button', { name: quiz.questions[0]?.options[0]?.text }).click();
  const second = fill(quiz.labels.questionCount, { n: 2, total: quiz.questions.length });
  await expect(page.locator('main').getByText(second, { exact: true })).toBeVisible();
  expect(await violations()).toEqual([]);
});

test('the demo plays 68 trades to a £254.00 total, then the trades won and the banner', async ({ page }) => {
  await page.clock.install({ time: start });
  await page.goto('/');
  // Time stands still from here; each runFor moves it on.
  await pauseClock(page);
  await watchDemo(page).click();
  const dialog = demo(page);
  await expect(dialog).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(dialog.getByRole('heading', { name: copyOf.howItWorks.heading })).toBeVisible();
  for (const step of copyOf.howItWorks.steps) {
    await expect(dialog.getByText(step.title, { exact: true })).toBeVisible();
  }
  await expect(dialog.getByText(labels.running)).toBeVisible();
  const rows = dialog.locator('tbody tr');
  await expect(rows).toHaveCount(0);

  await page.clock.runFor(600);
  await expect(rows).toHaveCount(1);
  await expect(figure(page, labels.activeTrades)).toHaveText('1');
  // The opening trades are winners.
  await expect(rows.first()).toHaveAttribute('data-status', 'winning');

  await page.clock.runFor(67 * 600);
  await expect(rows).toHaveCount(68);
  await expect(figure(page, labels.totalProfit)).toHaveText('+£254.00');
  await expect(figure(page, labels.activeTrades)).toHaveText('68');
  await expect(figure(page, labels.avgProfit)).toHaveText('+£3.74');
  await expect(dialog.getByText(labels.banner)).toHaveCount(0);

  // Winners and losers differ by sign and label, not by colour alone.
  const cells = await rows.evaluateAll((trs) =>
    trs.map((tr) => [tr.getAttribute('data-status'), ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]),
  );
  const won = cells.filter(([status]) => status === 'winning').length;
  expect(won).toBeGreaterThan(34);
  expect(won).toBeLessThan(68);
  for (const [status, pair, type, entry, profit, result] of cells) {
    expect(pair).toMatch(/^[A-Z]{3}\/[A-Z]{3}$/);
    expect(type).toMatch(/^(BUY|SELL)$/);
    expect(entry).toMatch(/^\d+\.\d{3,5}$/);
    expect([status, profit?.[0], result]).toEqual(
      status === 'winning' ? ['winning', '+', labels.win] : ['losing', '−', labels.loss],
    );
  }

  await page.clock.runFor(1000);
  await expect(dialog.getByText(labels.stage1)).toBeVisible();
  const tradesWon = (won: number) => fill(labels.tradesWon, { won, total: 68 });
  const anyTradesWon = new RegExp(literal(labels.tradesWon).replace(/\\\{\w+\\\}/g, '\\d+'));
  await expect(dialog.getByText(anyTradesWon)).toHaveCount(0);

  await page.clock.runFor(2000);
  await expect(dialog.getByText(tradesWon(won))).toBeVisible();
  await expect(dialog.getByText(labels.banner)).toBeVisible();
});

test('Escape closes the demo, focus returns to Watch Demo and reopening starts afresh', async ({ page }) => {
  await page.clock.install({ time: start });
  await page.goto('/');
  // Time stands still from here; each runFor moves it on.
  await pauseClock(page);
  await watchDemo(page).focus();
  await page.keyboard.press('Enter');
  await expect(demo(page)).toBeVisible();
  await expect(demo(page).getByRole('button', { name: labels.close })).toBeFocused();
  await page.clock.runFor(3000);
  await expect(demo(page).locator('tbody tr')).toHaveCount(5);

  // Focus stays inside the open dialog.
  for (let i = 0; i < 6; i += 1) {
    await page.keyboard.press('Tab');
    expect(await demo(page).evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
  }

  await page.keyboard.press('Escape');
  await expect(demo(page)).toHaveCount(0);
  await expect(watchDemo(page)).toBeFocused();
  // The timer stopped with the dialog: nothing more happens.
  await page.clock.runFor(60_000);
  await expect(demo(page)).toHaveCount(0);

  await watchDemo(page).click();
  await expect(demo(page)).toBeVisible();
  await expect(demo(page).locator('tbody tr')).toHaveCount(0);
  await expect(figure(page, labels.totalProfit)).toHaveText('£0.00');
  await page.clock.runFor(600);
  await expect(demo(page).locator('tbody tr')).toHaveCount(1);
});

test('the close button closes the demo and focus returns to Watch Demo @mobile', async ({ page }) => {
  await page.goto('/');
  await watchDemo(page).click();
  await expect(demo(page)).toBeVisible();
  await demo(page).getByRole('button', { name: labels.close }).click();
  await expect(demo(page)).toHaveCount(0);
  await expect(watchDemo(page)).toBeFocused();
});

// The session runs on the page's clock; then time flows again, since axe waits on timers of its own.
test('the demo at the end of its session has no axe violations', async ({ page }) => {
  await page.clock.install({ time: start });
  await page.goto('/');
  await pauseClock(page);
  await watchDemo(page).click();
  await expect(demo(page)).toBeVisible();
  // The whole session (68 trades, 600 ms apart, then its two closing steps), on the page's clock.
  await page.clock.runFor(68 * 600 + 3000);
  await expect(demo(page).getByText(labels.banner)).toBeVisible();
  await page.clock.resume();
  expect(await axeViolations(page)).toEqual([]);
});

test('with reduced motion the demo still plays, without animation', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.clock.install({ time: start });
  await page.goto('/');
  // Time stands still from here; each runFor moves it on.
  await pauseClock(page);
  await watchDemo(page).click();
  await expect(demo(page)).toBeVisible();
  await page.clock.runFor(1200);
  const row = demo(page).locator('tbody tr').first();
  await expect(row).toBeVisible();
  const duration = await row.evaluate((el) => Number.parseFloat(getComputedStyle(el).animationDuration));
  expect(duration).toBeLessThan(0.001);
});

test('without JavaScript, Watch Demo goes to the demo section of How It Works', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/');
  await watchDemo(page).click();
  await expect(page).toHaveURL(/\/how-it-works\/?#demo$/);
  await context.close();
});
