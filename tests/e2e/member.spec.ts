import { type BrowserContext, expect as baseExpect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { copy, labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API } from './env.ts';
import { createMember, MEMBER_PASSWORD, passwordGrant, SESSION_KEY, signIn } from './members.ts';

// The signed-in area against the real stack: members are created with the auth admin API, signed in with
// the password grant, and the session is stored where supabase-js keeps it before the page loads.

// Each test signs a new member in and reads and writes through the stack: on a busy two-core machine that
// takes longer than a static page, so these get more time than the defaults (30 s a test, 5 s a check).
test.describe.configure({ timeout: 60_000 });
const expect = baseExpect.configure({ timeout: 10_000 });

const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

/** Members here are Ada Lovelace unless told otherwise: the sidebar and Settings show the name. */
const newMember = (firstName = 'Ada', lastName = 'Lovelace') => createMember({ firstName, lastName });

async function profileRow(userId: string) {
  const response = await fetch(`${API}/rest/v1/profiles?user_id=eq.${userId}&select=*`, { headers: service });
  const rows = (await response.json()) as Record<string, unknown>[];
  return rows[0];
}

// The signed-in pages' words come from content/ (tests/content.ts): labels/{dashboard,analysis,settings,password}.md,
// member/sidebar.md, card-groups/, pages/{dashboard,analysis,settings}.md and site/navigation.md.
const dashboard = labels('dashboard');
const analysis = labels('analysis');
const settings = labels('settings');
const password = labels('password');
const sidebar = copy('member/sidebar');
const site = copy('site/navigation');
const pageCopy = {
  dashboard: copy('pages/dashboard'),
  analysis: copy('pages/analysis'),
  settings: copy('pages/settings'),
};
const navLabel = (href: string) => sidebar.links.find((link) => link.href === href)?.label ?? href;

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
    await expect(main(page).getByText(analysis('signedOut'))).toBeVisible();
    await expect(main(page).getByRole('link', { name: analysis('signIn') })).toHaveAttribute(
      'href',
      '/auth?tab=signin',
    );
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(pageCopy.analysis.heading);
    await page.waitForTimeout(300);
    await expect(page).toHaveURL(/\/analysis\/?$/);
    await expect(rail(page)).toHaveCount(0);
  });

  test('the server renders only the loading state, with the page title and noindex', async ({ request }) => {
    for (const [path, loading, title] of [
      ['/dashboard', dashboard('loading'), pageCopy.dashboard.title],
      ['/analysis', analysis('loading'), pageCopy.analysis.title],
      ['/settings', settings('loading'), pageCopy.settings.title],
    ]) {
      const html = await (await request.get(path)).text();
      expect(html, path).toContain(`<title>${title}</title>`);
      expect(html, path).toMatch(/<meta name="robots" content="noindex/);
      const island = html.slice(html.indexOf('<astro-island'), html.indexOf('</astro-island>'));
      expect(island, path).toContain(loading);
      for (const guess of [dashboard('membership'), sidebar.heading, analysis('signedOut'), sidebar.labels.signOut]) {
        expect(island.replace(/props="[^"]*"/, ''), `${path}: ${guess}`).not.toContain(guess);
      }
    }
  });
});

