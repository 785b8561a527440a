// The forms' CAPTCHA in a real browser, on the site built with a Turnstile site key (dist-captcha, served at
// E2E_CAPTCHA_URL by the e2e run). Turnstile's script is replaced by a stand-in (page.route) that renders
// nothing and gives each widget a token, a new one after every reset, as the real widget does once a visitor
// passes. Checked: nothing of Turnstile loads before a form is used, the script loads once when it is, each
// request carries a token of its own where its service reads it, and the page's policy allows exactly that
// script and Turnstile's frames. Whether the services accept a token: tests/integration/captcha.test.ts.
import { expect, type Page, test } from '@playwright/test';
import { labels } from '../content.ts';
import { postsTo } from './checks.ts';
import { API, CAPTCHA_SITE_URL } from './env.ts';
import { createMember, signIn } from './members.ts';

const TURNSTILE_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js';

test.skip(
  !CAPTCHA_SITE_URL,
  'needs the build with a CAPTCHA site key, which `npm test -- e2e` serves at E2E_CAPTCHA_URL',
);
test.use({ baseURL: CAPTCHA_SITE_URL });
test.describe.configure({ timeout: 60_000 });
const AFTER_CALL = { timeout: 20_000 };

/** Turnstile's API as the site uses it: render(container, options), reset(id), remove(id). */
const STAND_IN = `(() => {
  let issued = 0;
  const widgets = new Map();
  const give = (id) => {
    const options = widgets.get(id);
    if (options) setTimeout(() => options.callback('stand-in-token-' + ++issued), 0);
  };
  window.turnstile = {
    render(container, options) {
      const id = 'widget-' + widgets.size;
      widgets.set(id, options);
      container.dataset.sitekey = options.sitekey;
      give(id);
      return id;
    },
    reset: give,
    remove(id) { widgets.delete(id); },
  };
})();`;

interface Turnstile {
  /** Every request the page made for Turnstile's script. */
  loads: string[];
  /** Every CSP violation the page reported. */
  violations(): Promise<string[]>;
}

