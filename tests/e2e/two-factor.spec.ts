// Two-factor authentication (TOTP) in a real browser against the stack: set up from Settings after the
// password with the key the page shows, sign in with the password then the authenticator code, the signed-in
// area refusing a password-only session, a reset link asking for the code before the new password, and
// removal with the password. Codes are computed from the key as an authenticator app does.
import { expect as baseExpect, type Page, test } from '@playwright/test';
import { DEMO_ANON_KEY, DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { sleep } from 'local-supabase/testing';
import * as OTPAuth from 'otpauth';
import { copy, labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API } from './env.ts';
import { waitForMail } from './mail.ts';
import {
  createMember,
  MEMBER_PASSWORD,
  passwordGrant,
  passwordSession,
  SESSION_KEY,
  type Session,
  storeSession,
} from './members.ts';

// A code is good once: a test that needs a second one waits for the app's next 30-second step, so these
// take longer than the defaults.
test.describe.configure({ timeout: 180_000 });
const expect = baseExpect.configure({ timeout: 10_000 });

const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

const t = labels('auth');
const settings = labels('settings');
const dashboard = copy('pages/dashboard');
const sidebar = copy('member/sidebar');

const userIds = new Map<string, string>();
/** A confirmed member, Ada Lovelace; the id is kept for the admin API's look-ups by address. */
async function newMember(): Promise<string> {
  const member = await createMember({ prefix: 'two-factor', firstName: 'Ada', lastName: 'Lovelace' });
  userIds.set(member.email, member.id);
  return member.email;
}

/** The member's stored factors, verified or not, as the auth admin API lists them. */
async function storedFactors(email: string): Promise<{ status: string }[]> {
  const response = await fetch(`${API}/auth/v1/admin/users/${userIds.get(email)}`, { headers: service });
  expect(response.status).toBe(200);
  return ((await response.json()) as { factors?: { status: string }[] }).factors ?? [];
}

/**
 * The authenticator app: a code of `secret` the auth service has not accepted yet. It accepts the steps next to the
 * current one too (skew 1), and each step once: the app takes the current step while 2 s of it remain, then the next
 * one (good until the clock is two steps on), and waits for the clock only when both are used.
 */
const lastStep = new Map<string, number>();
async function appCode(secret: string): Promise<string> {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / 30_000);
    const left = 30_000 - (now % 30_000);
    const last = lastStep.get(secret) ?? Number.NEGATIVE_INFINITY;
    const step = [left > 2_000 ? current : current + 1, current + 1].find((s) => s > last);
    if (step !== undefined) {
      lastStep.set(secret, step);
      return totp.generate({ timestamp: step * 30_000 });
    }
    await sleep(left + 250);
  }
}

/** A code that is not valid now (nor in the step before or after). */
function wrongCode(secret: string): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 });
  const near = [-30_000, 0, 30_000].map((d) => totp.generate({ timestamp: Date.now() + d }));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.includes(code)) return code;
  }
}

/** A verified factor made through the API, as the Settings page makes one; answers its key. */
async function enrollByApi(email: string): Promise<string> {
  return (await enrollWithSession(email)).secret;
}

