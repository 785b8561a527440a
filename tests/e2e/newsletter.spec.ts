import { expect, type Page, test } from '@playwright/test';
import { axeViolations, postsTo } from './checks.ts';
import { sentTo, waitForMail } from './mail.ts';

const API = process.env.E2E_SUPABASE_URL ?? 'http://127.0.0.1:54321';
const FUNCTION = `${API}/functions/v1/newsletter-signup`;

const uniqueEmail = () => `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;

const card = (page: Page) => page.locator('#newsletter');
const emailField = (page: Page) => card(page).getByLabel('Email address');
const subscribe = (page: Page) => card(page).getByRole('button', { name: /^Subscrib(e|ing\.\.\.)$/ });

// The machine running these may be busy: a first call loads the function, and axe takes a while.
test.describe.configure({ timeout: 90_000 });
/** For what follows a round trip to a function. */
const AFTER_CALL = { timeout: 20_000 };

test('subscribe, read the verification mail, open its link: Email verified', async ({ page }) => {
  const email = uniqueEmail();
  await page.goto('/');
  await expect(card(page).getByRole('heading', { name: 'Signals in your inbox' })).toBeVisible();
  // Hold the request briefly so that the busy state can be seen.
  await page.route(FUNCTION, async (route) => {
    await new Promise((r) => setTimeout(r, 300));
    await route.continue();
  });
  await emailField(page).fill(email);
  await subscribe(page).click();
  await expect(subscribe(page)).toHaveText('Subscribing...');
  await expect(subscribe(page)).toBeDisabled();

  const toast = page.getByRole('status').filter({ hasText: 'Check your email!' });
  await expect(toast).toBeVisible(AFTER_CALL);
  await expect(toast).toContainText('inbox');
  await expect(toast).toContainText('spam');
  await expect(emailField(page)).toHaveValue('');
  await expect(subscribe(page)).toHaveText('Subscribe');
  await expect(subscribe(page)).toBeEnabled();

  const mail = await waitForMail(sentTo(email));
  expect(mail.Subject).toBe('Confirm your SignalOne newsletter subscription');
  const link = /https?:\/\/\S+\/functions\/v1\/newsletter-signup\?token=[\w-]+/.exec(mail.Text)?.[0];
  expect(link).toBeTruthy();

  await page.goto(link as string);
  await expect(page).toHaveURL(/\/newsletter-verified$/);
  await expect(page.locator('h1')).toHaveText('Email verified');
  await expect(page.getByRole('link', { name: 'Go to homepage' })).toHaveAttribute('href', '/');
  await expect(page.getByRole('link', { name: 'Login', exact: true })).toHaveAttribute('href', '/auth');
});

test('no email: "Please enter your email address." on the field, focused, and nothing sent', async ({ page }) => {
  await page.goto('/');
  const sent = postsTo(page, FUNCTION);
  await subscribe(page).click();
  const error = card(page).getByText('Please enter your email address.');
  await expect(error).toBeVisible();
  await expect(emailField(page)).toHaveAttribute('aria-invalid', 'true');
  await expect(emailField(page)).toHaveAttribute('aria-describedby', (await error.getAttribute('id')) ?? '');
  await expect(emailField(page)).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);

  // Typing clears the error; a malformed address gets its own message.
  await emailField(page).fill('reader-at-example');
  await expect(error).toBeHidden();
  await expect(emailField(page)).not.toHaveAttribute('aria-invalid', 'true');
  await emailField(page).press('Enter');
  await expect(card(page).getByText('Email must be a valid email address.')).toBeVisible();
  expect(sent).toEqual([]);
});

test('a filled honeypot: "Please try again later", and nothing is sent', async ({ page }) => {
  await page.goto('/');
  const sent = postsTo(page, FUNCTION);
  const honeypot = card(page).locator('input[name="website"]');
  await expect(honeypot).toHaveAttribute('tabindex', '-1');
  await expect(honeypot).toHaveAttribute('autocomplete', 'off');
  await honeypot.evaluate((el: HTMLInputElement) => {
    el.value = 'http://spam.example';
  });
  await emailField(page).fill(uniqueEmail());
  await subscribe(page).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Please try again later' })).toBeVisible(AFTER_CALL);
  expect(sent).toEqual([]);
});

test('the server failing: "Failed to subscribe. Please try again later." and the address is kept', async ({ page }) => {
  await page.goto('/');
  // The function cannot be reached (the network fails on the way).
  await page.route(FUNCTION, (route) => route.abort('failed'));
  const email = uniqueEmail();
  await emailField(page).fill(email);
  await subscribe(page).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Failed to subscribe. Please try again later.' })).toBeVisible(
    AFTER_CALL,
  );
  await expect(emailField(page)).toHaveValue(email);
  await expect(subscribe(page)).toBeEnabled();
});

test('an unknown link lands on "Link not valid", with a way to subscribe again', async ({ page }) => {
  await page.goto(`${FUNCTION}?token=${'A'.repeat(43)}`);
  await expect(page).toHaveURL(/\/newsletter-verified\?status=invalid$/);
  await expect(page.locator('h1')).toHaveText('Link not valid');
  await expect(page).toHaveTitle('Link Not Valid | SignalOne');
  await expect(page.getByText('Email verified')).toBeHidden();
  await expect(page.getByRole('link', { name: 'Subscribe again' })).toHaveAttribute('href', '/#newsletter');
  expect(await axeViolations(page)).toEqual([]);
});

test('an expired link lands on "Link expired"; Subscribe again leads to the card', async ({ page }) => {
  await page.goto('/newsletter-verified?status=expired');
  await expect(page.locator('h1')).toHaveText('Link expired');
  await expect(page).toHaveTitle('Link Expired | SignalOne');
  await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', /link has expired/);
  await expect(page.getByText('This verification link has expired')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to homepage' })).toHaveAttribute('href', '/');
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('link', { name: 'Subscribe again' }).click();
  await expect(page).toHaveURL(/\/#newsletter$/);
  await expect(emailField(page)).toBeVisible();
});

test('Home with the newsletter card has no axe violations @mobile', async ({ page }) => {
  await page.goto('/');
  await expect(emailField(page)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});
