import { readFileSync } from 'node:fs';
import { expect as baseExpect, type Page, test } from '@playwright/test';
import { DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { API } from './env.ts';
import { createMember, MEMBER_PASSWORD, type Member, passwordGrant, SESSION_KEY, signIn } from './members.ts';

// Your data in Settings against the real stack: Download my data saves a JSON file of the member's data, and
// Delete my account asks for the password in a modal dialog, deletes the account and lands on / with a toast.

test.describe.configure({ timeout: 60_000 });
const expect = baseExpect.configure({ timeout: 10_000 });

const service = {
  apikey: DEMO_SERVICE_ROLE_KEY,
  Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}`,
  'Content-Type': 'application/json',
};
const settings = labels('settings');

/** A confirmed member with a newsletter subscription and a contact message sent from the address. */
async function newMember(): Promise<Member> {
  const member = await createMember({ prefix: 'rights', firstName: 'Grace', lastName: 'Hopper' });
  const { email } = member;
  const rows = [
    ['newsletter_subscribers', { email, status: 'verified' }],
    ['contact_messages', { name: 'Grace Hopper', email, subject: 'Signals', message: 'How many a week?' }],
  ] as const;
  for (const [table, row] of rows) {
    const res = await fetch(`${API}/rest/v1/${table}`, { method: 'POST', headers: service, body: JSON.stringify(row) });
    expect(res.status, table).toBe(201);
  }
  return member;
}

async function openSettingsAs(page: Page, member: Member): Promise<void> {
  await signIn(page, member);
  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: settings('dataHeading') })).toBeVisible();
}

test('Download my data saves a JSON file with the member’s account, profile, newsletter and messages', async ({
  page,
}) => {
  const member = await newMember();
  await openSettingsAs(page, member);
  // The file comes from a blob: URL: the site's Content-Security-Policy must not block it.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { cspSeen: string[] }).cspSeen = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const downloaded = page.waitForEvent('download');
  await page.getByRole('button', { name: settings('download') }).click();
  const file = await downloaded;
  expect(file.suggestedFilename()).toMatch(/^signalone-data-\d{4}-\d{2}-\d{2}\.json$/);
  const data = JSON.parse(readFileSync((await file.path()) as string, 'utf8'));
  expect(data).toEqual({
    exportedAt: expect.any(String),
    account: expect.objectContaining({ id: member.id, email: member.email, emailConfirmedAt: expect.any(String) }),
    profile: expect.objectContaining({ first_name: 'Grace', last_name: 'Hopper', email: member.email }),
    newsletter: expect.objectContaining({ email: member.email, status: 'verified' }),
    // The member's newsletter row was written directly, so no consent step was recorded for it.
    newsletterConsentEvents: [],
    contactMessages: [expect.objectContaining({ subject: 'Signals', message: 'How many a week?' })],
    // No email alert preferences saved, no alerts queued.
    alertPreferences: null,
    alerts: [],
  });
  await expect(page.getByText(settings('downloadedTitle'), { exact: true })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { cspSeen: string[] }).cspSeen)).toEqual([]);
  expect(await axeViolations(page)).toEqual([]);
});

test('Delete my account: the dialog says what goes and asks for the password; a wrong one keeps the account', async ({
  page,
}) => {
  const member = await newMember();
  await openSettingsAs(page, member);
  const opener = page.getByRole('button', { name: settings('deleteOpen') });
  await opener.click();
  const dialog = page.getByRole('dialog', { name: settings('deleteDialogTitle') });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(settings('deleteWhat'));
  const password = dialog.getByLabel(settings('deletePassword'));
  await expect(password).toBeFocused();
  // Without two-factor the password is all it asks.
  await expect(dialog.getByLabel(settings('deleteCode'))).toHaveCount(0);
  expect(await axeViolations(page)).toEqual([]);

  // A wrong password: the dialog stays, says so, and nothing is deleted.
  await password.fill('Wr0ng!Passw0rd');
  await password.press('Enter');
  await expect(dialog.getByRole('alert')).toHaveText('The password is incorrect. Your account was not deleted.');
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  expect(await axeViolations(page)).toEqual([]);
  expect((await passwordGrant(member.email, MEMBER_PASSWORD)).status).toBe(200);

  // Escape closes it and focus returns to the button that opened it.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(opener).toBeFocused();
});

test('Delete my account with the password: toast on /, signed out, and the password no longer signs in', async ({
  page,
}) => {
  const member = await newMember();
  await openSettingsAs(page, member);
  await page.getByRole('button', { name: settings('deleteOpen') }).click();
  const dialog = page.getByRole('dialog', { name: settings('deleteDialogTitle') });
  await dialog.getByLabel(settings('deletePassword')).fill(MEMBER_PASSWORD);
  await dialog.getByRole('button', { name: settings('deleteConfirm') }).click();

  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByText(settings('deletedTitle'), { exact: true })).toBeVisible();
  await expect(page.getByText(settings('deleted'))).toBeVisible();
  expect(await page.evaluate((key) => localStorage.getItem(key), SESSION_KEY)).toBeNull();
  expect(await axeViolations(page)).toEqual([]);

  const grant = await passwordGrant(member.email, MEMBER_PASSWORD);
  expect(grant.status).toBe(400);
  expect(((await grant.json()) as { error_code?: string }).error_code).toBe('invalid_credentials');
  const profile = await fetch(`${API}/rest/v1/profiles?user_id=eq.${member.id}&select=user_id`, { headers: service });
  expect(await profile.json()).toEqual([]);
});
