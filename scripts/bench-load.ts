// A load generator for scripts/bench.ts, run in a worker thread so that the clients do not share the
// stack's event loop: GET `url` `total` times from `concurrency` clients; posts back each request's time.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

interface Job {
  url: string;
  headers: Record<string, string>;
  total: number;
  concurrency: number;
}

const { url, headers, total, concurrency } = workerData as Job;
const times: number[] = [];
let next = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < total) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) failed += 1;
      times.push(performance.now() - t0);
    }
  }),
);
parentPort?.postMessage({ times, failed, seconds: (performance.now() - started) / 1000 });
