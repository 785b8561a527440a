// @vitest-environment happy-dom
// The dashboard feed's live region: what screen readers hear as live changes arrive.
import { PostgrestClient } from '@supabase/postgrest-js';
import { act, cleanup, render, screen } from '@testing-library/preact';
import { afterEach, expect, test } from 'vitest';
import { DASHBOARD_LABEL_KEYS, type DashboardLabels } from '../../src/islands/member/labels.ts';
import SignalFeed from '../../src/islands/member/SignalFeed.tsx';
import type { LedgerRow } from '../../src/stores/signal-feed.ts';
import type { LiveInput } from '../../src/stores/signal-live.ts';
import type { Database } from '../../supabase/database.types.ts';
import { fill, labels } from '../content.ts';
import { signalRow } from './signal-row.ts';

const text = labels('dashboard');
const dashboard = Object.fromEntries(DASHBOARD_LABEL_KEYS.map((key) => [key, text(key)])) as DashboardLabels;

afterEach(cleanup);

/** A new signal on `pair`, as a read brings it. */
const row = (id: string, pair: string): LedgerRow => ({ row: signalRow({ id, pair }), kinds: [], version: 0 });

test('joined during the first read it stays Live; each batch of changes is said as a new node, also when it says what the last one said', async () => {
  // An empty ledger behind a real postgrest-js client.
  const client = new PostgrestClient<Database>('http://rest.test/rest/v1', {
    fetch: async () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } }),
  });
  let report: ((input: LiveInput) => void) | undefined;
  const socket = {
    join: (on: (input: LiveInput) => void) => {
      report = on;
    },
    leave: () => {
      report = undefined;
    },
  };
  const { container } = render(
    <SignalFeed labels={dashboard} reader={{ from: client.from.bind(client) }} socket={socket} />,
  );
  const region = container.querySelector('[aria-live="polite"]');
  if (!region) throw new Error('no live region');
  const tell = (input: LiveInput) =>
    act(async () => {
      report?.(input);
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  // Joined while the first read is on its way: the join reads again, which replaces that read. The feed stays
  // Live (a replaced read is no lost connection) and keeps its channel.
  await tell({ type: 'joined' });
  expect(container.querySelector('[data-live-status]')?.getAttribute('data-live-status')).toBe('live');
  expect(report).toBeDefined();

  // What a read brings is applied as one batch. One change: its own sentence.
  await tell({ type: 'read', seq: 1, rows: [row('a', 'EUR/USD')] });
  const one = fill(dashboard.liveNew, { pair: 'EUR/USD', direction: 'BUY', tier: dashboard.tierGrowth });
  expect(region.textContent).toBe(one);

  // Two batches of two: the same words, each in a node of its own.
  const twice = fill(dashboard.liveMany, { n: '2' });
  await tell({ type: 'read', seq: 3, rows: [row('b', 'GBP/USD'), row('c', 'USD/JPY')] });
  const first = region.firstElementChild;
  expect(first?.textContent).toBe(twice);
  await tell({ type: 'read', seq: 5, rows: [row('d', 'AUD/USD'), row('e', 'NZD/USD')] });
  const second = region.firstElementChild;
  expect(second?.textContent).toBe(twice);
  expect(second).not.toBe(first);
  expect(first?.isConnected).toBe(false);
  expect(screen.getAllByText('NZD/USD', { exact: false }).length).toBeGreaterThan(0);
});
