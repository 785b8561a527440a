import { type BrowserContext, expect as baseExpect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY, DEMO_SERVICE_ROLE_KEY } from '../../supabase/local/config.ts';
import { axeViolations } from './checks.ts';

// The signed-in area against the real stack: members are created with the auth admin API, signed in with
// the password grant, and the session is stored where supabase-js keeps it before the page loads.

// Each test signs a new member in and reads and writes through the stack: on a busy two-core machine that
// takes longer than a static page, so these get more time than the defaults (30 s a test, 5 s a check).
test.describe.configure({ timeout: 60_000 });
const expect = baseExpect.configure({ timeout: 10_000 });

const API = process.env.E2E_SUPABASE_URL ?? 'http://127.0.0.1:54321';
const SESSION_KEY = 'sb-127-auth-token';
const PASSWORD = 'Str0ng!Passw0rd';

interface Member {
  id: string;
  email: string;
  password: string;
}

const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

let counter = 0;
async function createMember(firstName = 'Ada', lastName = 'Lovelace'): Promise<Member> {
  const email = `member-${Date.now()}-${process.pid}-${counter++}@example.com`;
  const response = await fetch(`${API}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { ...service, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { first_name: firstName, last_name: lastName },
    }),
  });
  expect(response.status).toBe(200);
  const user = (await response.json()) as { id: string };
  return { id: user.id, email, password: PASSWORD };
}

async function passwordGrant(email: string, password: string): Promise<Response> {
  return fetch(`${API}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: DEMO_ANON_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

/** Signs in with the password grant and stores the session as supabase-js does, on this site's origin. */
async function signIn(page: Page, member: Member): Promise<void> {
  const response = await passwordGrant(member.email, member.password);
  expect(response.status).toBe(200);
  const session = await response.json();
  await page.goto('/about-us');
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [SESSION_KEY, JSON.stringify(session)]);
}

async function profileRow(userId: string) {
  const response = await fetch(`${API}/rest/v1/profiles?user_id=eq.${userId}&select=*`, { headers: service });
  const rows = (await response.json()) as Record<string, unknown>[];
  return rows[0];
}

const main = (page: Page) => page.locator('main');
const rail = (page: Page) => page.locator('#member-sidebar');

test.describe('signed out', () => {
  for (const path of ['/dashboard', '/settings']) {
    test(`${path} sends a visitor without a session to /auth`, async ({ page }) => {
      await page.goto(path);
      await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
    });
  }

  test('/analysis asks a visitor to sign in, with a link to the sign-in tab, and stays', async ({ page }) => {
    await page.goto('/analysis');
    await expect(main(page).getByText('Please sign in to access market analysis.')).toBeVisible();
    await expect(main(page).getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth?tab=signin');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Market Analysis');
    await page.waitForTimeout(300);
    await expect(page).toHaveURL(/\/analysis\/?$/);
    await expect(rail(page)).toHaveCount(0);
  });

  test('the server renders only the loading state, with the page title and noindex', async ({ request }) => {
    for (const [path, loading, title] of [
      ['/dashboard', 'Loading dashboard...', 'Dashboard | SignalOne'],
      ['/analysis', 'Loading analysis...', 'Market Analysis | SignalOne'],
      ['/settings', 'Loading settings...', 'Settings | SignalOne'],
    ]) {
      const html = await (await request.get(path)).text();
      expect(html, path).toContain(`<title>${title}</title>`);
      expect(html, path).toMatch(/<meta name="robots" content="noindex/);
      const island = html.slice(html.indexOf('<astro-island'), html.indexOf('</astro-island>'));
      expect(island, path).toContain(loading);
      for (const guess of ['Free Member', 'Profile Information', 'Please sign in', 'Sign Out']) {
        expect(island.replace(/props="[^"]*"/, ''), `${path}: ${guess}`).not.toContain(guess);
      }
    }
  });
});

test.describe('signed in', () => {
  test('dashboard: tools Coming Soon, account status, and the sidebar profile', async ({ page }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Dashboard');
    for (const title of ['Premium Signals', 'Market Analysis']) {
      const card = main(page).locator('li', { has: page.getByRole('heading', { name: title }) });
      await expect(card).toBeVisible();
      await expect(card.getByText('Coming Soon')).toBeVisible();
      await expect(card.getByRole('link')).toHaveCount(0);
    }
    const status = main(page).getByRole('region', { name: 'Account Status' });
    await expect(status).toContainText('Free Member');
    await expect(status).toContainText('0 / Unlimited');
    await expect(status).toContainText('Just now');
    await expect(status.getByRole('button', { name: 'Coming Soon' })).toBeDisabled();

    const profile = rail(page).getByRole('region', { name: 'Profile Information' });
    await expect(profile).toContainText('Ada Lovelace');
    await expect(profile).toContainText(member.email);
    await expect(profile).toContainText('Verified');
    const today = await page.evaluate(() =>
      new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }).format(new Date()),
    );
    await expect(profile).toContainText(`Member since${today}`);

    const nav = rail(page).getByRole('navigation', { name: 'Account' });
    const links = nav.getByRole('link');
    await expect(links).toHaveText(['Dashboard', 'Signals', 'Analysis', 'Settings']);
    expect(await links.evaluateAll((a) => a.map((l) => l.getAttribute('href')))).toEqual([
      '/dashboard',
      '/signals',
      '/analysis',
      '/settings',
    ]);
    await expect(nav.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    await expect(nav.locator('[aria-current]')).toHaveCount(1);
  });

  test('an unverified address shows Unverified in the sidebar', async ({ page }) => {
    const member = await createMember();
    const patch = await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, {
      method: 'PATCH',
      headers: { ...service, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email_verified: false }),
    });
    expect(patch.status).toBeLessThan(300);
    await signIn(page, member);
    await page.goto('/analysis');
    await expect(rail(page).getByText('Unverified')).toBeVisible();
    await expect(main(page).getByRole('heading', { name: 'Coming Soon' })).toBeVisible();
    await expect(rail(page).getByRole('link', { name: 'Analysis' })).toHaveAttribute('aria-current', 'page');
  });

  test('a profile that cannot be read: the message, and Go to Sign In signs out here and opens /auth', async ({
    page,
  }) => {
    const member = await createMember();
    const removed = await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, {
      method: 'DELETE',
      headers: service,
    });
    expect(removed.status).toBeLessThan(300);
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(main(page).getByText('Unable to load profile data. Please try signing in again.')).toBeVisible();
    await main(page).getByRole('button', { name: 'Go to Sign In' }).click();
    await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
    expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  test('settings: names are saved trimmed, the form and sidebar reload, and the row holds them', async ({ page }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/settings');
    const first = page.getByLabel('First name');
    const last = page.getByLabel('Last name');
    await expect(first).toHaveValue('Ada');
    await expect(last).toHaveValue('Lovelace');
    const email = page.getByLabel('Email', { exact: true });
    await expect(email).toHaveValue(member.email);
    await expect(email).toHaveAttribute('readonly', '');
    await expect(main(page).getByText('Email cannot be changed')).toBeVisible();

    await first.fill('  Grace  ');
    await last.fill(' Hopper   ');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByText('Profile updated successfully.')).toBeVisible();
    await expect(page.getByText('Success', { exact: true })).toBeVisible();
    await expect(first).toHaveValue('Grace');
    await expect(last).toHaveValue('Hopper');
    await expect(rail(page).getByRole('region', { name: 'Profile Information' })).toContainText('Grace Hopper');

    const row = await profileRow(member.id);
    expect(row).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', email: member.email });

    await page.reload();
    await expect(page.getByLabel('First name')).toHaveValue('Grace');
    await expect(page.getByLabel('Last name')).toHaveValue('Hopper');
  });

  test('settings: a profile that cannot be read gives the Error toast and leaves the form unusable', async ({
    page,
  }) => {
    const member = await createMember();
    await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, { method: 'DELETE', headers: service });
    await signIn(page, member);
    await page.goto('/settings');
    const toast = page.getByRole('alert').filter({ hasText: 'Failed to load profile. Please refresh the page.' });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText('Error');
    await expect(page.getByLabel('First name')).toBeDisabled();
    await expect(page.getByLabel('Last name')).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Save Changes' })).toBeDisabled();
  });

  test('settings: while saving the form is busy; a refused update keeps the row and says so', async ({ page }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/settings');
    await expect(page.getByLabel('First name')).toHaveValue('Ada');
    // The API refusing the write (an outage at the network boundary): the browser sees a 503.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/rest/v1/profiles**', async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      await held;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'PGRST000', message: 'Service unavailable', details: null, hint: null }),
      });
    });
    await page.getByLabel('First name').fill('Changed');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await expect(page.getByRole('button', { name: 'Saving...' })).toBeDisabled();
    await expect(page.getByLabel('First name')).toBeDisabled();
    release();
    const toast = page.getByRole('alert').filter({ hasText: 'Failed to update profile. Please try again.' });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText('Error');
    await expect(page.getByRole('button', { name: 'Save Changes' })).toBeEnabled();
    await expect(page.getByLabel('First name')).toHaveValue('Changed');
    expect(await profileRow(member.id)).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
  });

  test('settings: Change password keeps to the rules, then the new password signs in and the old one fails', async ({
    page,
  }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/settings');
    const security = main(page).getByRole('region', { name: 'Security Settings' });
    await expect(security.getByText('Two-factor authentication')).toBeVisible();
    await expect(security.getByText('Coming Soon')).toBeVisible();

    const next = security.getByLabel('New Password', { exact: true });
    const confirm = security.getByLabel('Confirm New Password');
    const submit = security.getByRole('button', { name: 'Update Password' });
    await expect(security.getByText('Password must contain:')).toBeVisible();
    await expect(submit).toBeDisabled();
    await next.fill('short1!');
    await expect(submit).toBeDisabled();
    await expect(security.getByText('At least 8 characters: not met')).toBeAttached();

    const newPassword = 'N3w!Password';
    await next.fill(newPassword);
    await expect(security.getByText('At least 8 characters: met')).toBeAttached();
    await expect(submit).toBeEnabled();
    await confirm.fill('N3w!Passwore');
    await expect(
      security.getByText('Passwords do not match: Please make sure both passwords are identical.'),
    ).toBeVisible();
    await submit.click();
    await expect(page.getByRole('alert').getByText('Please make sure both passwords are identical.')).toBeVisible();

    await next.fill(PASSWORD);
    await confirm.fill(PASSWORD);
    await submit.click();
    await expect(page.getByText('New password should be different from the old password.')).toBeVisible();

    await next.fill(newPassword);
    await confirm.fill(newPassword);
    await submit.click();
    await expect(page.getByText('Password updated', { exact: true })).toBeVisible();
    await expect(next).toHaveValue('');
    await expect(confirm).toHaveValue('');

    expect((await passwordGrant(member.email, newPassword)).status).toBe(200);
    const old = await passwordGrant(member.email, PASSWORD);
    expect(old.status).toBe(400);
    expect(((await old.json()) as { error_code?: string }).error_code).toBe('invalid_credentials');
  });
});

