// `npm run bench`: latency and throughput of the local stack on this machine (PGlite, or DATABASE_URL).
// Prints sign-in p50 / p99 for one client and at 20 concurrent clients with requests per second, the
// signed-in profile read through REST for one client and at 50 concurrent clients with requests per
// second, the cached news answer's p50 / p99 and requests per second at 50 concurrent clients (fixture
// feeds served on 127.0.0.1), and each Edge Function called with a valid request by 20 concurrent clients.
// `npm run bench -- news` runs the news part alone, `npm run bench -- functions` the functions part,
// `npm run bench -- rest` the profile reads, `npm run bench -- ingest` the signed signal posts to signals-ingest
// (signals stored per second at 20 concurrent posters, each post a new signal), `npm run bench -- delivery` the
// live delivery: 1,000 members subscribed to the members' signal topic over Realtime WebSockets while 200 signals
// and events are posted through signals-ingest; p50 / p95 / p99 / max from each POST to receipt by every member,
// and any message lost (scripts/lib/bench-delivery.ts). Not part of the default run (it takes about a minute).
// The concurrent clients run in a worker thread (bench-load.ts), not on the stack's event loop: the 50
// profile readers are supabase-js clients that each signed in with their own session.
// BENCH_CPU_PROFILE=<folder> writes a .cpuprofile of the stack's thread for each timed load run (open it in
// Chrome DevTools' Performance panel), covering only the timed part, without start-up or warm-up.
// A measurement script: nothing here passes or fails, but a request that does not answer 200 stops it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createClient } from '@supabase/supabase-js';
import { loadConfig, signJwt, startStack } from 'local-supabase';
import { freePort, sleep } from 'local-supabase/testing';
import { PUBLISHED_CONSENT_WORDINGS } from '../supabase/functions/_shared/newsletter-consent.ts';
import { signingKey } from '../supabase/functions/signals-ingest/signature.ts';
import type { DeliveryJob, DeliveryResult } from './lib/bench-delivery.ts';
import type { HttpJob, LoadResult, ProfileJob } from './lib/bench-load.ts';
import { startFeedServer } from './lib/feed-server.ts';
import { postSigned } from './signals-demo.ts';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 100);
const NEWS_CONCURRENCY = 50;
const NEWS_TOTAL = Number(process.env.BENCH_NEWS ?? 10_000);
const args = process.argv.slice(2);
const onlyNews = args.includes('news');
const onlyFunctions = args.includes('functions');
const onlyRest = args.includes('rest');
const onlyIngest = args.includes('ingest');
const onlyDelivery = args.includes('delivery');
/** Members subscribed over WebSockets, and the signals and events posted while they listen. */
const DELIVERY_MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const DELIVERY_POSTS = Number(process.env.BENCH_POSTS ?? 200);
/** One post every 50 ms: 20 a second, far above what the engine sends, so the fan-out is what is measured. */
const DELIVERY_INTERVAL_MS = Number(process.env.BENCH_POST_INTERVAL_MS ?? 50);
/** Members with email alerts on, and signals posted one a second, for the alert mail's latency. */
const ALERT_MEMBERS = 20;
const ALERT_POSTS = 20;
/** Signed signal.opened posts to signals-ingest at this many concurrent posters. */
const INGEST_CONCURRENCY = 20;
const INGEST_TOTAL = Number(process.env.BENCH_INGEST ?? 1000);
const INGEST_SECRET = 'bench-signals-ingest-secret-0123456789abcdef';
/** Each function at this many concurrent clients. */
const FUNCTION_CONCURRENCY = 20;
const FUNCTION_TOTAL = Number(process.env.BENCH_FUNCTIONS ?? 200);
const CONCURRENCY = 20;
const CONCURRENT_TOTAL = Number(process.env.BENCH_CONCURRENT ?? 400);
/** Signed-in profile reads through REST at this many concurrent clients (the 1,500 req/s target). */
const READ_CONCURRENCY = 50;
const READ_TOTAL = Number(process.env.BENCH_READS ?? 5000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

// The delivery part needs Realtime, whatever config.toml says.
if (onlyDelivery) process.env.REALTIME = 'on';
const dataDir = mkdtempSync(join(tmpdir(), 'signals-bench-'));
const ports = { api: await freePort(), db: await freePort(), mailWeb: await freePort(), smtp: await freePort() };
const feeds = await startFeedServer();
const stack = await startStack(
  loadConfig(
    { ...process.env, DATA_DIR: dataDir, RATE_LIMITS: 'off' },
    {
      ports,
      smtpUrl: `smtp://127.0.0.1:${ports.smtp}`,
      functionSecrets: {
        NEWS_FEED_URLS: ['business.xml', 'markets.atom', 'headlines.xml'].map((f) => feeds.feedUrl(f)).join(','),
        INVESTING_FEED_URL: feeds.feedUrl('investing.xml'),
        SIGNALS_INGEST_SECRET: INGEST_SECRET,
      },
    },
  ),
);
const client = () =>
  createClient(stack.url, stack.config.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });

