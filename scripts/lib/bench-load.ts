// A load generator for scripts/bench.ts, run in a worker thread so that the clients do not share the
// stack's event loop (real clients are other processes). Two kinds of job:
// - `http`: `total` requests from `concurrency` clients to `url`; a body's `{n}` becomes the request's
//   number, so each request can carry its own email address or signal id; with `signingSecret`, each request
//   is signed as the signal engine signs its posts to signals-ingest;
// - `profile`: `concurrency` supabase-js clients each sign in as the member with their own session, then
//   read the member's profile (`select('*').eq('user_id', id).single()`) `total` times between them.
// Posts 'start' when the timed part begins, then each request's time, the failures and the elapsed seconds.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { createClient } from '@supabase/supabase-js';
import { sign, signingKey } from '../../supabase/functions/signals-ingest/signature.ts';

export interface HttpJob {
  kind: 'http';
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Signs each request with X-Signal-Timestamp / X-Signal-Signature under this secret. */
  signingSecret?: string;
  /** The status a request must answer to count as done; 200 unless said. */
  status?: number;
  total: number;
  concurrency: number;
}

export interface ProfileJob {
  kind: 'profile';
  url: string;
  anonKey: string;
  email: string;
  password: string;
  userId: string;
  total: number;
  concurrency: number;
}

export interface LoadResult {
  times: number[];
  failed: number;
  /** The first failure, for the message: status and body, or the error. */
  firstFailure?: string;
  seconds: number;
  /** CPU time of the stack's thread (the bench's main thread) during the timed part, per request, ms. */
  serverCpu?: number;
  /** CPU time of the clients' thread (this worker) during the timed part, per request, ms. */
  clientCpu: number;
}

/** `run` from `concurrency` loops until `total` runs are done; each run says whether it succeeded. */
async function drive(total: number, concurrency: number, loops: ((n: number) => Promise<string | undefined>)[]) {
  const times: number[] = [];
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  parentPort?.postMessage('start');
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  await Promise.all(
    loops.slice(0, concurrency).map(async (run) => {
      while (next < total) {
        const n = next++;
        const t0 = performance.now();
        const failure = await run(n);
        times.push(performance.now() - t0);
        if (failure !== undefined) {
          failed += 1;
          firstFailure ??= failure;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.threadCpuUsage(cpu);
  const clientCpu = (used.user + used.system) / 1000 / times.length;
  return { times, failed, firstFailure, seconds, clientCpu } satisfies LoadResult;
}

async function http(job: HttpJob): Promise<LoadResult> {
  const key = job.signingSecret ? await signingKey(job.signingSecret) : undefined;
  const run = async (n: number) => {
    const body = job.body?.replaceAll('{n}', String(n));
    const headers = { ...job.headers };
    if (key && body !== undefined) {
      const ts = String(Math.floor(Date.now() / 1000));
      headers['X-Signal-Timestamp'] = ts;
      headers['X-Signal-Signature'] = await sign(key, ts, body);
    }
    const res = await fetch(job.url, { method: job.method ?? 'GET', headers, body });
    const text = await res.text();
    return res.status === (job.status ?? 200) ? undefined : `${res.status} ${text.slice(0, 200)}`;
  };
  return drive(
    job.total,
    job.concurrency,
    Array.from({ length: job.concurrency }, () => run),
  );
}

async function profile(job: ProfileJob): Promise<LoadResult> {
  const readers = await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      const client = createClient(job.url, job.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
      const { error } = await client.auth.signInWithPassword({ email: job.email, password: job.password });
      if (error) throw error;
      return client;
    }),
  );
  return drive(
    job.total,
    job.concurrency,
    readers.map((client) => async () => {
      const { data, error } = await client.from('profiles').select('*').eq('user_id', job.userId).single();
      if (error) return error.message;
      return data?.user_id === job.userId ? undefined : `another row: ${JSON.stringify(data)}`;
    }),
  );
}

const job = workerData as HttpJob | ProfileJob;
parentPort?.postMessage(await (job.kind === 'profile' ? profile(job) : http(job)));
