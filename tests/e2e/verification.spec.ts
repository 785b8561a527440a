// The sign-up confirmation link against the real stack and mail catcher: the first click confirms the account,
// a used or expired link lands on the same page with the auth server's error in the fragment and says so.
import { expect, type Page, test } from '@playwright/test';
import { copy, labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { sentTo, waitForMail } from './mail.ts';

// The landing page's words come from content/verification/{user,user-expired}.md, the form's from
// content/labels/auth.md (tests/content.ts).
const t = labels('auth');
const verified = copy('verification/user');
const expired = copy('verification/user-expired');
const PASSWORD = 'Str0ng-pass!';

// Sign-up goes through a function and a mail: on a busy machine that takes longer than a static page.
test.describe.configure({ timeout: 90_000 });
test.skip(({ isMobile }) => isMobile, 'one layout is enough for the landing page');

const uniqueEmail = () => `confirm-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;
const main = (page: Page) => page.locator('main');

/** Signs up through the /auth form; the auth service mails the confirmation link. */
async function signUp(page: Page, email: string) {
  await page.goto('/auth?tab=signup');
  await page.getByLabel(t('firstName')).fill('Ada');
  await page.getByLabel(t('lastName')).fill('Lovelace');
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t('signUp') }).click();
}

/** The page shows the used/expired variant: heading, text, title and the way to a new link. */
async function expectExpired(page: Page) {
  await expect(page.locator('h1')).toHaveText(expired.heading);
  await expect(page).toHaveTitle(expired.title);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', expired.description);
  await expect(main(page).getByText(verified.heading)).toBeHidden();
  for (const link of expired.links) {
    await expect(main(page).getByRole('link', { name: link.label, exact: true })).toHaveAttribute('href', link.href);
  }
  await expect(main(page).getByRole('link', { name: verified.links[0]?.label, exact: true })).toHaveCount(0);
}

test('a confirmation link: Account verified the first time, then it has expired or was used', async ({ page }) => {
  const email = uniqueEmail();
  await signUp(page, email);
  const mail = await waitForMail(sentTo(email));
  const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.Text)?.[0];
  expect(link, mail.Text).toBeTruthy();

  await page.goto(link as string);
  await expect(page).toHaveURL(/\/newsletter-verified\?type=user$/);
  await expect(page.locator('h1')).toHaveText(verified.heading);

  // The same link again: the auth server redirects with #error=access_denied&error_code=otp_expired&...
  const redirects: string[] = [];
  page.on('response', (response) => {
    const location = response.headers().location;
    if (location) redirects.push(location);
  });
  await page.goto(link as string);
  await expectExpired(page);
  expect(redirects.some((l) => /#error=access_denied&error_code=otp_expired&error_description=/.test(l))).toBe(true);
  // The error is taken out of the address bar, as tokens are.
  await expect.poll(() => page.evaluate(() => location.href)).toMatch(/\/newsletter-verified\?type=user$/);

  // The way to a new link: the confirmation step of /auth (resend, or type the code).
  await main(page).getByRole('link', { name: expired.links[0]?.label, exact: true }).click();
  await expect(page).toHaveURL(/\/auth\/?\?tab=confirm$/);
});

test('a hand-made otp_expired fragment shows the message, leaves the address bar clean, and passes axe', async ({
  page,
}) => {
  await page.goto(
    '/newsletter-verified?type=user#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=',
  );
  await expectExpired(page);
  await expect.poll(() => page.evaluate(() => location.href)).toMatch(/\/newsletter-verified\?type=user$/);
  expect(await axeViolations(page)).toEqual([]);
});

test('an error without ?type=user (a link sent elsewhere) still does not claim success', async ({ page }) => {
  await page.goto('/newsletter-verified#error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired');
  await expectExpired(page);
  await expect.poll(() => page.evaluate(() => location.href)).toMatch(/\/newsletter-verified$/);
});

test('without an error in the fragment the page still says Account verified', async ({ page }) => {
  await page.goto('/newsletter-verified?type=user#access_token=abc&refresh_token=def&type=signup');
  await expect(page.locator('h1')).toHaveText(verified.heading);
  await expect(main(page).getByText(expired.heading)).toBeHidden();
});
