import { expect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY } from 'local-supabase';
import { copy, fill, labels as pageLabels } from '../content.ts';
import { hold } from './checks.ts';
import { API } from './env.ts';
import { createMember, passwordSession, SESSION_KEY, type Session } from './members.ts';

// The chrome's links and labels come from content/site/navigation.md (tests/content.ts).
const site = copy('site/navigation');
const headerLinks: [string, string][] = site.headerLinks.map((link) => [link.label, link.href]);
const footerLinks = site.footerLinks.map((link) => link.href);
const { labels } = site;
const headerLabel = (href: string) => site.headerLinks.find((link) => link.href === href)?.label ?? href;
const footerLabel = (href: string) => site.footerLinks.find((link) => link.href === href)?.label ?? href;

/** Stores a session the way supabase-js does, before any page script runs. */
async function storeSession(page: Page, email: string, expiresInSeconds: number) {
  await page.addInitScript(
    ({ key, email, expiresInSeconds }) => {
      const expires_at = Math.floor(Date.now() / 1000) + expiresInSeconds;
      const session = {
        access_token: 'x',
        refresh_token: 'y',
        token_type: 'bearer',
        expires_in: 3600,
        expires_at,
        user: { email },
      };
      localStorage.setItem(key, JSON.stringify(session));
    },
    { key: SESSION_KEY, email, expiresInSeconds },
  );
}

/** A confirmed member made with the admin API and signed in with the password grant, as the stack answers. */
async function signedInMember(): Promise<{ email: string; session: Session }> {
  const { email, password } = await createMember({ prefix: 'header' });
  return { email, session: await passwordSession(email, password) };
}

/** Stores the session where supabase-js keeps it, with expires_at a minute in the past. */
async function storeAgedSession(page: Page, session: Session) {
  const aged = { ...session, expires_at: Math.floor(Date.now() / 1000) - 60 };
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [SESSION_KEY, JSON.stringify(aged)]);
}

const storedSession = (page: Page) =>
  page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null') as Session | null, SESSION_KEY);

