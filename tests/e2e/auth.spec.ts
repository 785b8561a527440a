// Accounts in a real browser against the stack: sign up, confirm by mail, sign in, sign out, reset the
// password by mail, and every message of the /auth page a person can meet on the way.
import { expect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY } from 'local-supabase';
import { copy, labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API, MAIL_API as MAIL } from './env.ts';
import { createMember, passwordGrant, passwordSession, storedEmail } from './members.ts';

const PASSWORD = 'Str0ng-pass!';

// The page's words come from content/labels/auth.md and labels/password.md, the header's and the landing page's
// from site/navigation.md and verification/user.md (tests/content.ts).
const t = labels('auth');
const checklist = labels('password')('heading');
const site = copy('site/navigation');
const accountVerified = copy('verification/user');

let counter = 0;
const uniqueEmail = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;

/** A confirmed user made with the admin API, as support staff would. */
const createUser = (email: string) => createMember({ email, password: PASSWORD, firstName: 'Test', lastName: 'User' });

/** Whether the auth service accepts this password for the address. */
async function passwordWorks(email: string, password: string): Promise<boolean> {
  return (await passwordGrant(email, password)).status === 200;
}

/**
 * The link of the newest mail to `to`: the auth service's verify link of a reset mail, or the confirmation
 * mail's link to /auth with its token hash.
 */
