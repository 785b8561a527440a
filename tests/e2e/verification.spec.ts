// The sign-up confirmation mail against the real stack and mail catcher. Its link opens /auth's password form:
// nothing is confirmed until a password is saved there, so fetching the link (a mail scanner) or opening it
// confirms nothing, and whoever confirms the address sets its password: a stranger who signed the address up
// with a password of their own never signs in with it. A used or expired link lands on the same page as
// before, which says so.
import { expect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY } from 'local-supabase';
import { copy, labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API } from './env.ts';
import { confirmationLink, sentTo, waitForMail } from './mail.ts';
import { passwordGrant, type Session, storedEmail } from './members.ts';

// The landing page's words come from content/verification/{user,user-expired}.md, the form's from
// content/labels/auth.md (tests/content.ts).
const t = labels('auth');
const verified = copy('verification/user');
const expired = copy('verification/user-expired');
const PASSWORD = 'Str0ng-pass!';
const OWNER_PASSWORD = 'Own3r-chosen!';
const STRANGER_PASSWORD = 'Str4nger-pass!';

// Sign-up goes through a function and a mail: on a busy machine that takes longer than a static page.
test.describe.configure({ timeout: 90_000 });
test.skip(({ isMobile }) => isMobile, 'one layout is enough for the landing page');