async function sidebarCookie(context: BrowserContext) {
  return (await context.cookies()).find((c) => c.name === 'sidebar_state');
}

test.describe('sidebar', () => {
  test.skip(({ isMobile }) => isMobile, 'the rail shows from 768px');

  test('collapses to a rail and stays so across reloads and pages; Ctrl+B toggles it', async ({ page, context }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(rail(page)).toHaveAttribute('data-state', 'expanded');
    expect((await rail(page).boundingBox())?.width).toBe(256);
    expect(await sidebarCookie(context)).toBeUndefined();

    await rail(page).getByRole('button', { name: 'Collapse sidebar' }).click();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await expect.poll(async () => (await rail(page).boundingBox())?.width).toBe(48);
    await expect(rail(page).getByRole('region', { name: 'Profile Information' })).toHaveCount(0);
    await expect(rail(page).getByRole('link', { name: 'Settings' })).toBeVisible();
    const cookie = await sidebarCookie(context);
    expect(cookie).toMatchObject({ value: 'false', path: '/', sameSite: 'Lax' });
    const lifetime = (cookie?.expires ?? 0) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(604800 - 60);
    expect(lifetime).toBeLessThanOrEqual(604800 + 1);

    await page.reload();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await rail(page).getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings\/?$/);
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');

    await page.getByLabel('First name').click();
    await page.keyboard.press('Control+b');
    await expect(rail(page)).toHaveAttribute('data-state', 'expanded');
    expect((await sidebarCookie(context))?.value).toBe('true');
    await page.keyboard.press('Meta+b');
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await page.reload();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await expect(rail(page).getByRole('button', { name: 'Expand sidebar' })).toHaveAttribute('aria-expanded', 'false');
  });

  test('Sign Out goes to / with the Signed out toast and ends the session', async ({ page }) => {
    const member = await createMember();
    await signIn(page, member);
    await page.goto('/settings');
    await rail(page).getByRole('button', { name: 'Sign Out' }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/');
    await expect(page.getByText('Signed out', { exact: true })).toBeVisible();
    await expect(page.getByText('You have been signed out successfully.')).toBeVisible();
    expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
    await page.goto('/dashboard');
    await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
  });
});

