// `npm run bench`: latency and throughput of the local stack on this machine (PGlite, or DATABASE_URL).
// Prints sign-in p50 / p99 for one client and at 20 concurrent clients with requests per second, the
// signed-in profile read through REST for one client and at 50 concurrent clients with requests per
// second, and the cached news answer's requests per second and p50 at 50 concurrent clients (fixture
// feeds served on 127.0.0.1). `npm run bench -- news` runs the news part alone.
// A measurement script, not a test: nothing here passes or fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createClient } from '@supabase/supabase-js';
import { loadConfig } from '../supabase/local/config.ts';
import { startStack } from '../supabase/local/server.ts';
import { startFeedServer } from './feed-server.ts';
import { freePort } from './free-port.ts';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 100);
const NEWS_CONCURRENCY = 50;
const NEWS_TOTAL = Number(process.env.BENCH_NEWS ?? 10_000);
const onlyNews = process.argv.slice(2).includes('news');
const CONCURRENCY = 20;
const CONCURRENT_TOTAL = Number(process.env.BENCH_CONCURRENT ?? 400);
/** Signed-in profile reads through REST at this many concurrent clients (the 1,500 req/s target). */
const READ_CONCURRENCY = 50;
const READ_TOTAL = Number(process.env.BENCH_READS ?? 5000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

const dataDir = mkdtempSync(join(tmpdir(), 'signals-bench-'));
const ports = { api: await freePort(), db: await freePort(), mailWeb: await freePort(), smtp: await freePort() };
const feeds = await startFeedServer();
const stack = await startStack(
  loadConfig(
    { ...process.env, DATA_DIR: dataDir, RATE_LIMITS: 'off' },
    {
      ports,
      smtpUrl: `smtp://127.0.0.1:${ports.smtp}`,
      news: {
        feedUrls: ['business.xml', 'markets.atom', 'headlines.xml'].map((f) => feeds.feedUrl(f)).join(','),
        investingFeedUrl: feeds.feedUrl('investing.xml'),
      },
    },
  ),
);
const client = () =>
  createClient(stack.url, stack.config.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });

/** GET /functions/v1/news?feed=combined from 50 clients at once (in a worker thread), once the cache is filled. */
async function benchNews() {
  const url = `${stack.url}/functions/v1/news?feed=combined`;
  const headers = { apikey: stack.config.anonKey, Authorization: `Bearer ${stack.config.anonKey}` };
  const first = await (await fetch(url, { headers })).json();
  if (first.articles.length !== 15) throw new Error(`news: ${first.articles.length} articles, expected 15`);
  const load = (total: number) =>
    new Promise<{ times: number[]; failed: number; seconds: number }>((done, fail) => {
      const worker = new Worker(new URL('./bench-load.ts', import.meta.url), {
        workerData: { url, headers, total, concurrency: NEWS_CONCURRENCY },
      });
      worker.once('message', done);
      worker.once('error', fail);
    });
  await load(500); // warm-up
  const { times, failed, seconds } = await load(NEWS_TOTAL);
  if (failed) throw new Error(`news: ${failed} requests did not answer 200`);
  times.sort((a, b) => a - b);
  console.log(
    `news (cached), ${NEWS_CONCURRENCY} clients (${NEWS_TOTAL} runs): p50 ${ms(percentile(times, 50))}  p99 ${ms(percentile(times, 99))}  ${(NEWS_TOTAL / seconds).toFixed(0)} req/s`,
  );
}

try {
  if (onlyNews) {
    console.log(`Local stack benchmark (${stack.ctx.db.kind}, ${process.arch}, Node ${process.versions.node})`);
    await benchNews();
  } else await benchAuthAndRest();
} finally {
  await stack.stop();
  await feeds.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function benchAuthAndRest() {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'Bench-passw0rd!';
  const admin = createClient(stack.url, stack.config.serviceRoleKey, { auth: { persistSession: false } });
  const created = await admin.auth.admin.createUser({
    email,
    password,
    email_confirm: true,
    user_metadata: { first_name: 'Bench', last_name: 'User' },
  });
  if (created.error) throw created.error;

  async function signIn(): Promise<number> {
    const t0 = performance.now();
    const { error } = await client().auth.signInWithPassword({ email, password });
    if (error) throw error;
    return performance.now() - t0;
  }

  for (let i = 0; i < 5; i++) await signIn(); // warm-up
  const sequential: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await signIn());
  sequential.sort((a, b) => a - b);

  const concurrent: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CONCURRENT_TOTAL) concurrent.push(await signIn());
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  concurrent.sort((a, b) => a - b);

  const user = client();
  const { data: signedIn } = await user.auth.signInWithPassword({ email, password });
  const userId = signedIn.user?.id;
  const reads: number[] = [];
  for (let i = 0; i < SEQUENTIAL + 5; i++) {
    const t0 = performance.now();
    const { error } = await user.from('profiles').select('*').eq('user_id', userId).single();
    if (error) throw new Error(error.message);
    if (i >= 5) reads.push(performance.now() - t0);
  }
  reads.sort((a, b) => a - b);

  // 50 clients, each its own supabase-js client with the member's session, as 50 browsers would be.
  const readers = await Promise.all(
    Array.from({ length: READ_CONCURRENCY }, async () => {
      const reader = client();
      const { error } = await reader.auth.signInWithPassword({ email, password });
      if (error) throw error;
      return reader;
    }),
  );
  const concurrentReads: number[] = [];
  let nextRead = 0;
  const readsStarted = performance.now();
  await Promise.all(
    readers.map(async (reader) => {
      while (nextRead++ < READ_TOTAL) {
        const t0 = performance.now();
        const { error } = await reader.from('profiles').select('*').eq('user_id', userId).single();
        if (error) throw new Error(error.message);
        concurrentReads.push(performance.now() - t0);
      }
    }),
  );
  const readSeconds = (performance.now() - readsStarted) / 1000;
  concurrentReads.sort((a, b) => a - b);

  console.log(`Local stack benchmark (${stack.ctx.db.kind}, ${process.arch}, Node ${process.versions.node})`);
  console.log(
    `sign-in, 1 client (${SEQUENTIAL} runs):    p50 ${ms(percentile(sequential, 50))}  p99 ${ms(percentile(sequential, 99))}`,
  );
  console.log(
    `sign-in, ${CONCURRENCY} clients (${CONCURRENT_TOTAL} runs): p50 ${ms(percentile(concurrent, 50))}  p99 ${ms(percentile(concurrent, 99))}  ${(CONCURRENT_TOTAL / seconds).toFixed(1)} req/s`,
  );
  console.log(
    `profile read, 1 client (${SEQUENTIAL} runs): p50 ${ms(percentile(reads, 50))}  p99 ${ms(percentile(reads, 99))}`,
  );
  console.log(
    `profile read, ${READ_CONCURRENCY} clients (${READ_TOTAL} runs): p50 ${ms(percentile(concurrentReads, 50))}  p99 ${ms(percentile(concurrentReads, 99))}  ${(READ_TOTAL / readSeconds).toFixed(1)} req/s`,
  );
  await benchNews();
}
