import { expect, type Page, test } from '@playwright/test';
import { labels, section } from '../content.ts';
import { axeViolations, hold, postsTo } from './checks.ts';
import { API } from './env.ts';
import { waitForMail } from './mail.ts';

const FUNCTION = `${API}/functions/v1/send-contact-email`;
const INBOX = process.env.CONTACT_INBOX ?? 'support@signals.local';

const uniqueEmail = () => `sender-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;

// The form's words come from content/labels/contact.md (tests/content.ts); the field messages are the form
// rules' own (supabase/functions/_shared/form-rules.ts).
const t = labels('contact');

const form = (page: Page) => page.locator('contact-form');
const ids: Record<string, string> = {
  Name: '#contact-name',
  Email: '#contact-email',
  Subject: '#contact-subject',
  Message: '#contact-message',
};
/** A field by its visible label; the test checks the labels' wiring once, below. */
const field = (page: Page, label: string) => form(page).locator(ids[label] ?? label);
const send = (page: Page) =>
  form(page)
    .getByRole('button', { name: t('submit') })
    .or(form(page).getByRole('button', { name: t('submitting') }));

// The machine running these may be busy: a first call loads the function, and axe takes a while.
test.describe.configure({ timeout: 90_000 });
/** For what follows a round trip to a function. */
const AFTER_CALL = { timeout: 20_000 };

test('a message is sent: "Sending...", then "Message Sent!", the form resets and the inbox gets it with Reply-To the sender', async ({
  page,
}) => {
  const email = uniqueEmail();
  await page.goto('/contact-us');
  // Hold the request until the busy state has been seen.
  const held = await hold(page, FUNCTION);
  await field(page, 'Name').fill('Ann Lee');
  await field(page, 'Email').fill(email);
  await field(page, 'Subject').fill(`Growth One question ${email}`);
  await field(page, 'Message').fill('How many signals\nper week?');
  await send(page).click();
  await expect(send(page)).toHaveText(t('submitting'));
  await expect(send(page)).toBeDisabled();
  held.release();

  const toast = page.getByRole('status').filter({ hasText: t('successTitle') });
  await expect(toast).toBeVisible(AFTER_CALL);
  await expect(toast).toContainText(t('successDescription'));
  for (const label of ['Name', 'Email', 'Subject', 'Message']) await expect(field(page, label)).toHaveValue('');
  await expect(send(page)).toHaveText(t('submit'));

  const mail = await waitForMail((m) => m.ReplyTo.some((r) => r.Address === email));
  expect(mail.To.map((to) => to.Address)).toEqual([INBOX]);
  expect(mail.Subject).toBe(`Growth One question ${email}`);
  expect(mail.ReplyTo).toEqual([{ Name: 'Ann Lee', Address: email }]);
  expect(mail.Text).toContain('How many signals\nper week?');
});

test('without a subject the inbox gets "New Contact Form Submission"', async ({ page }) => {
  const email = uniqueEmail();
  await page.goto('/contact-us');
  await field(page, 'Name').fill('Bo');
  await field(page, 'Email').fill(email);
  await field(page, 'Message').fill('No subject');
  await send(page).click();
  await expect(page.getByRole('status').filter({ hasText: t('successTitle') })).toBeVisible(AFTER_CALL);
  const mail = await waitForMail((m) => m.ReplyTo.some((r) => r.Address === email));
  expect(mail.Subject).toBe('New Contact Form Submission');
});

test('missing fields: "Missing Information", each missing field marked, the first focused, nothing sent', async ({
  page,
}) => {
  await page.goto('/contact-us');
  const sent = postsTo(page, FUNCTION);
  await field(page, 'Email').fill('ann@example.com');
  await send(page).click();
  const toast = page.getByRole('alert').filter({ hasText: t('missingTitle') });
  await expect(toast).toBeVisible(AFTER_CALL);
  await expect(toast).toContainText(t('missingDescription'));
  await expect(field(page, 'Name')).toBeFocused();
  for (const [label, message] of [
    ['Name', 'Name is required.'],
    ['Message', 'Message is required.'],
  ]) {
    await expect(field(page, label)).toHaveAttribute('aria-invalid', 'true');
    await expect(field(page, label)).toHaveAccessibleDescription(message);
  }
  await expect(field(page, 'Email')).not.toHaveAttribute('aria-invalid', 'true');
  expect(await axeViolations(page)).toEqual([]);
  expect(sent).toEqual([]);
});

test('field limits are explained before sending, and the form keeps what was typed', async ({ page }) => {
  await page.goto('/contact-us');
  const sent = postsTo(page, FUNCTION);
  await field(page, 'Name').fill('Cy');
  await field(page, 'Email').fill('cy@example.com');
  await field(page, 'Subject').fill('s'.repeat(201));
  await field(page, 'Message').fill('m'.repeat(5001));
  await send(page).click();
  await expect(field(page, 'Subject')).toBeFocused();
  await expect(field(page, 'Subject')).toHaveAccessibleDescription('Subject must be at most 200 characters.');
  await expect(field(page, 'Message')).toHaveAccessibleDescription('Message must be at most 5,000 characters.');
  await expect(page.getByRole('alert').filter({ hasText: t('missingTitle') })).toHaveCount(0);
  await expect(field(page, 'Message')).toHaveValue('m'.repeat(5001));

  await field(page, 'Email').fill('cy-at-example');
  await field(page, 'Subject').fill('Fine');
  await field(page, 'Message').fill('Fine');
  await send(page).click();
  await expect(field(page, 'Email')).toBeFocused();
  await expect(field(page, 'Email')).toHaveAccessibleDescription('Email must be a valid email address.');
  expect(sent).toEqual([]);
});

test('sending fails: the "Error" toast, and the form is kept', async ({ page }) => {
  await page.goto('/contact-us');
  await page.route(FUNCTION, (route) => route.abort('failed'));
  await field(page, 'Name').fill('Dee');
  await field(page, 'Email').fill('dee@example.com');
  await field(page, 'Message').fill('Please keep me');
  await send(page).click();
  const toast = page.getByRole('alert').filter({ hasText: t('failureDescription') });
  await expect(toast).toBeVisible(AFTER_CALL);
  await expect(toast).toContainText(t('failureTitle'));
  await expect(field(page, 'Message')).toHaveValue('Please keep me');
  await expect(field(page, 'Name')).toHaveValue('Dee');
  await expect(send(page)).toBeEnabled();
});

test('a filled honeypot is silently ignored: nothing is sent', async ({ page }) => {
  await page.goto('/contact-us');
  const sent = postsTo(page, FUNCTION);
  await form(page)
    .locator('input[name="website"]')
    .evaluate((el: HTMLInputElement) => {
      el.value = 'http://spam.example';
    });
  await field(page, 'Name').fill('Bot');
  await field(page, 'Email').fill('bot@example.com');
  await field(page, 'Message').fill('Buy now');
  await send(page).click();
  await expect(page.getByRole('status').filter({ hasText: t('successTitle') })).toBeVisible(AFTER_CALL);
  expect(sent).toEqual([]);
});

test('the response-time claims and the form are on the page, keyboard-reachable and axe clean @mobile', async ({
  page,
}) => {
  await page.goto('/contact-us');
  const claims = section('contact-us', 'response-times').items ?? [];
  for (const text of claims.flatMap((item) => [item.title, item.text ?? ''])) {
    await expect(page.getByText(text, { exact: true }).first()).toBeVisible();
  }
  for (const [label, name] of [
    ['Name', t('nameLabel')],
    ['Email', t('emailLabel')],
    ['Subject', `${t('subjectLabel')} ${t('optional')}`],
    ['Message', t('messageLabel')],
  ]) {
    await expect(field(page, label)).toHaveAccessibleName(name);
  }
  await expect(field(page, 'Name')).toHaveAttribute('required', '');
  await expect(field(page, 'Subject')).not.toHaveAttribute('required', '');
  await field(page, 'Name').focus();
  await page.keyboard.press('Tab');
  await expect(field(page, 'Email')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(field(page, 'Subject')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(field(page, 'Message')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(send(page)).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);
});

test('built without a CAPTCHA site key: no Turnstile script, no token, and a policy that does not name it', async ({
  page,
}) => {
  const turnstile: string[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith('https://challenges.cloudflare.com/')) turnstile.push(req.url());
  });
  const bodies = postsTo(page, FUNCTION);
  const response = await page.goto('/contact-us');
  expect((await response?.allHeaders())?.['content-security-policy']).not.toContain('challenges.cloudflare.com');
  const email = uniqueEmail();
  await field(page, 'Name').fill('Cy');
  await field(page, 'Email').fill(email);
  await field(page, 'Message').fill('No widget here.');
  await send(page).click();
  await expect(page.getByRole('status').filter({ hasText: t('successTitle') })).toBeVisible(AFTER_CALL);
  expect(bodies.map((b) => Object.keys(JSON.parse(b)).sort())).toEqual([['email', 'message', 'name', 'subject']]);
  expect(turnstile).toEqual([]);
  await expect(page.locator('script[src*="challenges.cloudflare.com"]')).toHaveCount(0);
});