test.describe('desktop header', () => {
  test.skip(({ isMobile }) => isMobile, 'the desktop navigation is hidden on phones');

  test('has its links, each leading to its page', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('banner').getByRole('navigation', { name: labels.primaryNav });
    await expect(nav.getByRole('link')).toHaveText(headerLinks.map(([label]) => label));
    for (const [label, href] of headerLinks) {
      await page.goto('/about-us');
      await page
        .getByRole('banner')
        .getByRole('navigation', { name: labels.primaryNav })
        .getByRole('link', { name: label, exact: true })
        .click();
      await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === href.replace(/\/$/, ''));
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      await expect(page.getByRole('banner').getByRole('link', { name: label, exact: true })).toHaveAttribute(
        'aria-current',
        'page',
      );
    }
  });

  test('a header link, even to the current page, opens it scrolled to the top', async ({ page }) => {
    await page.goto('/signals');
    await page.mouse.wheel(0, 2500);
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(1000);
    const nav = page.getByRole('banner').getByRole('navigation', { name: labels.primaryNav });
    await Promise.all([
      page.waitForEvent('load'),
      nav.getByRole('link', { name: headerLabel('/signals'), exact: true }).click(),
    ]);
    await expect.poll(() => page.evaluate(() => scrollY)).toBe(0);
    await page.mouse.wheel(0, 2500);
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(1000);
    await nav.getByRole('link', { name: headerLabel('/features'), exact: true }).click();
    await expect(page).toHaveURL(/\/features\/?$/);
    await expect.poll(() => page.evaluate(() => scrollY)).toBe(0);
  });

  test('the server renders only the loading state of the auth area', async ({ request }) => {
    const html = await (await request.get('/')).text();
    const states = [...html.matchAll(/<div data-auth-state="([a-z-]+)"[^>]*>/g)].map((m) => [
      m[1],
      / hidden/.test(m[0]),
    ]);
    expect(states.length).toBeGreaterThanOrEqual(3);
    for (const [state, hidden] of states) expect(hidden).toBe(state !== 'loading');
  });

  // The desktop auth area; the mobile menu holds a second one, hidden at this width.
  const authArea = (page: Page) => page.getByRole('banner').locator('auth-view').first();

  test('signed out: Sign In and Sign Up lead to the auth tabs; no Sign Out', async ({ page }) => {
    await page.goto('/features');
    const auth = authArea(page);
    await expect(auth.getByRole('link', { name: labels.signIn })).toHaveAttribute('href', site.auth.signInHref);
    await expect(auth.getByRole('link', { name: labels.signUp })).toHaveAttribute('href', site.auth.signUpHref);
    await expect(auth.getByRole('link', { name: labels.signIn })).toBeVisible();
    await expect(auth.getByRole('link', { name: labels.dashboard })).toBeHidden();
    await expect(auth.locator('[data-sign-out]')).toBeHidden();
    await auth.getByRole('link', { name: labels.signUp }).click();
    await expect(page).toHaveURL(/\/auth\/?\?tab=signup$/);
  });

  test('a stored, unexpired session shows the email, Dashboard and Sign Out instead of Sign In', async ({ page }) => {
    await storeSession(page, 'trader@example.com', 3600);
    await page.goto('/');
    const auth = authArea(page);
    await expect(auth.getByText('trader@example.com')).toBeVisible();
    await expect(auth.getByRole('link', { name: labels.dashboard })).toBeVisible();
    await expect(auth.getByRole('link', { name: labels.dashboard })).toHaveAttribute('href', site.auth.dashboardHref);
    await expect(auth.getByRole('button', { name: labels.signOut })).toBeVisible();
    await expect(auth.locator('[data-sign-out]')).toBeVisible();
    await expect(auth.locator('a', { hasText: labels.signIn })).toBeHidden();
    await expect(auth.locator('a', { hasText: labels.signUp })).toBeHidden();
  });

  test('an expired access token with a good refresh token: the header refreshes it and shows the member', async ({
    page,
  }) => {
    const member = await signedInMember();
    await page.goto('/features');
    // The access token's hour has passed: expires_at is in the past, the refresh token still good.
    await storeAgedSession(page, member.session);
    // Hold the refresh so that the header can be seen deciding: the loading placeholder, no Sign In.
    const refreshed = page.waitForResponse((r) => r.url().includes('grant_type=refresh_token'));
    const held = await hold(page, '**/auth/v1/token?grant_type=refresh_token');
    await page.goto('/features');
    const auth = authArea(page);
    await expect(auth.locator('[data-auth-state="loading"]')).toBeVisible();
    await expect(auth.locator('a', { hasText: labels.signIn })).toBeHidden();
    held.release();
    expect((await refreshed).status()).toBe(200);
    await expect(auth.getByText(member.email)).toBeVisible();
    await expect(auth.locator('[data-sign-out]')).toBeVisible();
    await expect(auth.locator('a', { hasText: labels.signIn })).toBeHidden();
    // The new session is stored: its access token is good for another hour.
    const stored = await storedSession(page);
    expect(stored?.expires_at).toBeGreaterThan(Date.now() / 1000 + 60);
    expect(stored?.refresh_token).not.toBe(member.session.refresh_token);
  });

  test('an expired access token whose refresh token was revoked: Sign In, and the stale session is gone', async ({
    page,
  }) => {
    const member = await signedInMember();
    // Signing out everywhere revokes every refresh token of the member.
    const logout = await fetch(`${API}/auth/v1/logout?scope=global`, {
      method: 'POST',
      headers: { apikey: DEMO_ANON_KEY, Authorization: `Bearer ${member.session.access_token}` },
    });
    expect(logout.status).toBe(204);
    await page.goto('/features');
    await storeAgedSession(page, member.session);
    await page.goto('/features');
    const auth = authArea(page);
    await expect(auth.getByRole('link', { name: labels.signIn })).toBeVisible();
    await expect(auth.locator('[data-auth-email]')).toBeHidden();
    await expect(auth.locator('[data-sign-out]')).toBeHidden();
    await expect.poll(() => storedSession(page)).toBeNull();
  });

  test('the skip link moves focus to the main content', async ({ page }) => {
    await page.goto('/signals');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: labels.skipLink });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main')).toBeFocused();
  });

  test('footer: all quick links shown without toggling, with the disclaimer and copyright', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('contentinfo').getByRole('navigation', { name: labels.footerNav });
    const links = nav.getByRole('link');
    await expect(links).toHaveCount(footerLinks.length);
    for (const [index, href] of footerLinks.entries()) {
      await expect(links.nth(index)).toBeVisible();
      await expect(links.nth(index)).toHaveAttribute('href', href);
    }
    const footer = page.getByRole('contentinfo');
    await expect(footer).toContainText(site.disclaimer);
    await expect(footer).toContainText(fill(site.copyright, { year: new Date().getFullYear() }));
  });
});

