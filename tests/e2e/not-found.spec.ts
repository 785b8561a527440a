import { expect, test } from '@playwright/test';
import { copy } from '../content.ts';

// The page's words come from content/pages/404.md (tests/content.ts).
const notFound = copy('pages/404');
const goHome = notFound.ctas?.find((cta) => !cta.action)?.label ?? '';
const goBack = notFound.ctas?.find((cta) => cta.action === 'back')?.label ?? '';

test('an unknown path answers 404 with the page, the path and a way home', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  const response = await page.goto('/no-such-page/x');
  expect(response?.status()).toBe(404);
  await expect(page).toHaveTitle(notFound.title);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(notFound.heading);
  await expect(page.locator('main').getByText('/no-such-page/x', { exact: true })).toBeVisible();
  expect(errors.some((text) => text.includes('/no-such-page/x'))).toBe(true);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/);

  await page.getByRole('link', { name: goHome }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(copy('pages/index').heading);
});

test('Go Back returns to the previous page', async ({ page }) => {
  await page.goto('/features');
  await page.goto('/features/missing');
  const back = page.getByRole('button', { name: goBack });
  await expect(back).toBeVisible();
  await back.click();
  await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/features');
});

test('Go Back is not offered without history to go back to', async ({ page, baseURL }) => {
  // Replacing the tab's initial about:blank entry leaves a history of one: a link opened in a new tab.
  const url = new URL('/no-such-page/x', baseURL).href;
  await page.evaluate((target) => location.replace(target), url);
  await page.waitForURL(url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(notFound.heading);
  expect(await page.evaluate(() => history.length)).toBe(1);
  await expect(page.getByText('/no-such-page/x', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: goBack })).toBeHidden();
  await expect(page.getByRole('link', { name: goHome })).toBeVisible();
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('only Go Home is offered', async ({ page }) => {
    const response = await page.goto('/no-such-page/x');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(notFound.heading);
    await expect(page.getByRole('link', { name: goHome })).toBeVisible();
    await expect(page.getByRole('button', { name: goBack })).toBeHidden();
  });
});
