import { expect, type Page, test } from '@playwright/test';

const SESSION_KEY = 'sb-127-auth-token';

const headerLinks: [string, string][] = [
  ['Home', '/'],
  ['Features', '/features'],
  ['Signals', '/signals'],
  ['8 Principles', '/principles'],
  ['VPS Hosting', '/vps-hosting'],
  ['How It Works', '/how-it-works'],
  ['About Us', '/about-us'],
];

const footerLinks = [
  '/',
  '/news',
  '/trading-ideas',
  '/investing-news',
  '/setup-guide',
  '/faq',
  '/support',
  '/contact-us',
  '/signals',
  '/quiz',
];

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

test.describe('desktop header', () => {
  test.skip(({ isMobile }) => isMobile, 'the desktop navigation is hidden on phones');

  test('has the seven links, each leading to its page', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('banner').getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link')).toHaveText(headerLinks.map(([label]) => label));
    for (const [label, href] of headerLinks) {
      await page.goto('/about-us');
      await page
        .getByRole('banner')
        .getByRole('navigation', { name: 'Main' })
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
    const nav = page.getByRole('banner').getByRole('navigation', { name: 'Main' });
    await Promise.all([page.waitForEvent('load'), nav.getByRole('link', { name: 'Signals', exact: true }).click()]);
    await expect.poll(() => page.evaluate(() => scrollY)).toBe(0);
    await page.mouse.wheel(0, 2500);
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(1000);
    await nav.getByRole('link', { name: 'Features', exact: true }).click();
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
    await expect(auth.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth?tab=signin');
    await expect(auth.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/auth?tab=signup');
    await expect(auth.getByRole('link', { name: 'Sign In' })).toBeVisible();
    await expect(auth.getByRole('link', { name: 'Dashboard' })).toBeHidden();
    await expect(auth.locator('[data-sign-out]')).toBeHidden();
    await auth.getByRole('link', { name: 'Sign Up' }).click();
    await expect(page).toHaveURL(/\/auth\/?\?tab=signup$/);
  });

  test('a stored, unexpired session shows the email, Dashboard and Sign Out instead of Sign In', async ({ page }) => {
    await storeSession(page, 'trader@example.com', 3600);
    await page.goto('/');
    const auth = authArea(page);
    await expect(auth.getByText('trader@example.com')).toBeVisible();
    await expect(auth.getByRole('link', { name: 'Dashboard' })).toBeVisible();
    await expect(auth.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/dashboard');
    await expect(auth.getByRole('button', { name: 'Sign Out' })).toBeVisible();
    await expect(auth.locator('[data-sign-out]')).toBeVisible();
    await expect(auth.locator('a', { hasText: 'Sign In' })).toBeHidden();
    await expect(auth.locator('a', { hasText: 'Sign Up' })).toBeHidden();
  });

  test('an expired stored session counts as signed out', async ({ page }) => {
    await storeSession(page, 'trader@example.com', -60);
    await page.goto('/');
    const auth = authArea(page);
    await expect(auth.getByRole('link', { name: 'Sign In' })).toBeVisible();
    await expect(auth.locator('[data-auth-email]')).toBeHidden();
    await expect(auth.locator('[data-sign-out]')).toBeHidden();
  });

  test('the skip link moves focus to the main content', async ({ page }) => {
    await page.goto('/signals');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.locator('main#main')).toBeFocused();
  });

  test('footer: all quick links shown without toggling, with the disclaimer and copyright', async ({ page }) => {
    await page.goto('/');
    const nav = page.getByRole('contentinfo').getByRole('navigation', { name: 'Footer' });
    const links = nav.getByRole('link');
    await expect(links).toHaveCount(footerLinks.length);
    for (const [index, href] of footerLinks.entries()) {
      await expect(links.nth(index)).toBeVisible();
      await expect(links.nth(index)).toHaveAttribute('href', href);
    }
    const footer = page.getByRole('contentinfo');
    await expect(footer).toContainText('Profits shown in demos are not guaranteed');
    await expect(footer).toContainText(`© ${new Date().getFullYear()} SignalOne`);
  });
});

test.describe('mobile chrome', () => {
  test.skip(({ isMobile }) => !isMobile, 'phone layout only');

  test('the menu toggle opens the overlay; Escape closes it and returns focus @mobile', async ({ page }) => {
    await page.goto('/');
    const toggle = page.getByRole('button', { name: 'Open menu' });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    const panel = page.locator('#mobile-menu-panel');
    await expect(panel).toBeHidden();
    // The toggle's icon follows aria-expanded: bars while closed, a cross while open.
    const bars = page.locator('[data-menu-toggle] [data-icon-open]');
    const cross = page.locator('[data-menu-toggle] [data-icon-close]');
    await expect(bars).toBeVisible();
    await expect(cross).toBeHidden();

    await toggle.click();
    const close = page.getByRole('button', { name: 'Close menu' });
    await expect(close).toHaveAttribute('aria-expanded', 'true');
    await expect(cross).toBeVisible();
    await expect(bars).toBeHidden();
    await expect(close).toHaveAttribute('aria-controls', 'mobile-menu-panel');
    const nav = panel.getByRole('navigation', { name: 'Main' });
    for (const [label, href] of headerLinks) {
      await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
      await expect(nav.getByRole('link', { name: label, exact: true })).toHaveAttribute('href', href);
    }
    await expect(panel.getByRole('link', { name: 'Sign In' })).toBeVisible();
    await expect(panel.getByRole('link', { name: 'Sign Up' })).toBeVisible();

    await nav.getByRole('link', { name: 'Features' }).focus();
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    const reopened = page.getByRole('button', { name: 'Open menu' });
    await expect(reopened).toHaveAttribute('aria-expanded', 'false');
    await expect(reopened).toBeFocused();
    await expect(bars).toBeVisible();
    await expect(cross).toBeHidden();
  });

  test('a link in the menu navigates to its page @mobile', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.locator('#mobile-menu-panel').getByRole('link', { name: '8 Principles' }).click();
    await expect(page).toHaveURL(/\/principles\/?$/);
    await expect(page.locator('#mobile-menu-panel')).toBeHidden();
  });

  test('footer Quick Links are collapsed until their toggle is pressed @mobile', async ({ page }) => {
    await page.goto('/');
    const footer = page.getByRole('contentinfo');
    const toggle = footer.locator('summary', { hasText: 'Quick Links' });
    await toggle.scrollIntoViewIfNeeded();
    const faq = footer.getByRole('link', { name: 'FAQ' });
    await expect(faq).toBeHidden();
    await toggle.click();
    await expect(faq).toBeVisible();
    await expect(footer.getByRole('navigation', { name: 'Footer' }).getByRole('link')).toHaveCount(footerLinks.length);
    await toggle.click();
    await expect(faq).toBeHidden();
  });
});