test.describe('signed in', () => {
  test('dashboard: tools Coming Soon, account status, and the sidebar profile', async ({ page }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(pageCopy.dashboard.heading);
    for (const { title, badge } of copy('card-groups/dashboard-tools').cards) {
      const card = main(page).locator('li', { has: page.getByRole('heading', { name: title }) });
      await expect(card).toBeVisible();
      if (badge) await expect(card.getByText(badge)).toBeVisible();
      await expect(card.getByRole('link')).toHaveCount(0);
    }
    const status = main(page).getByRole('region', { name: dashboard('statusHeading') });
    await expect(status).toContainText(dashboard('membership'));
    await expect(status).toContainText(dashboard('signalsAccessed'));
    await expect(status).toContainText(dashboard('lastActive'));
    await expect(status.getByRole('button', { name: dashboard('comingSoon') })).toBeDisabled();

    const profile = rail(page).getByRole('region', { name: sidebar.heading });
    await expect(profile).toContainText('Ada Lovelace');
    await expect(profile).toContainText(member.email);
    await expect(profile).toContainText(sidebar.labels.verified);
    const today = await page.evaluate(() =>
      new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }).format(new Date()),
    );
    await expect(profile).toContainText(`${sidebar.labels.memberSince}${today}`);

    const nav = rail(page).getByRole('navigation', { name: sidebar.navLabel });
    const links = nav.getByRole('link');
    await expect(links).toHaveText(sidebar.links.map((link) => link.label));
    expect(await links.evaluateAll((a) => a.map((l) => l.getAttribute('href')))).toEqual(
      sidebar.links.map((link) => link.href),
    );
    await expect(nav.getByRole('link', { name: navLabel('/dashboard') })).toHaveAttribute('aria-current', 'page');
    await expect(nav.locator('[aria-current]')).toHaveCount(1);
  });

  test('an unverified address shows Unverified in the sidebar', async ({ page }) => {
    const member = await newMember();
    const patch = await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, {
      method: 'PATCH',
      headers: { ...service, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email_verified: false }),
    });
    expect(patch.status).toBeLessThan(300);
    await signIn(page, member);
    await page.goto('/analysis');
    await expect(rail(page).getByText(sidebar.labels.unverified)).toBeVisible();
    const panel = copy('card-groups/analysis-panel').cards[0]?.title ?? '';
    await expect(main(page).getByRole('heading', { name: panel })).toBeVisible();
    await expect(rail(page).getByRole('link', { name: navLabel('/analysis') })).toHaveAttribute('aria-current', 'page');
  });

  test('a profile that cannot be read: the message, and Go to Sign In signs out here and opens /auth', async ({
    page,
  }) => {
    const member = await newMember();
    const removed = await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, {
      method: 'DELETE',
      headers: service,
    });
    expect(removed.status).toBeLessThan(300);
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(main(page).getByText(dashboard('profileError'))).toBeVisible();
    await main(page)
      .getByRole('button', { name: dashboard('goToSignIn') })
      .click();
    await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
    expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  test('settings: names are saved trimmed, the form and sidebar reload, and the row holds them', async ({ page }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/settings');
    const first = page.getByLabel(settings('firstName'));
    const last = page.getByLabel(settings('lastName'));
    await expect(first).toHaveValue('Ada');
    await expect(last).toHaveValue('Lovelace');
    const email = page.getByLabel(settings('email'), { exact: true });
    await expect(email).toHaveValue(member.email);
    await expect(email).toHaveAttribute('readonly', '');
    await expect(main(page).getByText(settings('emailHint'))).toBeVisible();

    await first.fill('  Grace  ');
    await last.fill(' Hopper   ');
    await page.getByRole('button', { name: settings('save') }).click();
    await expect(page.getByText(settings('success'))).toBeVisible();
    await expect(page.getByText(settings('successTitle'), { exact: true })).toBeVisible();
    await expect(first).toHaveValue('Grace');
    await expect(last).toHaveValue('Hopper');
    await expect(rail(page).getByRole('region', { name: sidebar.heading })).toContainText('Grace Hopper');

    const row = await profileRow(member.id);
    expect(row).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', email: member.email });

    await page.reload();
    await expect(page.getByLabel(settings('firstName'))).toHaveValue('Grace');
    await expect(page.getByLabel(settings('lastName'))).toHaveValue('Hopper');
  });

  test('settings: a profile that cannot be read gives the Error toast and leaves the form unusable', async ({
    page,
  }) => {
    const member = await newMember();
    await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}`, { method: 'DELETE', headers: service });
    await signIn(page, member);
    await page.goto('/settings');
    const toast = page.getByRole('alert').filter({ hasText: settings('loadFailed') });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText(settings('errorTitle'));
    await expect(page.getByLabel(settings('firstName'))).toBeDisabled();
    await expect(page.getByLabel(settings('lastName'))).toBeDisabled();
    await expect(page.getByRole('button', { name: settings('save') })).toBeDisabled();
  });

  test('settings: while saving the form is busy; a refused update keeps the row and says so', async ({ page }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/settings');
    await expect(page.getByLabel(settings('firstName'))).toHaveValue('Ada');
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
    await page.getByLabel(settings('firstName')).fill('Changed');
    await page.getByRole('button', { name: settings('save') }).click();
    await expect(page.getByRole('button', { name: settings('saving') })).toBeDisabled();
    await expect(page.getByLabel(settings('firstName'))).toBeDisabled();
    release();
    const toast = page.getByRole('alert').filter({ hasText: settings('updateFailed') });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText(settings('errorTitle'));
    await expect(page.getByRole('button', { name: settings('save') })).toBeEnabled();
    await expect(page.getByLabel(settings('firstName'))).toHaveValue('Changed');
    expect(await profileRow(member.id)).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
  });

  test('settings: Change password asks for the current password and keeps to the rules; then the new one signs in', async ({
    page,
  }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/settings');
    const security = main(page).getByRole('region', { name: settings('securityHeading') });
    await expect(security.getByRole('heading', { name: settings('twoFactorHeading') })).toBeVisible();
    await expect(security.getByRole('button', { name: settings('twoFactorSetup') })).toBeVisible();

    const current = security.getByLabel(settings('currentPassword'));
    const next = security.getByLabel(settings('newPassword'), { exact: true });
    const confirm = security.getByLabel(settings('confirmPassword'));
    const submit = security.getByRole('button', { name: settings('updatePassword') });
    await expect(security.getByText(password('heading'))).toBeVisible();
    await expect(submit).toBeDisabled();
    await next.fill('short1!');
    await expect(submit).toBeDisabled();
    await expect(security.getByText(`${password('length')}: ${password('notMet')}`)).toBeAttached();

    const newPassword = 'N3w!Password';
    await next.fill(newPassword);
    await expect(security.getByText(`${password('length')}: ${password('met')}`)).toBeAttached();
    // Without the current password the button stays off.
    await expect(submit).toBeDisabled();

    // A wrong current password: refused with its own message, and the password is unchanged.
    await current.fill('Wr0ng!Passw0rd');
    await confirm.fill(newPassword);
    await submit.click();
    const wrong = page.getByRole('alert').filter({ hasText: settings('currentPasswordWrong') });
    await expect(wrong).toContainText(settings('currentPasswordWrongTitle'));
    expect((await passwordGrant(member.email, MEMBER_PASSWORD)).status).toBe(200);
    expect((await passwordGrant(member.email, newPassword)).status).toBe(400);

    await current.fill(MEMBER_PASSWORD);
    await expect(submit).toBeEnabled();
    await confirm.fill('N3w!Passwore');
    await expect(security.getByText(`${settings('mismatchTitle')}: ${settings('mismatch')}`)).toBeVisible();
    await submit.click();
    await expect(page.getByRole('alert').getByText(settings('mismatch'))).toBeVisible();

    await next.fill(MEMBER_PASSWORD);
    await confirm.fill(MEMBER_PASSWORD);
    await submit.click();
    await expect(page.getByText(settings('samePassword'))).toBeVisible();

    await next.fill(newPassword);
    await confirm.fill(newPassword);
    await submit.click();
    await expect(page.getByText(settings('passwordUpdatedTitle'), { exact: true })).toBeVisible();
    await expect(current).toHaveValue('');
    await expect(next).toHaveValue('');
    await expect(confirm).toHaveValue('');

    expect((await passwordGrant(member.email, newPassword)).status).toBe(200);
    const old = await passwordGrant(member.email, MEMBER_PASSWORD);
    expect(old.status).toBe(400);
    expect(((await old.json()) as { error_code?: string }).error_code).toBe('invalid_credentials');
  });

  test('settings: Sign out of other devices signs the other browsers out and keeps this one signed in', async ({
    page,
    browser,
  }) => {
    const member = await newMember();
    // Three browsers of one member, each with its own session.
    const contexts = [await browser.newContext(), await browser.newContext()];
    const [otherOnSettings, otherOnDashboard] = await Promise.all(contexts.map((c) => c.newPage()));
    for (const p of [page, otherOnSettings, otherOnDashboard]) await signIn(p, member);
    await otherOnSettings.goto('/settings');
    await expect(main(otherOnSettings).getByRole('heading', { name: settings('devicesHeading') })).toBeVisible();
    await otherOnDashboard.goto('/dashboard');
    await expect(main(otherOnDashboard).getByText(dashboard('membership'))).toBeVisible();
    const storedToken = (p: Page) =>
      p.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? '{}').access_token as string, SESSION_KEY);
    const otherToken = await storedToken(otherOnDashboard);

    await page.goto('/settings');
    const devices = main(page).getByRole('region', { name: settings('devicesHeading') });
    await expect(devices).toContainText(settings('devicesText'));
    await devices.getByRole('button', { name: settings('devicesSignOut') }).click();
    await expect(page.getByText(settings('devicesDoneTitle'), { exact: true })).toBeVisible();
    await expect(page.getByText(settings('devicesDone'))).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    // Settings asks the auth service (the two-factor list reads the user): the other browser lands on /auth.
    await otherOnSettings.reload();
    await expect(otherOnSettings).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
    expect(await otherOnSettings.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();

    // The dashboard trusts the stored access token until it is due for refresh (an hour); that refresh is
    // refused, and the browser lands on /auth.
    const user = (token: string) =>
      fetch(`${API}/auth/v1/user`, { headers: { apikey: DEMO_ANON_KEY, Authorization: `Bearer ${token}` } });
    expect((await user(otherToken)).status).toBe(403);
    await otherOnDashboard.clock.setSystemTime(Date.now() + 3_600_000);
    await otherOnDashboard.goto('/dashboard');
    await expect(otherOnDashboard).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/auth');
    expect(await otherOnDashboard.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();

    // This browser stays signed in, for the auth service too.
    expect((await user(await storedToken(page))).status).toBe(200);
    await page.goto('/dashboard');
    await expect(main(page).getByText(dashboard('membership'))).toBeVisible();
    for (const c of contexts) await c.close();
  });
});

async function sidebarCookie(context: BrowserContext) {
  return (await context.cookies()).find((c) => c.name === 'sidebar_state');
}

test.describe('sidebar', () => {
  test.skip(({ isMobile }) => isMobile, 'the rail shows from 768px');

  test('collapses to a rail and stays so across reloads and pages; Ctrl+B toggles it', async ({ page, context }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/dashboard');
    await expect(rail(page)).toHaveAttribute('data-state', 'expanded');
    expect((await rail(page).boundingBox())?.width).toBe(256);
    expect(await sidebarCookie(context)).toBeUndefined();

    await rail(page).getByRole('button', { name: sidebar.labels.collapse }).click();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await expect.poll(async () => (await rail(page).boundingBox())?.width).toBe(48);
    await expect(rail(page).getByRole('region', { name: sidebar.heading })).toHaveCount(0);
    await expect(rail(page).getByRole('link', { name: navLabel('/settings') })).toBeVisible();
    const cookie = await sidebarCookie(context);
    expect(cookie).toMatchObject({ value: 'false', path: '/', sameSite: 'Lax' });
    const lifetime = (cookie?.expires ?? 0) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(604800 - 60);
    expect(lifetime).toBeLessThanOrEqual(604800 + 1);

    await page.reload();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await rail(page)
      .getByRole('link', { name: navLabel('/settings') })
      .click();
    await expect(page).toHaveURL(/\/settings\/?$/);
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');

    await page.getByLabel(settings('firstName')).click();
    await page.keyboard.press('Control+b');
    await expect(rail(page)).toHaveAttribute('data-state', 'expanded');
    expect((await sidebarCookie(context))?.value).toBe('true');
    await page.keyboard.press('Meta+b');
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await page.reload();
    await expect(rail(page)).toHaveAttribute('data-state', 'collapsed');
    await expect(rail(page).getByRole('button', { name: sidebar.labels.expand })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  });

  test('Sign Out goes to / with the Signed out toast and ends the session', async ({ page }) => {
    const member = await newMember();
    await signIn(page, member);
    await page.goto('/settings');
    await rail(page).getByRole('button', { name: sidebar.labels.signOut }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/');
    await expect(page.getByText(site.labels.signedOutTitle, { exact: true })).toBeVisible();
    await expect(page.getByText(site.labels.signedOutDescription)).toBeVisible();
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
  const member = await newMember('Mary', 'Somerville');
  await signIn(page, member);
  await page.goto('/settings');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(pageCopy.settings.heading);
  await expect(rail(page)).toBeHidden();
  const trigger = main(page).getByRole('button', { name: sidebar.labels.open });
  await trigger.click();
  const sheet = page.getByRole('dialog', { name: sidebar.labels.sheetTitle });
  await expect(sheet).toBeVisible();
  expect((await sheet.boundingBox())?.width).toBe(288);
  await expect(sheet).toContainText('Mary Somerville');
  await expect(sheet.getByRole('link', { name: navLabel('/settings') })).toHaveAttribute('aria-current', 'page');
  const close = sheet.getByRole('button', { name: sidebar.labels.close });
  await expect(close).toBeFocused();
  // Tab from the last control wraps to the first, Shift+Tab from the first to the last.
  await page.keyboard.press('Shift+Tab');
  await expect(sheet.getByRole('button', { name: sidebar.labels.signOut })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(close).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(trigger).toBeFocused();

  await page.keyboard.press('Control+b');
  await expect(sheet).toBeVisible();
  await sheet.getByRole('link', { name: navLabel('/dashboard') }).click();
  await expect(page).toHaveURL(/\/dashboard\/?$/);
  await expect(main(page).getByText(dashboard('membership'))).toBeVisible();
});

test.describe('axe', () => {
  for (const path of ['/dashboard', '/analysis', '/settings']) {
    test(`${path} signed in has no axe violations`, async ({ browser }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, await newMember());
      await page.goto(path);
      await expect(rail(page).getByText(sidebar.labels.verified)).toBeVisible();
      await expect(main(page).getByRole('status')).toHaveCount(0);
      expect(await axeViolations(page)).toEqual([]);
      await context.close();
    });
  }

  test('/analysis signed out has no axe violations', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('/analysis');
    await expect(main(page).getByText(analysis('signedOut'))).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