/** enrollByApi, also answering the session the first code raised to aal2. */
async function enrollWithSession(email: string): Promise<{ secret: string; session: Session }> {
  const session = await passwordSession(email, MEMBER_PASSWORD);
  const auth = { apikey: DEMO_ANON_KEY, Authorization: `Bearer ${session.access_token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const factor = (await (
    await fetch(`${API}/auth/v1/factors`, { method: 'POST', headers: json, body: '{"factor_type":"totp"}' })
  ).json()) as { id: string; totp: { secret: string } };
  const challenge = (await (
    await fetch(`${API}/auth/v1/factors/${factor.id}/challenge`, { method: 'POST', headers: json, body: '{}' })
  ).json()) as { id: string };
  const verified = await fetch(`${API}/auth/v1/factors/${factor.id}/verify`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ challenge_id: challenge.id, code: await appCode(factor.totp.secret) }),
  });
  expect(verified.status).toBe(200);
  return { secret: factor.totp.secret, session: (await verified.json()) as Session };
}

async function signInWithPassword(page: Page, email: string) {
  await page.goto('/auth?tab=signin');
  await page.getByLabel(t('email')).fill(email);
  await page.getByLabel(t('password'), { exact: true }).fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: t('signIn'), exact: true }).click();
}

const onDashboard = async (page: Page) => {
  await expect(page).toHaveURL((url) => url.pathname.replace(/\/$/, '') === '/dashboard');
  await expect(page.getByRole('heading', { level: 1, name: dashboard.heading })).toBeVisible();
};

const codeStep = (page: Page) => page.getByRole('heading', { name: t('mfaHeading') });

test('set up in Settings after the password, sign in with password then code, a wrong code refused, then removed with the password', async ({
  page,
}) => {
  const email = await newMember();
  await signInWithPassword(page, email);
  await onDashboard(page);

  // Settings: Set up asks for the password first (a session alone does not enrol); a wrong one enrols nothing.
  await page.goto('/settings');
  const security = page.getByRole('region', { name: settings('securityHeading') });
  const twoFactor = security.getByRole('region', { name: settings('twoFactorHeading') });
  await twoFactor.getByRole('button', { name: settings('twoFactorSetup') }).click();
  const password = twoFactor.getByLabel(settings('twoFactorPassword'));
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute('autocomplete', 'current-password');
  expect(await axeViolations(page)).toEqual([]);
  await password.fill('Wr0ng!Passw0rd');
  await twoFactor.getByRole('button', { name: settings('twoFactorContinue') }).click();
  await expect(twoFactor.getByRole('alert')).toHaveText(settings('twoFactorPasswordWrong'));
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await expect(twoFactor.getByRole('img', { name: settings('twoFactorQrAlt') })).toHaveCount(0);
  expect(await storedFactors(email)).toEqual([]);
  expect(await axeViolations(page)).toEqual([]);

  // The right password: the QR code and the key, and the first code is asked.
  await password.fill(MEMBER_PASSWORD);
  await twoFactor.getByRole('button', { name: settings('twoFactorContinue') }).click();
  const qr = security.getByRole('img', { name: settings('twoFactorQrAlt') });
  await expect(qr).toBeVisible();
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
  // The image really drew (the page's policy allows data: images).
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const secret = (await security.getByTestId('two-factor-secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  const field = security.getByLabel(settings('twoFactorCode'));
  await expect(field).toBeFocused();
  await expect(field).toHaveAttribute('autocomplete', 'one-time-code');
  expect(await axeViolations(page)).toEqual([]);

  // A wrong first code is refused under the field; the right one turns two-factor on.
  await field.fill(wrongCode(secret));
  await security.getByRole('button', { name: settings('twoFactorConfirm') }).click();
  await expect(security.getByRole('alert')).toHaveText(settings('twoFactorWrong'));
  await field.fill(await appCode(secret));
  await security.getByRole('button', { name: settings('twoFactorConfirm') }).click();
  await expect(page.getByText(settings('twoFactorEnabledTitle'), { exact: true })).toBeVisible();
  const list = security.getByRole('list', { name: settings('twoFactorListLabel') });
  await expect(list.getByText(settings('twoFactorApp'))).toBeVisible();
  await expect(list.getByRole('button', { name: settings('twoFactorRemove') })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);

  // Sign out, then the password alone is not enough.
  await page.locator('#member-sidebar').getByRole('button', { name: sidebar.labels.signOut }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await signInWithPassword(page, email);
  await expect(codeStep(page)).toBeVisible();
  await expect(page).toHaveURL(/\/auth\?tab=mfa$/);
  const code = page.getByLabel(t('mfaCode'));
  await expect(code).toBeFocused();
  await expect(code).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(code).toHaveAttribute('inputmode', 'numeric');
  expect(await axeViolations(page)).toEqual([]);

  // A wrong code says so and keeps the step; the right one lands on the dashboard.
  await code.fill(wrongCode(secret));
  await page.getByRole('button', { name: t('mfaVerify') }).click();
  await expect(page.getByRole('alert').filter({ hasText: t('mfaWrong') })).toBeVisible();
  await expect(codeStep(page)).toBeVisible();
  await expect(code).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);
  await code.fill(await appCode(secret));
  await page.getByRole('button', { name: t('mfaVerify') }).click();
  await onDashboard(page);

  // Remove asks for the password, not a code (a member who lost the phone has none): a wrong one keeps
  // the factor; the right one is checked aside, so this session stays aal2 and the removal goes through.
  await page.goto('/settings');
  await security.getByRole('button', { name: settings('twoFactorRemove') }).click();
  const removePassword = twoFactor.getByLabel(settings('twoFactorPassword'));
  await expect(removePassword).toBeFocused();
  await expect(twoFactor.getByLabel(settings('twoFactorCode'))).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);
  await removePassword.fill('Wr0ng!Passw0rd');
  await twoFactor.getByRole('button', { name: settings('twoFactorRemoveConfirm') }).click();
  await expect(twoFactor.getByRole('alert')).toHaveText(settings('twoFactorPasswordWrong'));
  expect(await storedFactors(email)).toEqual([expect.objectContaining({ status: 'verified' })]);
  await removePassword.fill(MEMBER_PASSWORD);
  await twoFactor.getByRole('button', { name: settings('twoFactorRemoveConfirm') }).click();
  await expect(page.getByText(settings('twoFactorRemovedTitle'), { exact: true })).toBeVisible();
  await expect(security.getByRole('button', { name: settings('twoFactorSetup') })).toBeVisible();
  expect(await storedFactors(email)).toEqual([]);

  // Without a factor, the password signs in straight to the dashboard again.
  await page.locator('#member-sidebar').getByRole('button', { name: sidebar.labels.signOut }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await signInWithPassword(page, email);
  await onDashboard(page);
});

test('a password-only session of a member with two-factor gets the code step, also before a new password', async ({
  page,
}) => {
  const email = await newMember();
  const secret = await enrollByApi(email);

  // A session from the password grant alone (aal1), stored as supabase-js keeps it.
  const session = await passwordSession(email, MEMBER_PASSWORD);
  await storeSession(page, session);
  for (const path of ['/dashboard', '/settings']) {
    await page.goto(path);
    await expect(codeStep(page)).toBeVisible();
    await expect(page).toHaveURL(/\/auth\?tab=mfa$/);
    await expect(page.getByRole('heading', { name: settings('securityHeading') })).toHaveCount(0);
  }

  // Cancel drops the password-only session.
  await page.getByRole('button', { name: t('mfaSignOut') }).click();
  await expect(page.getByRole('tab', { name: t('signInTab') })).toHaveAttribute('aria-selected', 'true');
  expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();

  // Forgot password: the reset code signs in with aal1, so the authenticator code comes before the new password.
  await page.getByLabel(t('email')).fill(email);
  await page.getByRole('button', { name: t('forgotPassword') }).click();
  await expect(page.getByRole('heading', { name: t('recoverHeading') })).toBeVisible({ timeout: 15_000 });
  const mail = await waitForMail((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase()));
  const resetCode = /Or use this code: (\d{6})/.exec(mail.Text)?.[1] ?? '';
  await page.getByRole('textbox', { name: t('code') }).fill(resetCode);
  await page.getByRole('button', { name: t('confirmRecoverCode') }).click();
  await expect(codeStep(page)).toBeVisible();
  await expect(page).toHaveURL(/\/auth\?tab=mfa$/);
  await expect(page.getByRole('heading', { name: t('resetHeading') })).toHaveCount(0);
  await page.getByLabel(t('mfaCode')).fill(await appCode(secret));
  await page.getByRole('button', { name: t('mfaVerify') }).click();
  await expect(page.getByRole('heading', { name: t('resetHeading') })).toBeVisible();
  await page.getByLabel(t('newPassword'), { exact: true }).fill('N3w-password!x');
  await page.getByLabel(t('confirmPassword')).fill('N3w-password!x');
  await page.getByRole('button', { name: t('updatePassword') }).click();
  await onDashboard(page);
  await expect(page.getByText(t('passwordUpdatedTitle'), { exact: true })).toBeVisible();

  // Change password at aal2 keeps the session's level: no code step, and the new password is stored.
  await page.goto('/settings');
  const security = page.getByRole('region', { name: settings('securityHeading') });
  await security.getByLabel(settings('currentPassword')).fill('N3w-password!x');
  await security.getByLabel(settings('newPassword'), { exact: true }).fill('An0ther!Passw0rd');
  await security.getByLabel(settings('confirmPassword')).fill('An0ther!Passw0rd');
  await security.getByRole('button', { name: settings('updatePassword') }).click();
  await expect(page.getByText(settings('passwordUpdatedTitle'), { exact: true })).toBeVisible();
  await expect(page).toHaveURL(/\/settings\/?$/);
  const changed = await passwordGrant(email, 'An0ther!Passw0rd');
  expect(changed.status).toBe(200);
});

test('Delete my account with two-factor on asks for a code too: a wrong one keeps the account, the right one deletes it', async ({
  page,
}) => {
  const email = await newMember();
  const { secret, session } = await enrollWithSession(email);
  await storeSession(page, session);
  await page.goto('/settings');
  await page.getByRole('button', { name: settings('deleteOpen') }).click();
  const dialog = page.getByRole('dialog', { name: settings('deleteDialogTitle') });
  const code = dialog.getByLabel(settings('deleteCode'));
  await expect(code).toBeVisible();
  await expect(code).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(code).toHaveAttribute('inputmode', 'numeric');
  expect(await axeViolations(page)).toEqual([]);

  // The right password with a wrong code: said under the code field, and the account stays.
  await dialog.getByLabel(settings('deletePassword')).fill(MEMBER_PASSWORD);
  await code.fill(wrongCode(secret));
  await dialog.getByRole('button', { name: settings('deleteConfirm') }).click();
  const codeError = dialog.locator('#delete-account-code-error');
  await expect(codeError).toHaveText('The code is incorrect or has expired. Your account was not deleted.');
  await expect(codeError).toHaveRole('alert');
  await expect(code).toHaveAttribute('aria-invalid', 'true');
  await expect(code).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);
  const kept = await fetch(`${API}/auth/v1/admin/users/${userIds.get(email)}`, { headers: service });
  expect(kept.status).toBe(200);

  // The password and a current code: deleted, signed out, on / with the toast.
  await code.fill(await appCode(secret));
  await dialog.getByRole('button', { name: settings('deleteConfirm') }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByText(settings('deletedTitle'), { exact: true })).toBeVisible();
  expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
  const gone = await fetch(`${API}/auth/v1/admin/users/${userIds.get(email)}`, { headers: service });
  expect(gone.status).toBe(404);
});
