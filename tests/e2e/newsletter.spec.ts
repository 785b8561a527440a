import { expect, type Page, test } from '@playwright/test';
import { DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { consentVersion } from '../../src/lib/consent-version.ts';
import { copy, labels, prose } from '../content.ts';
import { axeViolations, hold, postsTo } from './checks.ts';
import { API } from './env.ts';
import { sentTo, waitForMail } from './mail.ts';

const FUNCTION = `${API}/functions/v1/newsletter-signup`;

const uniqueEmail = () => `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`;

// The card's words come from content/labels/newsletter.md, the landing pages' from content/verification/
// (tests/content.ts); the field's format message is the form rules' own (supabase/functions/_shared/form-rules.ts).
const t = labels('newsletter');
const verified = copy('verification/email');
const expired = copy('verification/expired');
const invalid = copy('verification/invalid');
const unsubscribed = copy('verification/unsubscribed');
const unsubscribeInvalid = copy('verification/unsubscribe-invalid');
const service = { apikey: DEMO_SERVICE_ROLE_KEY, Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}` };

/** The stored newsletter row of `email`, read with the service-role key as the operator would. */
async function storedRow(email: string): Promise<Record<string, unknown> | undefined> {
  const res = await fetch(`${API}/rest/v1/newsletter_subscribers?email=eq.${encodeURIComponent(email)}&select=*`, {
    headers: service,
  });
  return ((await res.json()) as Record<string, unknown>[])[0];
}
/** The consent record of `email` (newsletter_consent_events), oldest first: kind and wording version. */
async function consentRecord(email: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(
    `${API}/rest/v1/newsletter_consent_events?email=eq.${encodeURIComponent(email)}&select=kind,via,consent_text_version&order=id`,
    { headers: service },
  );
  return (await res.json()) as Record<string, unknown>[];
}
const linkLabel = (variant: { links: { label: string; href: string }[] }, href: string) =>
  variant.links.find((link) => link.href === href)?.label ?? href;

const card = (page: Page) => page.locator('#newsletter');
const emailField = (page: Page) => card(page).getByLabel(t('emailLabel'));
const subscribe = (page: Page) =>
  card(page)
    .getByRole('button', { name: t('submit'), exact: true })
    .or(card(page).getByRole('button', { name: t('submitting'), exact: true }));

// The machine running these may be busy: a first call loads the function, and axe takes a while.
test.describe.configure({ timeout: 90_000 });
/** For what follows a round trip to a function. */
const AFTER_CALL = { timeout: 20_000 };

test('subscribe, read the verification mail, open its link: Email verified', async ({ page }) => {
  const email = uniqueEmail();
  await page.goto('/');
  await expect(card(page).getByRole('heading', { name: t('heading') })).toBeVisible();
  // Hold the request until the busy state has been seen.
  const held = await hold(page, FUNCTION);
  await emailField(page).fill(email);
  await subscribe(page).click();
  await expect(subscribe(page)).toHaveText(t('submitting'));
  await expect(subscribe(page)).toBeDisabled();
  held.release();

  const toast = page.getByRole('status').filter({ hasText: t('successTitle') });
  await expect(toast).toBeVisible(AFTER_CALL);
  await expect(toast).toContainText(t('successDescription'));
  await expect(emailField(page)).toHaveValue('');
  await expect(subscribe(page)).toHaveText(t('submit'));
  await expect(subscribe(page)).toBeEnabled();

  const mail = await waitForMail(sentTo(email));
  expect(mail.Subject).toBe('Confirm your SignalOne newsletter subscription');
  const link = /https?:\/\/\S+\/functions\/v1\/newsletter-signup\?token=[\w-]+/.exec(mail.Text)?.[0];
  expect(link).toBeTruthy();

  await page.goto(link as string);
  await expect(page).toHaveURL(/\/newsletter-verified$/);
  await expect(page.locator('h1')).toHaveText(verified.heading);
  for (const link of verified.links) {
    await expect(page.getByRole('link', { name: link.label, exact: true })).toHaveAttribute('href', link.href);
  }
});

test("the mail's unsubscribe link unsubscribes at once and lands on the page that says so", async ({ page }) => {
  const email = uniqueEmail();
  await page.goto('/');
  // The card says what the subscriber agrees to, with the privacy notice one click away.
  await expect(card(page).getByText(t('consent'))).toBeVisible();
  await expect(card(page).getByRole('link', { name: t('privacyLink') })).toHaveAttribute('href', '/privacy');
  await emailField(page).fill(email);
  await subscribe(page).click();
  await expect(page.getByRole('status').filter({ hasText: t('successTitle') })).toBeVisible(AFTER_CALL);

  // The sign-up keeps the version of the wording the card showed.
  const row = await storedRow(email);
  expect(row).toMatchObject({ status: 'pending', consent_text_version: consentVersion([t('intro'), t('consent')]) });

  const mail = await waitForMail(sentTo(email));
  const link = /https?:\/\/\S+\/functions\/v1\/newsletter-signup\/unsubscribe\?id=[\w-]+&token=[\w-]+/.exec(
    mail.Text,
  )?.[0];
  expect(link, mail.Text).toBeTruthy();
  await page.goto(link as string);
  await expect(page).toHaveURL(/\/newsletter-verified\?status=unsubscribed$/);
  await expect(page.locator('h1')).toHaveText(unsubscribed.heading);
  await expect(page).toHaveTitle(unsubscribed.title);
  await expect(page.getByText(prose('verification/unsubscribed'))).toBeVisible();
  await expect(page.getByText(verified.heading)).toBeHidden();
  for (const l of unsubscribed.links) {
    await expect(page.getByRole('main').getByRole('link', { name: l.label, exact: true })).toHaveAttribute(
      'href',
      l.href,
    );
  }
  expect(await axeViolations(page)).toEqual([]);
  expect(await storedRow(email)).toMatchObject({ status: 'unsubscribed' });
  // The consent record keeps both steps, under the wording version the card showed.
  const version = consentVersion([t('intro'), t('consent')]);
  expect(await consentRecord(email)).toEqual([
    { kind: 'requested', via: 'form', consent_text_version: version },
    { kind: 'withdrawn', via: 'link', consent_text_version: version },
  ]);
});

test('an unsubscribe link that is not valid lands on its own page', async ({ page }) => {
  await page.goto(`${FUNCTION}/unsubscribe?id=${crypto.randomUUID()}&token=${'A'.repeat(43)}`);
  await expect(page).toHaveURL(/\/newsletter-verified\?status=unsubscribe-invalid$/);
  await expect(page.locator('h1')).toHaveText(unsubscribeInvalid.heading);
  await expect(page).toHaveTitle(unsubscribeInvalid.title);
  const contact = page.getByRole('main').getByRole('link', { name: linkLabel(unsubscribeInvalid, '/contact-us') });
  await expect(contact).toHaveAttribute('href', '/contact-us');
  expect(await axeViolations(page)).toEqual([]);
});

test('no email: "Please enter your email address." on the field, focused, and nothing sent', async ({ page }) => {
  await page.goto('/');
  const sent = postsTo(page, FUNCTION);
  await subscribe(page).click();
  const error = card(page).getByText(t('emailRequired'));
  await expect(error).toBeVisible();
  await expect(emailField(page)).toHaveAttribute('aria-invalid', 'true');
  await expect(emailField(page)).toHaveAttribute('aria-describedby', (await error.getAttribute('id')) ?? '');
  await expect(emailField(page)).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);

  // Typing clears the error; a malformed address gets its own message.
  await emailField(page).fill('reader-at-example');
  await expect(error).toBeHidden();
  await expect(emailField(page)).not.toHaveAttribute('aria-invalid', 'true');
  await emailField(page).press('Enter');
  await expect(card(page).getByText('Email must be a valid email address.')).toBeVisible();
  expect(sent).toEqual([]);
});

test('a filled honeypot: "Please try again later", and nothing is sent', async ({ page }) => {
  await page.goto('/');
  const sent = postsTo(page, FUNCTION);
  const honeypot = card(page).locator('input[name="website"]');
  await expect(honeypot).toHaveAttribute('tabindex', '-1');
  await expect(honeypot).toHaveAttribute('autocomplete', 'off');
  await honeypot.evaluate((el: HTMLInputElement) => {
    el.value = 'http://spam.example';
  });
  await emailField(page).fill(uniqueEmail());
  await subscribe(page).click();
  await expect(page.getByRole('alert').filter({ hasText: t('honeypot') })).toBeVisible(AFTER_CALL);
  expect(sent).toEqual([]);
});

test('the server failing: "Failed to subscribe. Please try again later." and the address is kept', async ({ page }) => {
  await page.goto('/');
  // The function cannot be reached (the network fails on the way).
  await page.route(FUNCTION, (route) => route.abort('failed'));
  const email = uniqueEmail();
  await emailField(page).fill(email);
  await subscribe(page).click();
  await expect(page.getByRole('alert').filter({ hasText: t('failure') })).toBeVisible(AFTER_CALL);
  await expect(emailField(page)).toHaveValue(email);
  await expect(subscribe(page)).toBeEnabled();
});

test('a page from before a wording change: the refusal is said under the field, and nothing is stored', async ({
  page,
}) => {
  await page.goto('/');
  // A wording version the site never published, as a page cached from before the card's words changed sends it.
  await card(page).evaluate((el: HTMLElement) => {
    el.dataset.consentVersion = '0000000000000000';
  });
  const email = uniqueEmail();
  await emailField(page).fill(email);
  await subscribe(page).click();
  // The function answers invalid_input (field consentVersion); the card's one field carries its sentence.
  const error = card(page).getByText('This form is out of date: reload the page and try again.');
  await expect(error).toBeVisible(AFTER_CALL);
  await expect(emailField(page)).toHaveAttribute('aria-invalid', 'true');
  await expect(emailField(page)).toHaveValue(email);
  expect(await storedRow(email)).toBeUndefined();
});

test('an unknown link lands on "Link not valid", with a way to subscribe again', async ({ page }) => {
  await page.goto(`${FUNCTION}?token=${'A'.repeat(43)}`);
  await expect(page).toHaveURL(/\/newsletter-verified\?status=invalid$/);
  await expect(page.locator('h1')).toHaveText(invalid.heading);
  await expect(page).toHaveTitle(invalid.title);
  await expect(page.getByText(verified.heading)).toBeHidden();
  await expect(page.getByRole('link', { name: linkLabel(invalid, '/#newsletter') })).toHaveAttribute(
    'href',
    '/#newsletter',
  );
  expect(await axeViolations(page)).toEqual([]);
});

test('an expired link lands on "Link expired"; Subscribe again leads to the card', async ({ page }) => {
  await page.goto('/newsletter-verified?status=expired');
  await expect(page.locator('h1')).toHaveText(expired.heading);
  await expect(page).toHaveTitle(expired.title);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', expired.description);
  await expect(page.getByText(prose('verification/expired'))).toBeVisible();
  await expect(page.getByRole('link', { name: linkLabel(expired, '/') })).toHaveAttribute('href', '/');
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('link', { name: linkLabel(expired, '/#newsletter') }).click();
  await expect(page).toHaveURL(/\/#newsletter$/);
  await expect(emailField(page)).toBeVisible();
});

test('Home with the newsletter card has no axe violations @mobile', async ({ page }) => {
  await page.goto('/');
  await expect(emailField(page)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});
