import { type Browser, expect as baseExpect, type Page, test } from '@playwright/test';
import { labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { postToLedger } from './ledger.ts';
import { signInNewMember } from './members.ts';

// The live dashboard against the real stack and its Realtime: two members in two browsers, each on /dashboard;
// signals and events posted through signals-ingest (signed as the engine signs them) appear on both without a
// reload, and a connection cut while a signal is posted catches up once it is back.

test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const dashboard = labels('dashboard');

const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
/**
 * A pair no other test posts: three random letters against CHF, a quote no other spec draws against (alerts.spec.ts
 * draws against USD, dashboard-signals.spec.ts against CAD and JPY). The two tests here may run at once in two
 * workers, each with its own draw: each takes its letters from its own half of Q to Z, `from` Q (Q to U) or V (V to
 * Z), so theirs never meet. Never CHF itself, which the ledger refuses as a base against CHF, nor USD.
 */
const pair = (from: 'Q' | 'V') => {
  const letter = () => String.fromCharCode(from.charCodeAt(0) + Math.floor(Math.random() * 5));
  return `${letter()}${letter()}${letter()}/CHF`;
};
const now = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

const opened = (id: string, onPair: string) => ({
  type: 'signal.opened',
  id,
  tier: 'growth',
  pair: onPair,
  direction: 'BUY',
  entry: 0.885,
  stop_loss: 0.88,
  take_profit: [0.89, 0.895, 0.9],
  timeframe: 'H4',
  issued_at: now(),
});

/** A new member's dashboard in a browser context of its own, with the feed hydrated. */
async function memberDashboard(browser: Browser, name: string): Promise<Page> {
  const email = `live-${name}-${run}@example.com`;
  const page = await (await browser.newContext()).newPage();
  await signInNewMember(page, email);
  await page.goto('/dashboard');
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
  // Every text the feed's polite live region takes from now on, with the cards marked as changed at that moment.
  // The specs beside this one post signals too: the region may say theirs right after this spec's, and a change
  // that arrives together with theirs is said as one count ("2 signals updated").
  await page
    .getByRole('region', { name: dashboard('feedHeading') })
    .locator('[aria-live="polite"]')
    .evaluate((region) => {
      const said: { text: string; marked: string[] }[] = [];
      Object.assign(window, { announced: said });
      const feed = region.closest('section') ?? document;
      new MutationObserver(() =>
        said.push({
          text: region.textContent ?? '',
          marked: Array.from(feed.querySelectorAll('[data-changed="true"]'), (card) => card.textContent ?? ''),
        }),
      ).observe(region, { childList: true, characterData: true, subtree: true });
    });
  return page;
}

type Said = { text: string; marked: string[] };
const records = (page: Page) => page.evaluate(() => (window as unknown as { announced: Said[] }).announced);
/** What the feed's live region has said on the page, in order. */
const announced = async (page: Page) => (await records(page)).map((r) => r.text);
/** What it said while the card of `onPair` was marked as changed: that change alone, or a count that includes it. */
const announcedAbout = async (page: Page, onPair: string) =>
  (await records(page)).filter((r) => r.marked.some((card) => card.includes(onPair))).map((r) => r.text);
/** The count the region says for several changes at once, e.g. "2 signals updated". */
const batch = new RegExp(
  `^${dashboard('liveMany')
    .split('{n}')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\d+')}$`,
);

const feedOf = (page: Page) => page.getByRole('region', { name: dashboard('feedHeading') });
const cardOf = (page: Page, onPair: string) => feedOf(page).getByRole('listitem').filter({ hasText: onPair });
const statusOf = (page: Page) => feedOf(page).locator('[data-live-status]');
const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

test('two members see a posted signal and its TP1 without a reload; the status reads Live', async ({ browser }) => {
  const pages = [await memberDashboard(browser, 'a'), await memberDashboard(browser, 'b')];
  for (const page of pages) {
    await expect(statusOf(page)).toHaveText(dashboard('liveOn'));
    // A mark on the document: a reload would lose it.
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
  }

  const onPair = pair('Q');
  const id = `e2e-live-${run}`;
  await postToLedger(opened(id, onPair));
  for (const page of pages) {
    const card = cardOf(page, onPair);
    await expect(card).toBeVisible();
    await expect(card).toContainText(dashboard('tierGrowth'));
    await expect(card).toContainText(dashboard('statusActive'));
    await expect(card.getByText(`✓ ${dashboard('tpHit')}`)).toHaveCount(0);
    // Said to screen readers, politely: alone once, or in the count of a batch with another spec's signal.
    const said = fill(dashboard('liveNew'), { pair: onPair, direction: 'BUY', tier: dashboard('tierGrowth') });
    await expect
      .poll(async () => (await announcedAbout(page, onPair)).some((text) => text === said || batch.test(text)))
      .toBe(true);
    expect((await announced(page)).filter((text) => text === said).length).toBeLessThanOrEqual(1);
  }

  await postToLedger({ type: 'signal.event', id: `${id}-tp1`, signal_id: id, kind: 'tp1_hit', price: 0.89, at: now() });
  for (const page of pages) {
    const card = cardOf(page, onPair);
    await expect(card).toContainText(dashboard('statusTp1'));
    await expect(card.getByText(`✓ ${dashboard('tpHit')}`)).toHaveCount(1);
    await expect(card).toHaveAttribute('data-changed', 'true');
    const tp1 = fill(dashboard('liveStatusChanged'), {
      pair: onPair,
      direction: 'BUY',
      status: dashboard('statusTp1'),
    });
    await expect
      .poll(async () => (await announcedAbout(page, onPair)).some((text) => text === tp1 || batch.test(text)))
      .toBe(true);
    await expect(statusOf(page)).toHaveText(dashboard('liveOn'));
  }
  // Nothing reloaded: each page still holds the document it loaded.
  for (const page of pages) expect(await page.evaluate(() => 'loadedOnce' in window)).toBe(true);
  expect(await axeViolations(pages[0])).toEqual([]);
});

test('a signal posted while the connection is cut appears once it is back', async ({ browser }) => {
  const page = await memberDashboard(browser, 'cut');
  // Every Realtime socket of the page goes through this route: while `down`, the server end is closed at once.
  let down = false;
  const open = new Set<{ close: () => Promise<void> }>();
  await page.routeWebSocket(/\/realtime\/v1\/websocket/, (ws) => {
    if (down) return void ws.close();
    const server = ws.connectToServer();
    open.add(server);
  });
  await page.reload();
  await expect(statusOf(page)).toHaveText(dashboard('liveOn'));
  await page.evaluate(() => Object.assign(window, { loadedOnce: true }));

  down = true;
  for (const server of open) await server.close();
  await expect(statusOf(page)).toHaveText(dashboard('liveReconnecting'));

  const onPair = pair('V');
  await postToLedger(opened(`e2e-missed-${run}`, onPair));
  // Not delivered while cut: nothing shows it until the feed is back.
  await expect(cardOf(page, onPair)).toHaveCount(0);

  down = false;
  await expect(statusOf(page)).toHaveText(dashboard('liveOn'), { timeout: 30_000 });
  await expect(cardOf(page, onPair)).toBeVisible();
  expect(await page.evaluate(() => 'loadedOnce' in window)).toBe(true);
});
