import { readFile } from 'node:fs/promises';
import { expect as baseExpect, type Page, test } from '@playwright/test';
import { labels } from '../content.ts';
import { axeViolations } from './checks.ts';
import { postToLedger } from './ledger.ts';
import { signInNewMember } from './members.ts';

// The members' signal feed on /dashboard against the real stack: signals and events are posted through the
// signals-ingest function, signed as the engine signs them; the member reads them under their own session.

test.describe.configure({ timeout: 90_000 });
const expect = baseExpect.configure({ timeout: 15_000 });

const dashboard = labels('dashboard');

/**
 * Pairs no other test posts: three random letters against CAD and against JPY, quotes no other spec draws against
 * (alerts.spec.ts draws against USD, dashboard-live.spec.ts against CHF), so a card or row of one of these pairs is
 * this spec's, and the two never meet. Not JPY for the first: the results below count its pips as 0.0001 each, as
 * for any quote but JPY (src/lib/track-record.ts pipSize).
 */
const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const letters = () =>
  Array.from({ length: 3 }, () => String.fromCharCode(81 + Math.floor(Math.random() * 10))).join('');
// Q to Z only: never USD, CAD or JPY (D, C and J are outside), so never the quote itself, which the ledger refuses.
const PAIR = `${letters()}/CAD`;
const OTHER_PAIR = `${letters()}/JPY`;

const now = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

function opened(id: string, over: Record<string, unknown> = {}) {
  return {
    type: 'signal.opened',
    id,
    tier: 'growth',
    pair: PAIR,
    direction: 'BUY',
    entry: 1.085,
    stop_loss: 1.08,
    take_profit: [1.09, 1.095, 1.1],
    timeframe: 'H1',
    issued_at: now(),
    ...over,
  };
}

const event = (id: string, signalId: string, kind: string, price?: number) => ({
  type: 'signal.event',
  id,
  signal_id: signalId,
  kind,
  ...(price === undefined ? {} : { price }),
  at: now(),
});

async function signInMember(page: Page): Promise<void> {
  const email = `feed-${run}@example.com`;
  await signInNewMember(page, email);
}

test('a member sees a posted signal after Refresh, its TP1 hit, and closed ones in history to filter and export', async ({
  page,
}) => {
  await signInMember(page);
  await page.goto('/dashboard');
  const feed = page.getByRole('region', { name: dashboard('feedHeading') });
  const refresh = feed.getByRole('button', { name: dashboard('refresh') });
  await expect(refresh).toBeEnabled();

  // Posted after the page loaded: shown live (tests/e2e/dashboard-live.spec.ts), and by Refresh, which reads again.
  const open = `e2e-${run}-open`;
  await postToLedger(opened(open));
  const card = feed.getByRole('listitem').filter({ hasText: PAIR });
  await refresh.click();
  await expect(card).toBeVisible();
  await expect(card).toContainText(dashboard('tierGrowth'));
  await expect(card).toContainText('BUY');
  await expect(card).toContainText(dashboard('statusActive'));
  await expect(card).toContainText(dashboard('justNow'));
  await expect(card.getByText(`✓ ${dashboard('tpHit')}`)).toHaveCount(0);

  // An event marks TP1.
  await postToLedger(event(`${open}-tp1`, open, 'tp1_hit', 1.09));
  await refresh.click();
  await expect(card).toContainText(dashboard('statusTp1'));
  await expect(card.getByText(`✓ ${dashboard('tpHit')}`)).toHaveCount(1);

  // Closed ones: a win on this pair (TP3), a loss on another pair (stop), in another tier.
  const win = `e2e-${run}-win`;
  const loss = `e2e-${run}-loss`;
  await postToLedger(opened(win));
  await postToLedger(event(`${win}-tp3`, win, 'tp3_hit', 1.1));
  await postToLedger(
    opened(loss, {
      tier: 'momentum',
      pair: OTHER_PAIR,
      direction: 'SELL',
      entry: 150.1,
      stop_loss: 150.6,
      take_profit: [149.6, 149.1, 148.6],
    }),
  );
  await postToLedger(event(`${loss}-sl`, loss, 'sl_hit', 150.6));
  await refresh.click();

  const table = feed.getByRole('table');
  const rowOf = (pair: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: pair }) });
  await expect(rowOf(PAIR)).toContainText('150');
  await expect(rowOf(PAIR)).toContainText(dashboard('resultWin'));
  await expect(rowOf(OTHER_PAIR)).toContainText('-50');
  await expect(rowOf(OTHER_PAIR)).toContainText(dashboard('resultLoss'));

  // Filters narrow the table.
  await feed.getByLabel(dashboard('filterPair')).selectOption(PAIR);
  await expect(rowOf(PAIR)).toHaveCount(1);
  await expect(rowOf(OTHER_PAIR)).toHaveCount(0);
  await feed.getByLabel(dashboard('filterPair')).selectOption('');
  await feed.getByLabel(dashboard('filterTier')).selectOption('momentum');
  await feed.getByLabel(dashboard('filterResult')).selectOption('loss');
  await expect(rowOf(OTHER_PAIR)).toHaveCount(1);
  await expect(rowOf(PAIR)).toHaveCount(0);
  // Other specs share the stack's ledger, so the empty result is asked of this spec's own pair.
  await feed.getByLabel(dashboard('filterPair')).selectOption(OTHER_PAIR);
  await feed.getByLabel(dashboard('filterResult')).selectOption('win');
  await expect(feed.getByText(dashboard('historyNoMatch'))).toBeVisible();
  await feed.getByLabel(dashboard('filterTier')).selectOption('');
  await feed.getByLabel(dashboard('filterPair')).selectOption(PAIR);

  // The CSV holds exactly the rows shown.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    feed.getByRole('button', { name: dashboard('exportCsv') }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('signals-history.csv');
  const lines = (await readFile(await download.path(), 'utf8')).trim().split('\r\n');
  expect(lines[0]).toBe(
    'id,tier,pair,direction,timeframe,entry,stop_loss,stop_in_force,tp1,tp2,tp3,issued_at,closed_at,status,exit,pips,result',
  );
  expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([win]);
  expect(lines[1]).toMatch(
    new RegExp(`^${win},growth,${PAIR.replace('/', '\\/')},BUY,H1,1\\.085,.*,tp3_hit,1\\.1,150,win$`),
  );

  expect(await axeViolations(page)).toEqual([]);
});
