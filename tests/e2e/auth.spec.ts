// Accounts in a real browser against the stack: sign up, confirm by mail, sign in, sign out, reset the
// password by mail, and every message of the /auth page a person can meet on the way.
import { expect, type Page, test } from '@playwright/test';
import { axeViolations } from './checks.ts';

const API = process.env.E2E_SUPABASE_URL ?? 'http://127.0.0.1:54321';
const MAIL = process.env.E2E_MAIL_API ?? 'http://127.0.0.1:54324/api/v1';
// The local stack's demo keys (public values, see the README).
const ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
const SERVICE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';
const PASSWORD = 'Str0ng-pass!';

let counter = 0;
const uniqueEmail = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;

/** A confirmed user made with the admin API, as support staff would. */
async function createUser(email: string, password = PASSWORD) {
  const res = await fetch(`${API}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { apikey: SERVICE_KEY, Authorization: `Bearer ${SERVICE_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email,
      password,
      email_confirm: true,
      user_metadata: { first_name: 'Test', last_name: 'User' },
    }),
  });
  expect(res.status).toBe(200);
}

/** Whether the auth service accepts this password for the address. */
async function passwordWorks(email: string, password: string): Promise<boolean> {
  const res = await fetch(`${API}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: ANON_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return res.status === 200;
}

/** The verify link of the newest mail to `to`. */
async function mailedLink(to: string): Promise<string> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const { messages } = (await (await fetch(`${MAIL}/messages`)).json()) as {
      messages: { ID: string; To: { Address: string }[] }[];
    };
    const hit = messages.find((m) => m.To.some((t) => t.Address.toLowerCase() === to.toLowerCase()));
    if (hit) {
      const { Text } = (await (await fetch(`${MAIL}/message/${hit.ID}`)).json()) as { Text: string };
      const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(Text)?.[0];
      if (!link) throw new Error(`no link in the mail to ${to}: ${Text}`);
      return link;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

const toast = (page: Page, title: string) =>
  page.getByRole('region', { name: 'Notifications' }).locator('li').filter({ hasText: title });

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/auth?tab=signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

test.describe('desktop', () => {
  test.skip(({ isMobile }) => isMobile, 'desktop header');

  test('sign up, confirm by mail, sign in, see the email in the header, sign out', async ({ page }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('new');
    await page.goto('/auth?tab=signup');
    await expect(page.getByRole('tab', { name: 'Sign Up' })).toHaveAttribute('aria-selected', 'true');
    await page.getByLabel('First Name').fill('Ada');
    await page.getByLabel('Last Name').fill('Lovelace');
    await page.getByLabel('Email').fill(email);
    const submit = page.getByRole('button', { name: 'Create Account' });
    const password = page.getByLabel('Password', { exact: true });
    await expect(page.getByText('Password must contain:')).toBeHidden();
    await password.fill('weak');
    await expect(page.getByText('Password must contain:')).toBeVisible();
    await expect(submit).toBeDisabled();
    await password.fill(PASSWORD);
    await expect(submit).toBeEnabled();
    await submit.click();
    await expect(page.getByText('Password must contain:')).toBeHidden();
    await expect(toast(page, 'Please check your email to verify your account before signing in.')).toBeVisible({
      timeout: 15_000,
    });
    await expect(page.getByLabel('Email')).toHaveValue('');
    await expect(page.getByLabel('First Name')).toHaveValue('');

    await page.goto(await mailedLink(email));
    await expect(page).toHaveURL(/\/newsletter-verified\?type=user$/);
    await expect(page.locator('h1')).toHaveText('Account verified');
    await page.getByRole('link', { name: 'Go to Login' }).click();

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, 'Welcome back!')).toBeVisible();
    const header = page.getByRole('banner');
    await expect(header.getByText(email).filter({ visible: true })).toBeVisible();

    await header.getByRole('button', { name: 'Sign Out' }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(toast(page, 'Signed out')).toContainText('You have been signed out successfully.');
    await expect(header.getByRole('link', { name: 'Sign In' })).toBeVisible();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('auth-token')))).toEqual([]);
  });

  test('an existing address: Account exists', async ({ page }) => {
    const email = uniqueEmail('taken');
    await createUser(email);
    await page.goto('/auth?tab=signup');
    await page.getByLabel('First Name').fill('Ada');
    await page.getByLabel('Last Name').fill('Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(toast(page, 'Account exists')).toContainText(
      'This email is already registered. Please sign in instead.',
      { timeout: 15_000 },
    );
  });

  test('blank names: Missing information, nothing sent', async ({ page }) => {
    const email = uniqueEmail('noname');
    await page.goto('/auth?tab=signup');
    await page.getByLabel('First Name').fill('   ');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(toast(page, 'Missing information')).toContainText('Please provide your first and last name.');
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
  });

  test('a wrong password: Invalid credentials, and the page stays', async ({ page }) => {
    const email = uniqueEmail('wrong');
    await createUser(email);
    await signIn(page, email, 'Not-the-1-password');
    await expect(toast(page, 'Invalid credentials')).toContainText(
      'Please check your email and password and try again.',
    );
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
  });

  test('a signed-in visitor opening /auth goes to /', async ({ page }) => {
    const email = uniqueEmail('signedin');
    await createUser(email);
    await signIn(page, email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/auth?tab=signup');
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
  });

  test('forgot password without an email: Email required', async ({ page }) => {
    await page.goto('/auth');
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await expect(toast(page, 'Email required')).toContainText('Please enter your email address first.');
  });

  test('reset by mail: mismatch, new password, /dashboard; old password fails; the used link has expired', async ({
    page,
    browser,
  }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('reset');
    await createUser(email);
    await page.goto('/auth?tab=signin');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await expect(toast(page, 'Reset email sent')).toBeVisible({ timeout: 15_000 });

    const link = await mailedLink(email);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
    // Tokens are out of the address bar.
    await expect(page).toHaveURL(/\/auth\?tab=reset$/);
    await page.getByLabel('New Password', { exact: true }).fill('N3w-password!');
    await expect(page.getByText('Password must contain:')).toBeVisible();
    await page.getByLabel('Confirm New Password').fill('N3w-password?');
    await page.getByRole('button', { name: 'Update Password' }).click();
    await expect(toast(page, 'Passwords do not match')).toContainText('Please make sure both passwords are identical.');
    await page.getByLabel('Confirm New Password').fill('N3w-password!');
    await page.getByRole('button', { name: 'Update Password' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, 'Password updated')).toBeVisible();
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
    expect(await passwordWorks(email, 'N3w-password!')).toBe(true);

    // The same link again, in a fresh browser.
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await other.goto(link);
    await expect(toast(other, 'Reset link expired')).toContainText(
      'Your password reset link has expired. Please request a new one.',
    );
    await expect(other.getByRole('tab', { name: 'Sign In' })).toHaveAttribute('aria-selected', 'true');
    await expect(other).toHaveURL(/\/auth\?tab=signin$/);
    await fresh.close();
  });

  test('tab=reset without a session: updating says the link has expired and returns to the tabs', async ({ page }) => {
    await page.goto('/auth?tab=reset');
    await page.getByLabel('New Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm New Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Update Password' }).click();
    await expect(toast(page, 'Reset link expired')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Sign In' })).toHaveAttribute('aria-selected', 'true');
  });

  test('a reset code that cannot be exchanged: Reset link expired, back to the tabs', async ({ page }) => {
    await page.goto('/auth?code=0b0e5c4e-used-or-foreign');
    await expect(toast(page, 'Reset link expired')).toContainText(
      'Your password reset link has expired. Please request a new one.',
    );
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
    await expect(page.getByRole('tab', { name: 'Sign In' })).toHaveAttribute('aria-selected', 'true');
  });

  test('Sign Out that fails keeps the session and says so; a retry signs out', async ({ page }) => {
    const email = uniqueEmail('signout');
    await createUser(email);
    await signIn(page, email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.route('**/auth/v1/logout**', (route) => route.abort('connectionrefused'));
    const header = page.getByRole('banner');
    await header.getByRole('button', { name: 'Sign Out' }).filter({ visible: true }).click();
    await expect(toast(page, 'Error')).toContainText('Failed to sign out. Please try again.');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(header.getByText(email).filter({ visible: true })).toBeVisible();
    await page.unroute('**/auth/v1/logout**');
    await header.getByRole('button', { name: 'Sign Out' }).filter({ visible: true }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
    await expect(toast(page, 'Signed out')).toBeVisible();
  });

  test('Cancel on the reset form returns to the Sign In tab', async ({ page }) => {
    await page.goto('/auth?tab=reset');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
    await expect(page.getByRole('tab', { name: 'Sign In' })).toHaveAttribute('aria-selected', 'true');
  });

  test('the tabs work from the keyboard and follow ?tab=', async ({ page }) => {
    await page.goto('/auth?tab=signin');
    const signInTab = page.getByRole('tab', { name: 'Sign In' });
    await signInTab.focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: 'Sign Up' })).toBeFocused();
    await expect(page.getByRole('tab', { name: 'Sign Up' })).toHaveAttribute('aria-selected', 'true');
    await expect(page).toHaveURL(/\/auth\?tab=signup$/);
    await expect(page.getByLabel('First Name')).toBeVisible();
    await page.keyboard.press('ArrowLeft');
    await expect(signInTab).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByLabel('First Name')).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Back to Home' })).toHaveAttribute('href', '/');
  });

  for (const [mode, path, ready] of [
    ['sign in', '/auth?tab=signin', 'Forgot password?'],
    ['sign up', '/auth?tab=signup', 'Create Account'],
    ['reset', '/auth?tab=reset', 'Update Password'],
  ] as const) {
    test(`/auth in ${mode} mode has no axe violations, the checklist open`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('button', { name: ready })).toBeVisible();
      const password = page.getByLabel(/^(New )?Password$/);
      await password.focus();
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});

test('sign out from the mobile menu @mobile', async ({ page, isMobile }) => {
  test.skip(!isMobile, 'the mobile menu');
  const email = uniqueEmail('mobile');
  await createUser(email);
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole('button', { name: 'Open menu' }).click();
  const menu = page.locator('#mobile-menu-panel');
  await expect(menu.getByText(email)).toBeVisible();
  await menu.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(toast(page, 'Signed out')).toContainText('You have been signed out successfully.');
});