/** Serves the stand-in in place of Turnstile's script and records what the page asked of Cloudflare. */
async function standIn(page: Page): Promise<Turnstile> {
  const loads: string[] = [];
  await page.route(`${TURNSTILE_SCRIPT}*`, (route) => {
    loads.push(route.request().url());
    return route.fulfill({ contentType: 'text/javascript', body: STAND_IN });
  });
  // Anything else from Cloudflare would be a request the policy or the code did not mean to make.
  await page.route('https://challenges.cloudflare.com/**', (route) => {
    if (route.request().url().startsWith(TURNSTILE_SCRIPT)) return route.fallback();
    loads.push(route.request().url());
    return route.abort();
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return {
    loads,
    violations: () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
  };
}

/** The policy the host sends for a page: its script-src and frame-src. */
async function policyOf(page: Page, path: string) {
  // The policy the host sends with the page, read without a navigation (a page's own scripts, such as a member
  // page sending a visitor to /auth, cannot race it).
  const response = await page.request.get(path);
  expect(response.status(), path).toBe(200);
  const csp = response.headers()['content-security-policy'] ?? '';
  const directive = (name: string) =>
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .find(([n]) => n === name)
      ?.slice(1) ?? [];
  return { scriptSrc: directive('script-src'), frameSrc: directive('frame-src') };
}

const uniqueEmail = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;

test('pages with a form allow exactly Turnstile’s script and frames; a page without one does not', async ({ page }) => {
  for (const path of ['/contact-us', '/', '/auth', '/settings']) {
    const { scriptSrc, frameSrc } = await policyOf(page, path);
    expect(
      scriptSrc.filter((s) => s.startsWith('https:')),
      path,
    ).toEqual([TURNSTILE_SCRIPT]);
    expect(frameSrc, path).toEqual(['https://challenges.cloudflare.com']);
  }
  const about = await policyOf(page, '/about-us');
  expect(about.scriptSrc.join(' ')).not.toContain('challenges.cloudflare.com');
  expect(about.frameSrc).toEqual(["'none'"]);
});

test('contact form: Turnstile loads on first use, once, and each message carries a token of its own', async ({
  page,
}) => {
  const t = labels('contact');
  const turnstile = await standIn(page);
  const bodies = postsTo(page, `${API}/functions/v1/send-contact-email`);
  await page.goto('/contact-us');
  await page.waitForLoadState('load');
  expect(turnstile.loads).toEqual([]);
  await expect(page.locator(`script[src^="${TURNSTILE_SCRIPT}"]`)).toHaveCount(0);

  const form = page.locator('contact-form');
  const success = page.getByRole('status').filter({ hasText: t('successTitle') });
  for (const round of [1, 2]) {
    await form.locator('#contact-name').fill(`Ann ${round}`);
    await form.locator('#contact-email').fill(uniqueEmail('captcha-contact'));
    await form.locator('#contact-message').fill('A question about the signals.');
    await form.getByRole('button', { name: t('submit') }).click();
    await expect(success).toBeVisible(AFTER_CALL);
    await page
      .getByRole('status')
      .filter({ hasText: t('successTitle') })
      .waitFor({ state: 'detached' });
  }
  expect(turnstile.loads).toEqual([`${TURNSTILE_SCRIPT}?render=explicit`]);
  const tokens = bodies.map((b) => JSON.parse(b).captchaToken);
  expect(tokens).toHaveLength(2);
  expect(tokens[0]).toMatch(/^stand-in-token-\d+$/);
  expect(tokens[1]).toMatch(/^stand-in-token-\d+$/);
  expect(tokens[1]).not.toBe(tokens[0]);
  expect(await turnstile.violations()).toEqual([]);
});

test('newsletter card on Home: no Turnstile until used, then the sign-up carries a token', async ({ page }) => {
  const t = labels('newsletter');
  const turnstile = await standIn(page);
  const bodies = postsTo(page, `${API}/functions/v1/newsletter-signup`);
  await page.goto('/');
  await page.waitForLoadState('load');
  expect(turnstile.loads).toEqual([]);
  const card = page.locator('#newsletter');
  await card.getByLabel(t('emailLabel')).fill(uniqueEmail('captcha-reader'));
  await card.getByRole('button', { name: t('submit'), exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: t('successTitle') })).toBeVisible(AFTER_CALL);
  expect(bodies.map((b) => JSON.parse(b).captchaToken)).toEqual([expect.stringMatching(/^stand-in-token-\d+$/)]);
  expect(turnstile.loads).toHaveLength(1);
  expect(await turnstile.violations()).toEqual([]);
});

test('sign-up and Forgot password? each send a token of their own to their function', async ({ page }) => {
  const t = labels('auth');
  const turnstile = await standIn(page);
  const signups = postsTo(page, `${API}/functions/v1/user-signup`);
  const resets = postsTo(page, `${API}/functions/v1/password-reset`);
  const email = uniqueEmail('captcha-signup');
  await page.goto('/auth?tab=signup');
  await page.getByLabel(t('firstName')).fill('Ada');
  await page.getByLabel(t('lastName')).fill('Lovelace');
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill('Str0ng-pass!');
  await page.getByRole('button', { name: t('signUp') }).click();
  await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible(AFTER_CALL);

  await page.goto('/auth');
  await page.getByLabel(t('email')).fill(email);
  await page.getByRole('button', { name: t('forgotPassword') }).click();
  await expect(page.getByRole('heading', { name: t('recoverHeading') })).toBeVisible(AFTER_CALL);

  const [signup] = signups.map((b) => JSON.parse(b).captchaToken);
  const [reset] = resets.map((b) => JSON.parse(b).captchaToken);
  expect(signup).toMatch(/^stand-in-token-\d+$/);
  expect(reset).toMatch(/^stand-in-token-\d+$/);
  // One script per page load: the sign-up page and the sign-in page.
  expect(turnstile.loads).toHaveLength(2);
  expect(await turnstile.violations()).toEqual([]);
});

test('sign-in sends the token where the auth service reads it', async ({ page }) => {
  const t = labels('auth');
  const turnstile = await standIn(page);
  const bodies = postsTo(page, `${API}/auth/v1/token`);
  await page.goto('/auth');
  await page.getByLabel(t('email')).fill(uniqueEmail('captcha-signin'));
  await page.getByLabel(t('password'), { exact: true }).fill('Wr0ng-pass!');
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await expect.poll(() => bodies.length, AFTER_CALL).toBe(1);
  expect(JSON.parse(bodies[0] ?? '{}').gotrue_meta_security).toEqual({
    captcha_token: expect.stringMatching(/^stand-in-token-\d+$/),
  });
  expect(turnstile.loads).toHaveLength(1);
  expect(await turnstile.violations()).toEqual([]);
});

test('Settings: the password checks and account deletion each send a token of their own', async ({ page }) => {
  const settings = labels('settings');
  const password = 'Str0ng!Passw0rd';
  const turnstile = await standIn(page);
  // A confirmed member, and this browser signed in as them (the session as supabase-js stores it).
  await signIn(page, await createMember({ email: uniqueEmail('captcha-settings'), password }));
  const signIns = postsTo(page, `${API}/auth/v1/token`);
  const deletions = postsTo(page, `${API}/functions/v1/account`);
  await page.goto('/settings');
  const security = page.getByRole('region', { name: settings('securityHeading') });
  await expect(security.getByRole('button', { name: settings('twoFactorSetup') })).toBeVisible();
  await page.waitForLoadState('load');
  expect(turnstile.loads).toEqual([]);

  // Change password: the current password's sign-in carries a token, and the password changes.
  const newPassword = 'N3w!Password';
  await security.getByLabel(settings('currentPassword')).fill(password);
  await security.getByLabel(settings('newPassword'), { exact: true }).fill(newPassword);
  await security.getByLabel(settings('confirmPassword')).fill(newPassword);
  await security.getByRole('button', { name: settings('updatePassword') }).click();
  await expect(page.getByRole('status').filter({ hasText: settings('passwordUpdatedTitle') })).toBeVisible(AFTER_CALL);

  // Two-factor Set up: its password step's sign-in carries a token too, and the setup goes on.
  await security.getByRole('button', { name: settings('twoFactorSetup') }).click();
  await security.getByLabel(settings('twoFactorPassword')).fill(newPassword);
  await security.getByRole('button', { name: settings('twoFactorContinue') }).click();
  await expect(security.getByRole('heading', { name: settings('twoFactorSetupHeading') })).toBeVisible(AFTER_CALL);
  await security.getByRole('button', { name: settings('cancel') }).click();

  const tokens = signIns.map((b) => JSON.parse(b).gotrue_meta_security?.captcha_token);
  expect(tokens).toEqual([
    expect.stringMatching(/^stand-in-token-\d+$/),
    expect.stringMatching(/^stand-in-token-\d+$/),
  ]);
  expect(tokens[1]).not.toBe(tokens[0]);

  // Delete my account: the dialog's request carries a token for the function's password check.
  await page.getByRole('button', { name: settings('deleteOpen') }).click();
  const dialog = page.getByRole('dialog', { name: settings('deleteDialogTitle') });
  await dialog.getByLabel(settings('deletePassword')).fill(newPassword);
  await dialog.getByRole('button', { name: settings('deleteConfirm') }).click();
  await expect(page.getByRole('status').filter({ hasText: settings('deletedTitle') })).toBeVisible(AFTER_CALL);
  const [deletion] = deletions.map((b) => JSON.parse(b).captchaToken);
  expect(deletion).toMatch(/^stand-in-token-\d+$/);
  expect(tokens).not.toContain(deletion);
  // One script for the page, loaded when a form was first used.
  expect(turnstile.loads).toEqual([`${TURNSTILE_SCRIPT}?render=explicit`]);
  expect(await turnstile.violations()).toEqual([]);
});