test('a toast shows when an island defines the toast region before the parser has reached it', async ({ page }) => {
  // /auth's island imports the chrome's module (toast-region.ts). On a slow network or a busy phone that import can
  // run while the parser is still before <toast-region>: here the page is held there until it has.
  const auth = pageLabels('auth');
  const hold = '/parser-hold.js';
  await page.route('**/auth?tab=signin', async (route) => {
    const response = await route.fetch();
    const html = (await response.text()).replace('<toast-region', `<script src="${hold}"></script><toast-region`);
    const { 'content-encoding': _encoding, 'content-length': _length, ...headers } = response.headers();
    await route.fulfill({ status: response.status(), headers, body: html });
  });
  let definedWhileHeld = false;
  await page.route(`**${hold}`, async (route) => {
    definedWhileHeld = await expect
      .poll(() => page.evaluate(() => customElements.get('toast-region') !== undefined), { timeout: 15_000 })
      .toBe(true)
      .then(
        () => true,
        () => false,
      );
    await route.fulfill({ contentType: 'text/javascript', body: '' });
  });
  await page.goto('/auth?tab=signin');
  // Otherwise this page no longer shows the case: nothing defined the element before the parser reached it.
  expect(definedWhileHeld).toBe(true);
  await page.getByRole('button', { name: auth('forgotPassword') }).click();
  const toasts = page.getByRole('region', { name: labels.notifications }).locator('li');
  await expect(toasts.filter({ hasText: auth('emailRequiredTitle') })).toContainText(auth('emailRequiredDescription'));
});

test.describe('mobile chrome', () => {
  test.skip(({ isMobile }) => !isMobile, 'phone layout only');

  test('the menu toggle opens the overlay; Escape closes it and returns focus @mobile', async ({ page }) => {
    await page.goto('/');
    const toggle = page.getByRole('button', { name: labels.openMenu });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    const panel = page.locator('#mobile-menu-panel');
    await expect(panel).toBeHidden();
    // The toggle's icon follows aria-expanded: bars while closed, a cross while open.
    const bars = page.locator('[data-menu-toggle] [data-icon-open]');
    const cross = page.locator('[data-menu-toggle] [data-icon-close]');
    await expect(bars).toBeVisible();
    await expect(cross).toBeHidden();

    await toggle.click();
    const close = page.getByRole('button', { name: labels.closeMenu });
    await expect(close).toHaveAttribute('aria-expanded', 'true');
    await expect(cross).toBeVisible();
    await expect(bars).toBeHidden();
    await expect(close).toHaveAttribute('aria-controls', 'mobile-menu-panel');
    const nav = panel.getByRole('navigation', { name: labels.primaryNav });
    for (const [label, href] of headerLinks) {
      await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
      await expect(nav.getByRole('link', { name: label, exact: true })).toHaveAttribute('href', href);
    }
    await expect(panel.getByRole('link', { name: labels.signIn })).toBeVisible();
    await expect(panel.getByRole('link', { name: labels.signUp })).toBeVisible();

    await nav.getByRole('link', { name: headerLabel('/features') }).focus();
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    const reopened = page.getByRole('button', { name: labels.openMenu });
    await expect(reopened).toHaveAttribute('aria-expanded', 'false');
    await expect(reopened).toBeFocused();
    await expect(bars).toBeVisible();
    await expect(cross).toBeHidden();
  });

  test('a link in the menu navigates to its page @mobile', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('button', { name: labels.openMenu }).click();
    await page
      .locator('#mobile-menu-panel')
      .getByRole('link', { name: headerLabel('/principles') })
      .click();
    await expect(page).toHaveURL(/\/principles\/?$/);
    await expect(page.locator('#mobile-menu-panel')).toBeHidden();
  });

  test('footer Quick Links are collapsed until their toggle is pressed @mobile', async ({ page }) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    const toggle = footer.locator('summary', { hasText: labels.quickLinks });
    await toggle.scrollIntoViewIfNeeded();
    const faq = footer.getByRole('link', { name: footerLabel('/faq') });
    await expect(faq).toBeHidden();
    await toggle.click();
    await expect(faq).toBeVisible();
    await expect(footer.getByRole('navigation', { name: labels.footerNav }).getByRole('link')).toHaveCount(
      footerLinks.length,
    );
    await toggle.click();
    await expect(faq).toBeHidden();
  });
});
