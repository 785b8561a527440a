// The local stack's stand-ins for pg_cron jobs: a timer that POSTs to one of the stack's own entries with the
// service-role key, as the hosted schedule does through pg_net.
import type { StackConfig } from './config.ts';
import { internalApiUrl } from './functions/settings.ts';

export interface Schedule {
  /** Names the job in the log. */
  name: string;
  /** The stack's own path the job calls (a function entry or an RPC). */
  path: string;
  /** Every so many seconds. */
  seconds: number;
  /** A JSON body to send (an RPC wants one), if any. */
  body?: string;
  /** Also call once this many ms after the start, not only after the first interval. */
  firstAfterMs?: number;
}

/**
 * Calls `job.path` on a timer, one call at a time; a call that fails is logged and the next tick tries again.
 * Returns the stop function, which waits for a call under way.
 */
export function startSchedule(config: StackConfig, job: Schedule): () => Promise<void> {
  const url = `${internalApiUrl(config)}${job.path}`;
  const headers: Record<string, string> = {
    Authorization: `Bearer ${config.serviceRoleKey}`,
    apikey: config.serviceRoleKey,
    ...(job.body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = fetch(url, { method: 'POST', headers, body: job.body, signal: AbortSignal.timeout(120_000) })
      .then(async (res) => {
        const body = await res.text();
        if (!res.ok) console.error(`${job.name}: ${res.status} ${body.slice(0, 300)}`);
      })
      .catch((err: unknown) => console.error(`${job.name}:`, err instanceof Error ? err.message : err))
      .finally(() => {
        running = undefined;
      });
  };
  const first = job.firstAfterMs === undefined ? undefined : setTimeout(tick, job.firstAfterMs);
  first?.unref();
  const timer = setInterval(tick, Math.max(job.seconds * 1000, 50));
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