async function mailedLink(to: string): Promise<string> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const { messages } = (await (await fetch(`${MAIL}/messages`)).json()) as {
      messages: { ID: string; To: { Address: string }[] }[];
    };
    const hit = messages.find((m) => m.To.some((t) => t.Address.toLowerCase() === to.toLowerCase()));
    if (hit) {
      const { Text } = (await (await fetch(`${MAIL}/message/${hit.ID}`)).json()) as { Text: string };
      const link = /https?:\/\/\S+\/auth(\/v1\/verify)?\?\S+/.exec(Text)?.[0];
      if (!link) throw new Error(`no link in the mail to ${to}: ${Text}`);
      return link;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

/** Every mail to `to` the catcher holds, newest first, in full. */
async function mailsTo(to: string): Promise<{ Text: string }[]> {
  const { messages } = (await (await fetch(`${MAIL}/messages`)).json()) as {
    messages: { ID: string; To: { Address: string }[] }[];
  };
  const mine = messages.filter((m) => m.To.some((a) => a.Address.toLowerCase() === to.toLowerCase()));
  return Promise.all(
    mine.map(async (m) => (await (await fetch(`${MAIL}/message/${m.ID}`)).json()) as { Text: string }),
  );
}

/** The 6-digit code ("Or use this code") of the newest mail to `to`, once there are `count` of them. */
async function mailedCode(to: string, count = 1): Promise<string> {
  await expect.poll(async () => (await mailsTo(to)).length, { timeout: 15_000 }).toBe(count);
  const [newest] = await mailsTo(to);
  const code = /Or use this code: (\d{6})/.exec(newest?.Text ?? '')?.[1];
  if (!code) throw new Error(`no code in the mail to ${to}: ${newest?.Text}`);
  return code;
}

/** A code that is not `code`. */
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** Signs up through the auth service itself, as the user-signup function does: a confirmation mail goes out. */
async function signUpUnconfirmed(email: string) {
  const res = await fetch(`${API}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: DEMO_ANON_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, data: { first_name: 'Test', last_name: 'User' } }),
  });
  expect(res.status).toBe(200);
}

/** A fresh session of the account: the tokens a link to /auth would carry. */
async function sessionTokens(email: string, password = PASSWORD) {
  const session = await passwordSession(email, password);
  return `access_token=${session.access_token}&expires_in=3600&refresh_token=${session.refresh_token}&token_type=bearer`;
}

const toast = (page: Page, title: string) =>
  page.getByRole('region', { name: site.labels.notifications }).locator('li').filter({ hasText: title });

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/auth?tab=signin');
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
}

test('the sign-in form shows before supabase-js loads, which starts at the first focus and then signs in', async ({
  page,
}) => {
  // The client's own chunk (src/stores/supabase.ts): a visit that only reads the form never needs it.
  const client = /\/_astro\/supabase\.[\w-]+\.js$/;
  const requested: string[] = [];
  page.on('request', (request) => {
    if (client.test(new URL(request.url()).pathname)) requested.push(request.url());
  });
  const email = uniqueEmail('lazy-client');
  await createUser(email);
  await page.goto('/auth?tab=signin');
  const field = page.getByLabel(t('email'));
  await expect(field).toBeEditable();
  await page.waitForLoadState('networkidle');
  expect(requested).toEqual([]);
  await field.focus();
  await expect.poll(() => requested.length).toBe(1);
  await field.fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await storedEmail(page)).toBe(email);
});

test.describe('desktop', () => {
  test.skip(({ isMobile }) => isMobile, 'desktop header');

  test('sign up, confirm by mail, sign in, see the email in the header, sign out', async ({ page }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('new');
    await page.goto('/auth?tab=signup');
    await expect(page.getByRole('tab', { name: t('signUpTab') })).toHaveAttribute('aria-selected', 'true');
    await page.getByLabel(t('firstName')).fill('Ada');
    await page.getByLabel(t('lastName')).fill('Lovelace');
    await page.getByLabel(t('email')).fill(email);
    const submit = page.getByRole('button', { name: t('signUp') });
    const password = page.getByLabel(t('password'), { exact: true });
    await expect(page.getByText(checklist)).toBeHidden();
    await password.fill('weak');
    await expect(page.getByText(checklist)).toBeVisible();
    await expect(submit).toBeDisabled();
    await password.fill(PASSWORD);
    await expect(submit).toBeEnabled();
    await submit.click();
    await expect(page.getByText(checklist)).toBeHidden();
    await expect(toast(page, t('signUpSuccessDescription'))).toBeVisible({
      timeout: 15_000,
    });
    // The form gives way to the code step, for the address just used.
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible();
    await expect(page.getByLabel(t('email'), { exact: true })).toHaveValue(email);
    await expect(page.getByLabel(t('firstName'))).toHaveCount(0);

    // The mail's link opens the password form; saving it confirms the address (the password typed at sign-up,
    // again here, stays the account's) and lands on Account verified, signed out.
    await page.goto(await mailedLink(email));
    await expect(page.getByRole('heading', { name: t('chooseHeading') })).toBeVisible();
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
    await page.getByLabel(t('newPassword'), { exact: true }).fill(PASSWORD);
    await page.getByLabel(t('confirmPassword')).fill(PASSWORD);
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(page).toHaveURL(/\/newsletter-verified\?type=user$/);
    await expect(page.locator('h1')).toHaveText(accountVerified.heading);
    expect(await storedEmail(page)).toBeNull();
    await page.getByRole('link', { name: accountVerified.links[0]?.label }).click();

    await page.getByLabel(t('email')).fill(email);
    await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t('signIn'), exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, t('welcomeBack'))).toBeVisible();
    const header = page.getByRole('banner');
    await expect(header.getByText(email).filter({ visible: true })).toBeVisible();

    await header.getByRole('button', { name: site.labels.signOut }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(toast(page, site.labels.signedOutTitle)).toContainText(site.labels.signedOutDescription);
    await expect(header.getByRole('link', { name: site.labels.signIn })).toBeVisible();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('auth-token')))).toEqual([]);
  });

  test('sign up, then the code from the mail signs in on /dashboard; a wrong code is refused and the step stays', async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('code');
    await page.goto('/auth?tab=signup');
    await page.getByLabel(t('firstName')).fill('Grace');
    await page.getByLabel(t('lastName')).fill('Hopper');
    await page.getByLabel(t('email')).fill(email);
    await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t('signUp') }).click();
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible({ timeout: 15_000 });
    await expect(page).toHaveURL(/\/auth\?tab=confirm$/);
    const field = page.getByRole('textbox', { name: t('code') });
    await expect(field).toBeFocused();
    await expect(field).toHaveAttribute('autocomplete', 'one-time-code');
    await expect(field).toHaveAttribute('inputmode', 'numeric');
    const code = await mailedCode(email);

    // Too short: said under the field before anything is sent.
    await field.fill('123');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').filter({ hasText: t('codeFormat') })).toBeVisible();

    // A wrong code: the server refuses it, the field says so and keeps focus, the step stays.
    await field.fill(otherCode(code));
    await page.getByRole('button', { name: t('confirmCode') }).click();
    await expect(page.getByRole('alert').filter({ hasText: t('codeWrong') })).toBeVisible();
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(field).toBeFocused();
    await expect(page).toHaveURL(/\/auth\?tab=confirm$/);
    expect(await storedEmail(page)).toBeNull();
    expect(await axeViolations(page)).toEqual([]);

    // The right one, typed with a space as the mail's reader might: signed in, on /dashboard.
    await field.fill(`${code.slice(0, 3)} ${code.slice(3)}`);
    await page.getByRole('button', { name: t('confirmCode') }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, t('confirmedTitle'))).toBeVisible();
    await expect(page.getByRole('banner').getByText(email).filter({ visible: true })).toBeVisible();
    expect(await storedEmail(page)).toBe(email);
  });

  test('an unconfirmed member: sign-in opens the code step; the new mail confirms with the password just typed', async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('unconfirmed');
    await signUpUnconfirmed(email);
    await mailedCode(email, 1);
    await signIn(page, email, PASSWORD);
    await expect(toast(page, t('notConfirmedTitle'))).toContainText(t('notConfirmedDescription'));
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=confirm$/);
    await expect(page.getByLabel(t('email'), { exact: true })).toHaveValue(email);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: t('sendNewCode') }).click();
    await expect(toast(page, t('codeSentTitle'))).toContainText(t('codeSentDescription'));
    const code = await mailedCode(email, 2);
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
    // The sign-in's password was right: the code sets it again, no form in between.
    await page.getByRole('textbox', { name: t('code') }).fill(code);
    await page.getByRole('button', { name: t('confirmCode') }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, t('confirmedTitle'))).toBeVisible();
    expect(await passwordWorks(email, PASSWORD)).toBe(true);
  });

  test('the code step without a password from this page asks for one; a wrong code comes back to the step', async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('codeonly');
    await signUpUnconfirmed(email);
    const code = await mailedCode(email, 1);
    await page.goto('/auth?tab=confirm');
    await page.getByLabel(t('email'), { exact: true }).fill(email);
    const field = page.getByRole('textbox', { name: t('code') });

    // A wrong code: the password form first (nothing is verified without a password), then the refusal.
    await field.fill(otherCode(code));
    await page.getByRole('button', { name: t('confirmCode') }).click();
    await expect(page.getByRole('heading', { name: t('chooseHeading') })).toBeVisible();
    await page.getByLabel(t('newPassword'), { exact: true }).fill('N3w-password!');
    await page.getByLabel(t('confirmPassword')).fill('N3w-password!');
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(page.getByRole('alert').filter({ hasText: t('codeWrong') })).toBeVisible();
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible();
    expect(await storedEmail(page)).toBeNull();

    // The right one goes with the password already chosen: signed in, and only that password works.
    await page.getByRole('textbox', { name: t('code') }).fill(code);
    await page.getByRole('button', { name: t('confirmCode') }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, t('confirmedTitle'))).toBeVisible();
    expect(await passwordWorks(email, 'N3w-password!')).toBe(true);
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
  });

  test("Didn't get the confirmation email? An unknown or confirmed address gets the same answer and no mail", async ({
    page,
  }) => {
    test.setTimeout(60_000);
    const unknown = uniqueEmail('nobody');
    const confirmed = uniqueEmail('confirmed');
    await createUser(confirmed);
    await page.goto('/auth?tab=signin');
    await page.getByRole('button', { name: t('resendLink') }).click();
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=confirm$/);
    await expect(page.getByLabel(t('email'), { exact: true })).toBeFocused();
    for (const address of [unknown, confirmed]) {
      await page.getByLabel(t('email'), { exact: true }).fill(address);
      await page.getByRole('button', { name: t('sendNewCode') }).click();
      await expect(toast(page, t('codeSentTitle')).last()).toContainText(t('codeSentDescription'));
    }
    await page.waitForTimeout(2_000);
    expect(await mailsTo(unknown)).toEqual([]);
    expect(await mailsTo(confirmed)).toEqual([]);

    // The step's older name opens it too; Back returns to the tabs.
    await page.goto('/auth?tab=resend');
    await expect(page.getByRole('heading', { name: t('codeHeading') })).toBeVisible();
    await page.getByRole('button', { name: t('backToSignIn') }).click();
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
    await expect(page.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
  });

  test('forgot password: the reset code from the mail opens the new-password form', async ({ page }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('resetcode');
    await createUser(email);
    await page.goto('/auth?tab=signin');
    await page.getByLabel(t('email')).fill(email);
    await page.getByRole('button', { name: t('forgotPassword') }).click();
    await expect(toast(page, t('resetSentTitle'))).toBeVisible({ timeout: 15_000 });
    await expect(page.getByRole('heading', { name: t('recoverHeading') })).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=recover$/);
    const code = await mailedCode(email);
    const field = page.getByRole('textbox', { name: t('code') });
    await field.fill(otherCode(code));
    await page.getByRole('button', { name: t('confirmRecoverCode') }).click();
    await expect(page.getByRole('alert').filter({ hasText: t('codeWrong') })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);

    await field.fill(code);
    await page.getByRole('button', { name: t('confirmRecoverCode') }).click();
    await expect(page.getByRole('heading', { name: t('resetHeading') })).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=reset$/);
    await page.getByLabel(t('newPassword'), { exact: true }).fill('N3w-password!');
    await page.getByLabel(t('confirmPassword')).fill('N3w-password!');
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    expect(await passwordWorks(email, 'N3w-password!')).toBe(true);
  });

  test('an existing address: Account exists', async ({ page }) => {
    const email = uniqueEmail('taken');
    await createUser(email);
    await page.goto('/auth?tab=signup');
    await page.getByLabel(t('firstName')).fill('Ada');
    await page.getByLabel(t('lastName')).fill('Lovelace');
    await page.getByLabel(t('email')).fill(email);
    await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t('signUp') }).click();
    await expect(toast(page, t('accountExistsTitle'))).toContainText(t('accountExistsDescription'), {
      timeout: 15_000,
    });
  });

  test('blank names: Missing information, nothing sent', async ({ page }) => {
    const email = uniqueEmail('noname');
    await page.goto('/auth?tab=signup');
    await page.getByLabel(t('firstName')).fill('   ');
    await page.getByLabel(t('email')).fill(email);
    await page.getByLabel(t('password'), { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: t('signUp') }).click();
    await expect(toast(page, t('missingNamesTitle'))).toContainText(t('missingNamesDescription'));
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
  });

  test('a wrong password: Invalid credentials, and the page stays', async ({ page }) => {
    const email = uniqueEmail('wrong');
    await createUser(email);
    await signIn(page, email, 'Not-the-1-password');
    await expect(toast(page, t('invalidCredentialsTitle'))).toContainText(t('invalidCredentialsDescription'));
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

  test("another account's tokens without type=recovery are refused: the member stays signed in", async ({
    page,
    browser,
  }) => {
    const member = uniqueEmail('fixate-member');
    const stranger = uniqueEmail('fixate-stranger');
    await createUser(member);
    await createUser(stranger);
    await signIn(page, member, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);

    await page.goto(`/auth#${await sessionTokens(stranger)}`);
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
    await expect(toast(page, t('linkRefusedTitle'))).toContainText(t('linkRefusedDescription'));
    expect(await storedEmail(page)).toBe(member);
    await expect(page.getByRole('banner').getByText(member).filter({ visible: true })).toBeVisible();

    // Signed out, the same link signs nobody in either.
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await other.goto(`/auth#${await sessionTokens(stranger)}`);
    await expect(toast(other, t('linkRefusedTitle'))).toBeVisible();
    await expect(other).toHaveURL(/\/auth\?tab=signin$/);
    expect(await storedEmail(other)).toBeNull();
    await fresh.close();
  });

  test('a recovery link of another account asks first: Stay keeps the member, the other answer opens its reset form', async ({
    page,
  }) => {
    const member = uniqueEmail('recover-member');
    const stranger = uniqueEmail('recover-stranger');
    await createUser(member);
    await createUser(stranger);
    await signIn(page, member, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);

    const link = `/auth?tab=reset#${await sessionTokens(stranger)}&type=recovery`;
    await page.goto(link);
    await expect(page.getByRole('heading', { name: t('otherAccountHeading') })).toBeVisible();
    await expect(
      page.getByText(t('otherAccountText').replace('{current}', member).replace('{link}', stranger)),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=reset$/);
    expect(await storedEmail(page)).toBe(member);
    await page.getByRole('button', { name: t('otherAccountStay') }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
    expect(await storedEmail(page)).toBe(member);

    await page.goto(link);
    await page.getByRole('button', { name: t('otherAccountContinue') }).click();
    await expect(page.getByRole('heading', { name: t('resetHeading') })).toBeVisible();
    expect(await storedEmail(page)).toBe(stranger);

    // The signed-in account's own recovery link needs no question (from another page: a change of the
    // fragment alone would not load /auth again).
    await page.goto('/about-us');
    await page.goto(`/auth?tab=reset#${await sessionTokens(stranger)}&type=recovery`);
    await expect(page.getByRole('heading', { name: t('resetHeading') })).toBeVisible();
    await expect(page.getByRole('heading', { name: t('otherAccountHeading') })).toHaveCount(0);
    expect(await storedEmail(page)).toBe(stranger);
  });

  test('forgot password without an email: Email required', async ({ page }) => {
    await page.goto('/auth');
    await page.getByRole('button', { name: t('forgotPassword') }).click();
    await expect(toast(page, t('emailRequiredTitle'))).toContainText(t('emailRequiredDescription'));
  });

  test('reset by mail: mismatch, new password, /dashboard; old password fails; the used link has expired', async ({
    page,
    browser,
  }) => {
    test.setTimeout(60_000);
    const email = uniqueEmail('reset');
    await createUser(email);
    await page.goto('/auth?tab=signin');
    await page.getByLabel(t('email')).fill(email);
    await page.getByRole('button', { name: t('forgotPassword') }).click();
    await expect(toast(page, t('resetSentTitle'))).toBeVisible({ timeout: 15_000 });

    const link = await mailedLink(email);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: t('resetHeading') })).toBeVisible();
    // Tokens are out of the address bar.
    await expect(page).toHaveURL(/\/auth\?tab=reset$/);
    await page.getByLabel(t('newPassword'), { exact: true }).fill('N3w-password!');
    await expect(page.getByText(checklist)).toBeVisible();
    await page.getByLabel(t('confirmPassword')).fill('N3w-password?');
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(toast(page, t('mismatchTitle'))).toContainText(t('mismatchDescription'));
    await page.getByLabel(t('confirmPassword')).fill('N3w-password!');
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(toast(page, t('passwordUpdatedTitle'))).toBeVisible();
    expect(await passwordWorks(email, PASSWORD)).toBe(false);
    expect(await passwordWorks(email, 'N3w-password!')).toBe(true);

    // The same link again, in a fresh browser.
    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    await other.goto(link);
    await expect(toast(other, t('linkExpiredTitle'))).toContainText(t('linkExpiredDescription'));
    await expect(other.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
    await expect(other).toHaveURL(/\/auth\?tab=signin$/);
    await fresh.close();
  });

  test('tab=reset without a session: updating says the link has expired and returns to the tabs', async ({ page }) => {
    await page.goto('/auth?tab=reset');
    await page.getByLabel(t('newPassword'), { exact: true }).fill(PASSWORD);
    await page.getByLabel(t('confirmPassword')).fill(PASSWORD);
    await page.getByRole('button', { name: t('updatePassword') }).click();
    await expect(toast(page, t('linkExpiredTitle'))).toBeVisible();
    await expect(page.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
  });

  test('a reset code that cannot be exchanged: Reset link expired, back to the tabs', async ({ page }) => {
    await page.goto('/auth?code=0b0e5c4e-used-or-foreign');
    await expect(toast(page, t('linkExpiredTitle'))).toContainText(t('linkExpiredDescription'));
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
    await expect(page.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
  });

  test('Sign Out that fails keeps the session and says so; a retry signs out', async ({ page }) => {
    const email = uniqueEmail('signout');
    await createUser(email);
    await signIn(page, email, PASSWORD);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.route('**/auth/v1/logout**', (route) => route.abort('connectionrefused'));
    const header = page.getByRole('banner');
    await header.getByRole('button', { name: site.labels.signOut }).filter({ visible: true }).click();
    await expect(toast(page, site.labels.signOutFailedTitle)).toContainText(site.labels.signOutFailedDescription);
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(header.getByText(email).filter({ visible: true })).toBeVisible();
    await page.unroute('**/auth/v1/logout**');
    await header.getByRole('button', { name: site.labels.signOut }).filter({ visible: true }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
    await expect(toast(page, site.labels.signedOutTitle)).toBeVisible();
  });

  test('Cancel on the reset form returns to the Sign In tab', async ({ page }) => {
    await page.goto('/auth?tab=reset');
    await page.getByRole('button', { name: t('cancel') }).click();
    await expect(page).toHaveURL(/\/auth\?tab=signin$/);
    await expect(page.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
  });

  test('the tabs work from the keyboard and follow ?tab=', async ({ page }) => {
    await page.goto('/auth?tab=signin');
    const signInTab = page.getByRole('tab', { name: t('signInTab') });
    await signInTab.focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: t('signUpTab') })).toBeFocused();
    await expect(page.getByRole('tab', { name: t('signUpTab') })).toHaveAttribute('aria-selected', 'true');
    await expect(page).toHaveURL(/\/auth\?tab=signup$/);
    await expect(page.getByLabel(t('firstName'))).toBeVisible();
    await page.keyboard.press('ArrowLeft');
    await expect(signInTab).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByLabel(t('firstName'))).toHaveCount(0);
    await expect(page.getByRole('link', { name: t('backToHome') })).toHaveAttribute('href', '/');
  });

  for (const [mode, path, ready] of [
    ['sign in', '/auth?tab=signin', t('forgotPassword')],
    ['sign up', '/auth?tab=signup', t('signUp')],
    ['reset', '/auth?tab=reset', t('updatePassword')],
    ['choose a password', '/auth?tab=confirm&token_hash=0a1b2c&type=signup', t('updatePassword')],
  ] as const) {
    test(`/auth in ${mode} mode has no axe violations, the checklist open`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('button', { name: ready })).toBeVisible();
      const password = page
        .getByLabel(t('password'), { exact: true })
        .or(page.getByLabel(t('newPassword'), { exact: true }));
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
  await page.getByRole('button', { name: site.labels.openMenu }).click();
  const menu = page.locator('#mobile-menu-panel');
  await expect(menu.getByText(email)).toBeVisible();
  await menu.getByRole('button', { name: site.labels.signOut }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(toast(page, site.labels.signedOutTitle)).toContainText(site.labels.signedOutDescription);
});