const uniqueEmail = () => `confirm-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;
const main = (page: Page) => page.locator('main');

async function post(path: string, body: unknown, bearer?: string): Promise<Response> {
  return fetch(`${API}${path}`, {
    method: 'POST',
    headers: {
      apikey: DEMO_ANON_KEY,
      'Content-Type': 'application/json',
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** What the auth service answers a password sign-in: 'ok', or its error code (email_not_confirmed, ...). */
async function signInAnswer(email: string, password: string): Promise<string> {
  const res = await passwordGrant(email, password);
  if (res.ok) return 'ok';
  const body = (await res.json()) as { error_code?: string; error?: string };
  return body.error_code ?? body.error ?? String(res.status);
}

/** A session for the address with this password, or undefined while the auth service refuses it. */
async function sessionOf(email: string, password: string): Promise<Session | undefined> {
  const res = await passwordGrant(email, password);
  return res.ok ? ((await res.json()) as Session) : undefined;
}

/** Signs up through the /auth form; the auth service mails the confirmation. */
async function signUp(page: Page, email: string, password = PASSWORD) {
  await page.goto('/auth?tab=signup');
  await page.getByLabel(t('firstName')).fill('Ada');
  await page.getByLabel(t('lastName')).fill('Lovelace');
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: t('signUp') }).click();
}

/** Fills the password form the confirmation link opened and saves it. */
async function choosePassword(page: Page, password: string) {
  await page.getByLabel(t('newPassword'), { exact: true }).fill(password);
  await page.getByLabel(t('confirmPassword')).fill(password);
  await page.getByRole('button', { name: t('updatePassword') }).click();
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

test('the link confirms nothing until a password is saved; then Account verified, sign in; used again, it has expired', async ({
  page,
  request,
  browser,
}) => {
  const email = uniqueEmail();
  await signUp(page, email);
  const link = confirmationLink(await waitForMail(sentTo(email)));
  expect(new URL(link).pathname).toBe('/auth');

  // A mail scanner fetching the link gets the page and confirms nothing.
  expect((await request.get(link)).status()).toBe(200);
  expect(await signInAnswer(email, PASSWORD)).toBe('email_not_confirmed');

  // Opened in the browser, the page's script runs and shows the form: still nothing confirmed.
  await page.goto(link);
  await expect(page.getByRole('heading', { name: t('chooseHeading') })).toBeVisible();
  await expect(page.getByText(t('chooseLead'))).toBeVisible();
  await expect(page.getByLabel(t('newPassword'), { exact: true })).toHaveAttribute('autocomplete', 'new-password');
  expect(await signInAnswer(email, PASSWORD)).toBe('email_not_confirmed');
  expect(await storedEmail(page)).toBeNull();
  expect(await axeViolations(page)).toEqual([]);

  // The password chosen at sign-up typed again (the auth service answers same_password): it is the account's.
  await choosePassword(page, PASSWORD);
  await expect(page).toHaveURL(/\/newsletter-verified\?type=user$/);
  await expect(page.locator('h1')).toHaveText(verified.heading);
  expect(await storedEmail(page)).toBeNull();
  await main(page).getByRole('link', { name: verified.links[0]?.label, exact: true }).click();
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  // The same link again, in another browser: saving says it has expired, and the password stays.
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(link);
  await choosePassword(other, OWNER_PASSWORD);
  await expectExpired(other);
  await expect.poll(() => other.evaluate(() => location.href)).toMatch(/\/newsletter-verified\?type=user$/);
  expect(await signInAnswer(email, OWNER_PASSWORD)).toBe('invalid_credentials');
  expect(await signInAnswer(email, PASSWORD)).toBe('ok');

  // The way to a new link: the confirmation step of /auth (resend, or type the code).
  await main(other).getByRole('link', { name: expired.links[0]?.label, exact: true }).click();
  await expect(other).toHaveURL(/\/auth\/?\?tab=confirm$/);
  await fresh.close();
});

test("a stranger signs the address up with their password: the owner's link sets the owner's, the stranger is out", async ({
  page,
}) => {
  const owner = uniqueEmail();
  // The stranger goes to the auth service directly, as anyone with the site's public key can.
  const signup = await post('/auth/v1/signup', {
    email: owner,
    password: STRANGER_PASSWORD,
    data: { first_name: 'Evil', last_name: 'Twin' },
  });
  expect(signup.status).toBe(200);
  const link = confirmationLink(await waitForMail(sentTo(owner)));

  await page.goto(link);
  await expect(page.getByRole('heading', { name: t('chooseHeading') })).toBeVisible();
  // The page's password change is held until the stranger, trying again and again, gets in with the
  // stranger's password: the moment between the confirmation and the owner's password, made long.
  const held: { stranger?: Session } = {};
  await page.route('**/auth/v1/user', async (route) => {
    if (route.request().method() === 'PUT' && !held.stranger) {
      await expect
        .poll(async () => {
          held.stranger = await sessionOf(owner, STRANGER_PASSWORD);
          return held.stranger !== undefined;
        })
        .toBe(true);
    }
    await route.continue();
  });
  await choosePassword(page, OWNER_PASSWORD);
  await expect(page).toHaveURL(/\/newsletter-verified\?type=user$/);
  await expect(page.locator('h1')).toHaveText(verified.heading);
  // The stranger's password no longer signs in, and the session they got in that moment is over.
  expect(await signInAnswer(owner, STRANGER_PASSWORD)).toBe('invalid_credentials');
  const stranger = held.stranger;
  expect(stranger).toBeDefined();
  const refresh = await post('/auth/v1/token?grant_type=refresh_token', { refresh_token: stranger?.refresh_token });
  expect(refresh.status).toBe(400);
  const user = await fetch(`${API}/auth/v1/user`, {
    headers: { apikey: DEMO_ANON_KEY, Authorization: `Bearer ${stranger?.access_token}` },
  });
  expect(user.status).toBe(403);
  expect(await signInAnswer(owner, OWNER_PASSWORD)).toBe('ok');
});

test("the race: a stranger signs up the owner's address after the owner; the newest code keeps the owner's password", async ({
  page,
}) => {
  const owner = uniqueEmail();
  await signUp(page, owner, OWNER_PASSWORD);
  await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible({ timeout: 15_000 });
  const first = await waitForMail(sentTo(owner));

  // The stranger signs the same address up again through the site's own function, with their password.
  const again = await fetch(`${API}/functions/v1/user-signup`, {
    method: 'POST',
    headers: { apikey: DEMO_ANON_KEY, Authorization: `Bearer ${DEMO_ANON_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: owner, password: STRANGER_PASSWORD, firstName: 'Evil', lastName: 'Twin' }),
  });
  expect(again.status).toBe(200);
  const newest = await waitForMail((m) => sentTo(owner)(m) && m.ID !== first.ID);
  const code = /Or use this code: (\d{6})/.exec(newest.Text)?.[1] ?? '';

  // The owner, still on the code step, types the newest mail's code: the password typed at sign-up goes with it.
  await page.getByRole('textbox', { name: t('code') }).fill(code);
  await page.getByRole('button', { name: t('confirmCode') }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await storedEmail(page)).toBe(owner);
  expect(await signInAnswer(owner, STRANGER_PASSWORD)).toBe('invalid_credentials');
  expect(await signInAnswer(owner, OWNER_PASSWORD)).toBe('ok');
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
