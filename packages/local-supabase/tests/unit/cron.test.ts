// The stack's pg_cron: which jobs a project's migrations schedule, when each runs, and running them.
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { cronNext, readCronJobs, startCron } from '../../src/cron.ts';
import type { Db } from '../../src/db/types.ts';
import { until } from '../../testing/stack.ts';

const migrations = resolve(import.meta.dirname, '../fixtures/cron/migrations');

test('the jobs are the migrations’ cron.schedule calls in order: a later one replaces, unschedule removes', () => {
  expect(readCronJobs(migrations)).toEqual([
    { name: 'nightly', schedule: '0 4 * * 1-5', action: { kind: 'sql', sql: "select public.nightly('weekdays')" } },
    {
      name: 'ping',
      schedule: '*/5 * * * *',
      action: { kind: 'http', path: '/functions/v1/pinger/tick', body: '{"it\'s": 1}' },
    },
    { name: 'fast', schedule: '30 seconds', action: { kind: 'sql', sql: "select 'fast'" } },
  ]);
});

test('the next run is the next matching minute in UTC, or N seconds on', () => {
  const at = (iso: string) => new Date(iso);
  expect(cronNext('17 3 * * *', at('2026-11-26T03:17:00Z')).toISOString()).toBe('2026-11-27T03:17:00.000Z');
  expect(cronNext('17 3 * * *', at('2026-11-26T03:16:59Z')).toISOString()).toBe('2026-11-26T03:17:00.000Z');
  expect(cronNext('* * * * *', at('2026-11-26T10:00:30Z')).toISOString()).toBe('2026-11-26T10:01:00.000Z');
  expect(cronNext('*/5 * * * *', at('2026-11-26T10:01:00Z')).toISOString()).toBe('2026-11-26T10:05:00.000Z');
  // Friday 2026-11-27 after 04:00: the next weekday is Monday.
  expect(cronNext('0 4 * * 1-5', at('2026-11-27T05:00:00Z')).toISOString()).toBe('2026-11-30T04:00:00.000Z');
  // Both day fields restricted: either matches, as cron.
  expect(cronNext('0 0 1 * 0', at('2026-11-26T00:00:00Z')).toISOString()).toBe('2026-11-29T00:00:00.000Z');
  expect(cronNext('30 seconds', at('2026-11-26T10:00:00Z')).toISOString()).toBe('2026-11-26T10:00:30.000Z');
  expect(() => cronNext('@daily', new Date())).toThrow(/unsupported schedule/);
  expect(() => cronNext('61 * * * *', new Date())).toThrow(/out of range/);
});

test('CRON_SECONDS runs SQL jobs on the database and POSTs the others to the stack with the service-role key', async () => {
  const posts: { url?: string; auth?: string; body: string }[] = [];
  const api = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      posts.push({ url: req.url, auth: req.headers.authorization, body });
      res.end('{}');
    });
  });
  await new Promise<void>((listening) => api.listen(0, '127.0.0.1', listening));
  const port = (api.address() as { port: number }).port;
  const config = loadConfig({}, { ports: { api: port, db: 1, mailWeb: 2, smtp: 3 }, cron: { '*': 0.05, nightly: 0 } });
  const sql: string[] = [];
  const db = { exec: async (text: string) => void sql.push(text) } as unknown as Db;
  const stop = startCron(config, db, readCronJobs(migrations));
  try {
    await until('a POST and a SQL run', async () => (posts.length > 0 && sql.length > 0 ? true : undefined));
  } finally {
    await stop();
    await new Promise((closed) => api.close(closed));
  }
  expect(posts[0]).toEqual({
    url: '/functions/v1/pinger/tick',
    auth: `Bearer ${config.serviceRoleKey}`,
    body: '{"it\'s": 1}',
  });
  // `nightly` is off (0); only `fast` ran as SQL.
  expect(new Set(sql)).toEqual(new Set(["select 'fast'"]));
});
