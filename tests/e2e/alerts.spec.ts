import { expect as baseExpect, type Page, test } from '@playwright/test';
import { labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { MAIL_API } from './env.ts';
import { postToLedger } from './ledger.ts';
import { type CaughtMail, sentTo, waitForMail } from './mail.ts';
import { signInNewMember } from './members.ts';

// Email alerts against the real stack: a member saves Notification Preferences in Settings, signals posted through
// signals-ingest (signed as the engine signs them) reach the member's inbox in the stack's mail catcher through the
// signal-alerts function (run by the stack's scheduler, as pg_cron runs it on hosted Supabase) for the tier they
// follow and not for another, and the mail's unsubscribe link turns alerts off, which the panel then shows.

test.describe.configure({ timeout: 120_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const settings = labels('settings');

const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
/**
 * A pair no other test posts: three random letters from Q to Z (never USD) against USD, a quote no other spec draws
 * against (dashboard-signals.spec.ts draws against CAD and JPY, dashboard-live.spec.ts against CHF).
 */
const PAIR = `${Array.from({ length: 3 }, () => String.fromCharCode(81 + Math.floor(Math.random() * 10))).join('')}/USD`;

const opened = (id: string, tier: string) => ({
  type: 'signal.opened',
  id,
  tier,
  pair: PAIR,
  direction: 'BUY',
  entry: 1.085,
  stop_loss: 1.08,
  take_profit: [1.09, 1.095, 1.1],
  timeframe: 'H1',
  issued_at: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
});

async function openSettingsAsNewMember(page: Page): Promise<string> {
  const email = `alerts-${run}@example.com`;
  await signInNewMember(page, email);
  await page.goto('/settings');
  await panelReady(page);
  return email;
}

/** The island is hydrated and the panel shows what is stored (its fields enabled once read). */
async function panelReady(page: Page): Promise<void> {
  await expect(page.getByRole('heading', { name: settings('alertsHeading') })).toBeVisible();
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  await expect(page.getByLabel(settings('alertsEmail'))).toBeEnabled();
}

const box = (page: Page, label: string) => page.getByRole('checkbox', { name: label, exact: true });

test('a member chooses alerts: the followed tier mails, the other does not; the mail’s link turns alerts off', async ({
  page,
}) => {
  const email = await openSettingsAsNewMember(page);

  // No row yet: alerts off, every tier and event ticked, ready to turn on.
  await expect(box(page, settings('alertsEmail'))).not.toBeChecked();
  for (const label of ['alertsTierFoundation', 'alertsTierGrowth', 'alertsTierMomentum', 'alertsEventNewSignal']) {
    await expect(box(page, settings(label))).toBeChecked();
  }
  const panel = page.locator('#notification-preferences');
  const heightBefore = (await panel.boundingBox())?.height;

  await box(page, settings('alertsEmail')).check();
  await box(page, settings('alertsTierFoundation')).uncheck();
  await box(page, settings('alertsTierMomentum')).uncheck();
  await panel.getByRole('button', { name: settings('alertsSave') }).click();
  await expect(page.getByText(settings('alertsSaved'))).toBeVisible();
  expect((await panel.boundingBox())?.height).toBe(heightBefore);
  expect(await axeViolations(page)).toEqual([]);

  // Stored: a reload shows the same choices.
  await page.reload();
  await panelReady(page);
  await expect(box(page, settings('alertsEmail'))).toBeChecked();
  await expect(box(page, settings('alertsTierGrowth'))).toBeChecked();
  await expect(box(page, settings('alertsTierMomentum'))).not.toBeChecked();

  // A momentum signal (not followed), then a growth one (followed).
  await postToLedger(opened(`alerts-m-${run}`, 'momentum'));
  await postToLedger(opened(`alerts-g-${run}`, 'growth'));
  // Other specs post growth signals and their events at the same time, and this member follows every growth signal:
  // only the mails about this spec's own pair count here.
  const ours = (m: CaughtMail) => sentTo(email)(m) && m.Subject.includes(PAIR);
  const mail = await waitForMail(ours, 45_000);
  expect(mail.Subject).toBe(`New signal: BUY ${PAIR} (Growth One)`);
  expect(mail.Text).toContain(`BUY ${PAIR} (H1)`);
  const all = (await mailsTo(email)).filter(ours);
  expect(all.map((m) => m.Subject)).toEqual([`New signal: BUY ${PAIR} (Growth One)`]);

  // The link in the mail: no sign-in needed; this browser lands on the panel, which shows alerts off.
  const link = /https?:\/\/\S+\/functions\/v1\/signal-alerts\/unsubscribe\?\S+/.exec(mail.Text)?.[0];
  expect(link, mail.Text).toBeTruthy();
  await page.goto(link as string);
  await panelReady(page);
  await expect(page.getByText(settings('alertsOffByLink'))).toBeVisible();
  // Said once: the address loses its ?alerts=off.
  await expect(page).toHaveURL(/\/settings#notification-preferences$/);
  await expect(box(page, settings('alertsEmail'))).not.toBeChecked();
  await expect(box(page, settings('alertsTierGrowth'))).toBeChecked();
  expect(await axeViolations(page)).toEqual([]);
});

/** Every caught mail to `email`, in full. */
async function mailsTo(email: string): Promise<CaughtMail[]> {
  const list = (await (await fetch(`${MAIL_API}/messages`)).json()) as { messages: CaughtMail[] };
  const mine = list.messages.filter(sentTo(email));
  return Promise.all(mine.map(async (m) => (await (await fetch(`${MAIL_API}/message/${m.ID}`)).json()) as CaughtMail));
}
