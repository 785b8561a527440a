// /track-record against the e2e stack: signals and their events posted, signed, through signals-ingest as the engine
// posts them, then the page read as a visitor. The stack's ledger is shared with other specs, so the overall figures
// are compared with what track_record() answered the page, and the signals posted here by their rows.
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { formatFactor, formatPips, formatRate, type TrackRecord } from '../../src/lib/track-record.ts';
import { copy, fill, labels, section } from '../content.ts';
import { axeViolations } from './checks.ts';
import { postToLedger } from './ledger.ts';

const t = labels('track-record');

test('the track record shows the figures, the curve, the closed signals and the warning; axe clean', async ({
  page,
}) => {
  // Posts, a full axe run: a while on a busy machine.
  test.setTimeout(60_000);
  const tag = `tr-${randomUUID().slice(0, 8)}`;
  const issued = new Date(Date.now() - 60 * 60_000);
  const iso = (minutes: number) => new Date(issued.getTime() + minutes * 60_000).toISOString();
  // A BUY to TP3 (+150 pips), a USD/JPY SELL stopped at its moved stop (+30), an expired one (listed, not counted).
  const buy = { id: `${tag}-buy`, tier: 'growth', pair: 'EUR/USD', direction: 'BUY', entry: 1.085, stop_loss: 1.08 };
  const sell = { id: `${tag}-jpy`, tier: 'momentum', pair: 'USD/JPY', direction: 'SELL', entry: 150, stop_loss: 150.5 };
  const expired = { ...buy, id: `${tag}-exp` };
  for (const s of [buy, expired])
    await postToLedger({
      type: 'signal.opened',
      ...s,
      take_profit: [1.09, 1.095, 1.1],
      timeframe: 'H1',
      issued_at: iso(0),
    });
  await postToLedger({
    type: 'signal.opened',
    ...sell,
    take_profit: [149.5, 149, 148.5],
    timeframe: 'H4',
    issued_at: iso(0),
  });
  const event = (signal: string, kind: string, minutes: number, extra: Record<string, number> = {}) =>
    postToLedger({
      type: 'signal.event',
      id: `${signal}-${kind}`,
      signal_id: signal,
      kind,
      at: iso(minutes),
      ...extra,
    });
  await event(buy.id, 'tp3_hit', 10, { price: 1.1 });
  await event(sell.id, 'stop_moved', 11, { stop_loss: 149.7 });
  await event(sell.id, 'sl_hit', 12, { price: 149.72 });
  await event(expired.id, 'expired', 13);

  // The page's own answer: a second read here could already count signals another spec posted since.
  const answered = page.waitForResponse(
    (res) => res.url().endsWith('/rest/v1/rpc/track_record') && res.request().method() === 'POST',
  );
  await page.goto('/track-record');
  const response = await answered;
  expect(response.status()).toBe(200);
  const record = (await response.json()) as TrackRecord;
  await expect(page.locator('[data-track-record]')).toHaveAttribute('data-state', 'ready');

  await expect(page.getByRole('heading', { level: 1 })).toHaveText(copy('pages/track-record').heading);
  const first = (record.period.first_close ?? '').slice(0, 10);
  const last = (record.period.last_close ?? '').slice(0, 10);
  const period = fill(t('period'), { first, last });
  await expect(page.getByText(t('warning'))).toBeVisible();
  await expect(page.getByText(period)).toBeVisible();
  // Other specs' signals may be newer than these: every row is there after Show all.
  const showAll = page.locator('[data-part="show-all"]');
  if (await showAll.isVisible()) {
    await expect(showAll).toHaveText(fill(t('showAll'), { count: String(record.signals.length) }));
    await showAll.click();
    await expect(showAll).toBeHidden();
  }

  const figures = page.getByRole('table', { name: section('track-record', 'figures').heading });
  const overall = figures.getByRole('row', { name: new RegExp(`^${t('overall')}`) });
  const o = record.overall;
  await expect(overall.getByRole('cell')).toHaveText([
    String(o.trades),
    String(o.wins),
    String(o.losses),
    formatRate(o.win_rate),
    formatPips(o.pips),
    formatFactor(o.profit_factor),
    formatPips(o.max_drawdown_pips),
  ]);
  for (const tier of ['foundation', 'growth', 'momentum'])
    await expect(figures.getByRole('row', { name: new RegExp(`^${t(tier)}`) })).toBeVisible();

  await expect(
    page.getByRole('img', { name: fill(t('curveLabel'), { first, last, total: formatPips(o.pips) }) }),
  ).toBeVisible();

  const closed = page.getByRole('table', { name: section('track-record', 'signals').heading });
  const rowOf = (closedAt: string) =>
    closed.getByRole('row', { name: new RegExp(`^${closedAt.slice(0, 10)} ${closedAt.slice(11, 16)}`) });
  await expect(rowOf(iso(10)).filter({ hasText: 'EUR/USD' }).first()).toContainText(formatPips(150));
  await expect(rowOf(iso(12)).filter({ hasText: 'USD/JPY' }).first()).toContainText(formatPips(30));
  await expect(rowOf(iso(12)).filter({ hasText: 'USD/JPY' }).first()).toContainText(t('slHit'));
  await expect(
    rowOf(iso(13))
      .filter({ hasText: t('expired') })
      .first(),
  ).toContainText(t('notCounted'));

  await expect(page.getByRole('link', { name: t('ledgerLink') })).toHaveAttribute('href', '#verify');
  await expect(page.getByText('npm run ledger:verify')).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
});

test('the track record is linked from the footer and from /signals', async ({ page }) => {
  await page.goto('/signals');
  const heading = copy('pages/track-record').heading;
  await expect(page.getByRole('main').getByRole('link', { name: heading })).toHaveAttribute('href', '/track-record');
  const footer = copy('site/navigation').footerLinks.find((link) => link.href === '/track-record');
  await expect(page.getByRole('contentinfo').getByRole('link', { name: footer?.label })).toHaveAttribute(
    'href',
    '/track-record',
  );
});