const anonHeaders = { apikey: stack.config.anonKey, Authorization: `Bearer ${stack.config.anonKey}` };

const profileDir = process.env.BENCH_CPU_PROFILE;
const inspector = profileDir ? new Session() : undefined;
inspector?.connect();
let profiled = 0;

/** Runs a job of bench-load.ts in a worker thread; throws when a request failed. */
function load(name: string, job: HttpJob | ProfileJob): Promise<LoadResult> {
  return new Promise<LoadResult>((done, fail) => {
    const worker = new Worker(new URL('./lib/bench-load.ts', import.meta.url), { workerData: job });
    let cpu = process.threadCpuUsage();
    worker.on('message', async (message: 'start' | LoadResult) => {
      if (message === 'start') {
        cpu = process.threadCpuUsage();
        if (inspector) await inspector.post('Profiler.enable').then(() => inspector.post('Profiler.start'));
        return;
      }
      const used = process.threadCpuUsage(cpu);
      const result = { ...message, serverCpu: (used.user + used.system) / 1000 / message.times.length };
      if (inspector && profileDir) {
        const { profile } = await inspector.post('Profiler.stop');
        const file = join(profileDir, `${++profiled}-${name.replace(/\W+/g, '-')}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        console.log(`CPU profile of the stack's thread: ${file}`);
      }
      if (result.failed) fail(new Error(`${name}: ${result.failed} requests failed, first: ${result.firstFailure}`));
      else done(result);
    });
    worker.once('error', fail);
  });
}

/**
 * One line: p50 / p99 and requests per second of a load run, and the CPU time the stack's thread spent per
 * request (what bounds the requests per second of this single-threaded stack; it moves far less than the
 * times when other processes load the machine).
 */
function report(label: string, { times, seconds, serverCpu, clientCpu }: LoadResult) {
  times.sort((a, b) => a - b);
  console.log(
    `${label} (${times.length} runs): p50 ${ms(percentile(times, 50))}  p99 ${ms(percentile(times, 99))}  ${(times.length / seconds).toFixed(0)} req/s  (CPU per request: stack ${serverCpu?.toFixed(2)} ms, clients ${clientCpu.toFixed(2)} ms)`,
  );
}

/** GET /functions/v1/news?feed=combined from 50 clients at once (in a worker thread), once the cache is filled. */
async function benchNews() {
  const url = `${stack.url}/functions/v1/news?feed=combined`;
  const first = await (await fetch(url, { headers: anonHeaders })).json();
  if (first.articles.length !== 15) throw new Error(`news: ${first.articles.length} articles, expected 15`);
  const job = { kind: 'http', url, headers: anonHeaders, concurrency: NEWS_CONCURRENCY } as const;
  await load('news', { ...job, total: 500 }); // warm-up
  report(`news (cached), ${NEWS_CONCURRENCY} clients`, await load('news', { ...job, total: NEWS_TOTAL }));
}

/**
 * Each function that takes a form, POSTed a valid body by 20 clients at once: every request a new address
 * where the function stores one (sign-ups, newsletter), mail into the stack's mail catcher.
 */
async function benchFunctions(member: { email: string }) {
  const run = Date.now();
  const bodies: Record<string, object> = {
    'send-contact-email': {
      name: 'Bench Client',
      email: `bench-contact-{n}-${run}@example.com`,
      subject: 'Benchmark',
      message: 'A message sent by npm run bench.',
    },
    'newsletter-signup': {
      email: `bench-news-{n}-${run}@example.com`,
      consentVersion: PUBLISHED_CONSENT_WORDINGS.at(-1)?.version,
    },
    'user-signup': {
      email: `bench-signup-{n}-${run}@example.com`,
      password: 'Bench-passw0rd!',
      firstName: 'Bench',
      lastName: 'Signup',
    },
    'password-reset': { email: member.email },
  };
  for (const [name, body] of Object.entries(bodies)) {
    const result = await load(name, {
      kind: 'http',
      url: `${stack.url}/functions/v1/${name}`,
      method: 'POST',
      headers: { ...anonHeaders, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      total: FUNCTION_TOTAL,
      concurrency: FUNCTION_CONCURRENCY,
    });
    report(`${name}, ${FUNCTION_CONCURRENCY} clients`, result);
  }
}

/**
 * Signed signal.opened posts to signals-ingest from 20 posters at once, each a new signal (201: the signal, its
 * commitment in the chain and the hash, stored). Then the ledger is read back to check every one was stored.
 */
async function benchIngest() {
  const run = Date.now();
  const body = JSON.stringify({
    type: 'signal.opened',
    id: `bench-${run}-{n}`,
    tier: 'growth',
    pair: 'EUR/USD',
    direction: 'BUY',
    entry: 1.085,
    stop_loss: 1.083,
    take_profit: [1.087, 1.089, 1.091],
    timeframe: 'H1',
    issued_at: new Date(run - (run % 1000)).toISOString(),
  });
  const job = {
    kind: 'http',
    url: `${stack.url}/functions/v1/signals-ingest`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
    signingSecret: INGEST_SECRET,
    status: 201,
    concurrency: INGEST_CONCURRENCY,
  } as const;
  await load('signals-ingest', { ...job, body: body.replace(`bench-${run}-`, `bench-${run}-warm-`), total: 100 });
  const result = await load('signals-ingest', { ...job, total: INGEST_TOTAL });
  report(`signals-ingest (signal.opened), ${INGEST_CONCURRENCY} posters`, result);
  const [stored] = await stack.ctx.db.query<{ signals: number; chain: number }>(
    `select count(*)::int as signals, (select count(*)::int from public.signal_commitments) as chain
       from public.signals where id like $1`,
    [`bench-${run}-%`],
  );
  if (stored.signals !== INGEST_TOTAL + 100) {
    throw new Error(`signals-ingest: ${stored.signals} signals stored, expected ${INGEST_TOTAL + 100}`);
  }
  console.log(`  stored: ${stored.signals} signals, ${stored.chain} commitments in the chain`);
}

/**
 * 1,000 members on the members' private topic (each with a token of its own, as a signed-in browser holds), then
 * 200 posts through signals-ingest (100 new signals, then TP1 on each) at 20 a second: latency from each POST's
 * start to its broadcast's receipt by every member, and what was lost.
 */
async function benchDelivery() {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const tokens = await Promise.all(
    Array.from({ length: DELIVERY_MEMBERS }, () =>
      signJwt(
        { sub: randomUUID(), role: 'authenticated', aud: 'authenticated', aal: 'aal1', exp },
        stack.config.jwtSecret,
      ),
    ),
  );
  const run = Date.now().toString(36);
  const now = Date.now() - (Date.now() % 1000);
  const signals = Math.ceil(DELIVERY_POSTS / 2);
  const opened = Array.from({ length: signals }, (_, i) => ({
    type: 'signal.opened',
    id: `delivery-${run}-${i + 1}`,
    tier: (['foundation', 'growth', 'momentum'] as const)[i % 3],
    pair: 'EUR/USD',
    direction: 'BUY',
    entry: 1.085,
    stop_loss: 1.083,
    take_profit: [1.087, 1.089, 1.091],
    timeframe: 'H1',
    issued_at: new Date(now - 60_000).toISOString(),
  }));
  const events = opened.slice(0, DELIVERY_POSTS - signals).map((s) => ({
    type: 'signal.event',
    id: `${s.id}-tp1`,
    signal_id: s.id,
    kind: 'tp1_hit',
    price: 1.087,
    at: new Date(now - 30_000).toISOString(),
  }));
  const job: DeliveryJob = {
    apiUrl: stack.url,
    anonKey: stack.config.anonKey,
    tokens,
    topic: 'signals:members',
    secret: INGEST_SECRET,
    posts: [...opened, ...events],
    intervalMs: DELIVERY_INTERVAL_MS,
  };
  const result = await new Promise<DeliveryResult>((done, fail) => {
    const worker = new Worker(new URL('./lib/bench-delivery.ts', import.meta.url), { workerData: job });
    worker.on('message', (message: 'ready' | DeliveryResult) => {
      if (message === 'ready') console.log(`delivery: ${DELIVERY_MEMBERS} members joined, posting`);
      else done(message);
    });
    worker.once('error', fail);
  });
  if (result.refused.length) throw new Error(`signals-ingest refused ${result.refused.length}: ${result.refused[0]}`);
  const times = result.latencies.sort((a, b) => a - b);
  console.log(
    `delivery, ${DELIVERY_MEMBERS} members × ${job.posts.length} posts (${result.postsPerSecond.toFixed(1)} posts/s, joined in ${(result.joinMs / 1000).toFixed(1)} s): ` +
      `p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}  p99 ${ms(percentile(times, 99))}  max ${ms(times.at(-1) ?? 0)}  ` +
      `received ${times.length} of ${result.expected}, lost ${result.lost}`,
  );
  await benchAlertMail();
}

/**
 * From a signed post to the alert mail in the stack's mail catcher: 20 members with email alerts on, 20 new signals
 * posted one a second (each on a pair of its own, which the mail's subject names), the alert sender on the schedule
 * the migration gives it (every 10 s). p50 / p99 / max of (mail received − POST started), and mails missing.
 */
async function benchAlertMail() {
  const admin = createClient(stack.url, stack.config.serviceRoleKey, { auth: { persistSession: false } });
  const run = Date.now().toString(36);
  const emails: string[] = [];
  for (let i = 0; i < ALERT_MEMBERS; i++) {
    const { email, userId } = await createMember(`bench-alerts-${run}-${i}@example.com`);
    const prefs = await admin.from('alert_preferences').insert({ user_id: userId, email_enabled: true });
    if (prefs.error) throw new Error(prefs.error.message);
    emails.push(email);
  }
  const key = await signingKey(INGEST_SECRET);
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const postedAt = new Map<string, number>();
  const issuedAt = new Date(Date.now() - (Date.now() % 1000) - 60_000).toISOString();
  for (let i = 0; i < ALERT_POSTS; i++) {
    const pair = `Q${letters[Math.floor(i / 26) % 26]}${letters[i % 26]}/USD`;
    const t0 = Date.now();
    const { status, body } = await postSigned(stack.url, key, {
      type: 'signal.opened',
      id: `bench-alert-${run}-${i}`,
      tier: 'growth',
      pair,
      direction: 'BUY',
      entry: 1.085,
      stop_loss: 1.083,
      take_profit: [1.087, 1.089, 1.091],
      timeframe: 'H1',
      issued_at: issuedAt,
    });
    if (status !== 201) throw new Error(`signals-ingest answered ${status}: ${body}`);
    postedAt.set(pair, t0);
    await sleep(Math.max(0, t0 + 1000 - Date.now()));
  }
  const mailApi = `http://127.0.0.1:${stack.config.ports.mailWeb}/api/v1/messages`;
  const expected = ALERT_MEMBERS * ALERT_POSTS;
  const ours = new Set(emails);
  let latencies: number[] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { messages } = (await (await fetch(`${mailApi}?limit=${expected * 2}`)).json()) as {
      messages: { To: { Address: string }[]; Subject: string; Created: string }[];
    };
    latencies = messages.flatMap((m) => {
      const pair = /BUY (\S+) /.exec(m.Subject)?.[1] ?? '';
      const t0 = postedAt.get(pair);
      return t0 !== undefined && m.To.some((to) => ours.has(to.Address)) ? [Date.parse(m.Created) - t0] : [];
    });
    if (latencies.length >= expected) break;
    await sleep(500);
  }
  latencies.sort((a, b) => a - b);
  console.log(
    `alert mail, ${ALERT_MEMBERS} members × ${ALERT_POSTS} signals (sender every 10 s): p50 ${ms(percentile(latencies, 50))}  ` +
      `p99 ${ms(percentile(latencies, 99))}  max ${ms(latencies.at(-1) ?? 0)}  received ${latencies.length} of ${expected}`,
  );
}

/** A confirmed member: the one the sign-in, profile and password-reset parts use, or one of the alert mail's. */
async function createMember(email = `bench-${Date.now()}@example.com`) {
  const password = 'Bench-passw0rd!';
  const admin = createClient(stack.url, stack.config.serviceRoleKey, { auth: { persistSession: false } });
  const created = await admin.auth.admin.createUser({
    email,
    password,
    email_confirm: true,
    user_metadata: { first_name: 'Bench', last_name: 'User' },
  });
  if (created.error) throw created.error;
  return { email, password, userId: created.data.user.id };
}

try {
  console.log(`Local stack benchmark (${stack.ctx.db.kind}, ${process.arch}, Node ${process.versions.node})`);
  if (onlyNews) await benchNews();
  else if (onlyFunctions) await benchFunctions(await createMember());
  else if (onlyRest) await benchProfileReads(await createMember());
  else if (onlyIngest) await benchIngest();
  else if (onlyDelivery) await benchDelivery();
  else {
    const member = await createMember();
    await benchSignIn(member);
    await benchProfileReads(member);
    await benchNews();
    await benchFunctions(member);
    await benchIngest();
  }
} finally {
  await stack.stop();
  await feeds.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function benchSignIn({ email, password }: { email: string; password: string }) {
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
  console.log(
    `sign-in, 1 client (${SEQUENTIAL} runs):    p50 ${ms(percentile(sequential, 50))}  p99 ${ms(percentile(sequential, 99))}`,
  );
  console.log(
    `sign-in, ${CONCURRENCY} clients (${CONCURRENT_TOTAL} runs): p50 ${ms(percentile(concurrent, 50))}  p99 ${ms(percentile(concurrent, 99))}  ${(CONCURRENT_TOTAL / seconds).toFixed(1)} req/s`,
  );
}

/** The member's own profile row through REST: one client, then 50 clients at once (the 1,500 req/s target). */
async function benchProfileReads({ email, password, userId }: { email: string; password: string; userId: string }) {
  const user = client();
  const { error: signInError } = await user.auth.signInWithPassword({ email, password });
  if (signInError) throw signInError;
  const reads: number[] = [];
  for (let i = 0; i < SEQUENTIAL + 5; i++) {
    const t0 = performance.now();
    const { error } = await user.from('profiles').select('*').eq('user_id', userId).single();
    if (error) throw new Error(error.message);
    if (i >= 5) reads.push(performance.now() - t0);
  }
  reads.sort((a, b) => a - b);

  console.log(
    `profile read, 1 client (${SEQUENTIAL} runs): p50 ${ms(percentile(reads, 50))}  p99 ${ms(percentile(reads, 99))}`,
  );
  // 50 supabase-js clients, each signed in with its own session as 50 browsers would be, in a worker thread.
  const readJob = { kind: 'profile', url: stack.url, anonKey: stack.config.anonKey, email, password, userId } as const;
  await load('profile read', { ...readJob, total: 500, concurrency: READ_CONCURRENCY }); // warm-up
  report(
    `profile read, ${READ_CONCURRENCY} clients`,
    await load('profile read', { ...readJob, total: READ_TOTAL, concurrency: READ_CONCURRENCY }),
  );
}
