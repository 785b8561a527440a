import { expect, test } from '@playwright/test';

test('an unknown path answers 404 with the page, the path and a way home', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  const response = await page.goto('/no-such-page/x');
  expect(response?.status()).toBe(404);
  await expect(page).toHaveTitle('Page Not Found | SignalOne');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
  await expect(page.locator('main').getByText('/no-such-page/x', { exact: true })).toBeVisible();
  expect(errors.some((text) => text.includes('/no-such-page/x'))).toBe(true);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/);

  await page.getByRole('link', { name: 'Go Home' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Autonomous AI agents for smarter forex trading');
});

test('Go Back returns to the previous page', async ({ page }) => {
  await page.goto('/features');
  await page.goto('/features/missing');
  const back = page.getByRole('button', { name: 'Go Back' });
  await expect(back).toBeVisible();
  await back.click();
  await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/features');
});

test('Go Back is not offered without history to go back to', async ({ page, baseURL }) => {
  // Replacing the tab's initial about:blank entry leaves a history of one: a link opened in a new tab.
  const url = new URL('/no-such-page/x', baseURL).href;
  await page.evaluate((target) => location.replace(target), url);
  await page.waitForURL(url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
  expect(await page.evaluate(() => history.length)).toBe(1);
  await expect(page.getByText('/no-such-page/x', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Go Back' })).toBeHidden();
  await expect(page.getByRole('link', { name: 'Go Home' })).toBeVisible();
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('only Go Home is offered', async ({ page }) => {
    const response = await page.goto('/no-such-page/x');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page Not Found');
    await expect(page.getByRole('link', { name: 'Go Home' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Go Back' })).toBeHidden();
  });
});