test('on a phone the sidebar is a sheet: focus kept inside, Escape closes, focus returns @mobile', async ({
  page,
  isMobile,
}) => {
  test.skip(!isMobile, 'the sheet replaces the rail below 768px');
  const member = await createMember('Mary', 'Somerville');
  await signIn(page, member);
  await page.goto('/settings');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
  await expect(rail(page)).toBeHidden();
  const trigger = main(page).getByRole('button', { name: 'Open account menu' });
  await trigger.click();
  const sheet = page.getByRole('dialog', { name: 'Account menu' });
  await expect(sheet).toBeVisible();
  expect((await sheet.boundingBox())?.width).toBe(288);
  await expect(sheet).toContainText('Mary Somerville');
  await expect(sheet.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
  const close = sheet.getByRole('button', { name: 'Close account menu' });
  await expect(close).toBeFocused();
  // Tab from the last control wraps to the first, Shift+Tab from the first to the last.
  await page.keyboard.press('Shift+Tab');
  await expect(sheet.getByRole('button', { name: 'Sign Out' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(close).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(trigger).toBeFocused();

  await page.keyboard.press('Control+b');
  await expect(sheet).toBeVisible();
  await sheet.getByRole('link', { name: 'Dashboard' }).click();
  await expect(page).toHaveURL(/\/dashboard\/?$/);
  await expect(main(page).getByText('Free Member')).toBeVisible();
});

test.describe('axe', () => {
  for (const path of ['/dashboard', '/analysis', '/settings']) {
    test(`${path} signed in has no axe violations`, async ({ browser }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, await createMember());
      await page.goto(path);
      await expect(rail(page).getByText('Verified')).toBeVisible();
      await expect(main(page).getByRole('status')).toHaveCount(0);
      expect(await axeViolations(page)).toEqual([]);
      await context.close();
    });
  }

  test('/analysis signed out has no axe violations', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('/analysis');
    await expect(main(page).getByText('Please sign in to access market analysis.')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
