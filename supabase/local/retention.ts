// Data retention on the local stack: calls public.delete_expired_data() (migration
// 20261124090000_newsletter_consent_unsubscribe_retention.sql) through the API with the service-role key on a
// timer, as pg_cron runs it every day on hosted Supabase. Contact messages, rate-limit counters and newsletter
// rows past the retention the privacy notice states are deleted.
import type { StackConfig } from './config.ts';
import { internalApiUrl } from './functions/settings.ts';

/** The RPC the timer calls (executable by service_role only). */
export const RETENTION_RPC_PATH = '/rest/v1/rpc/delete_expired_data';

/**
 * Calls the deletion every `seconds` (and once at start), one call at a time; a failed call is logged and the
 * next tick tries again. Returns the stop function, which waits for a call under way.
 */
export function startRetention(config: StackConfig, seconds: number): () => Promise<void> {
  const url = `${internalApiUrl(config)}${RETENTION_RPC_PATH}`;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${config.serviceRoleKey}`,
        apikey: config.serviceRoleKey,
        'Content-Type': 'application/json',
      },
      body: '{}',
      signal: AbortSignal.timeout(120_000),
    })
      .then(async (res) => {
        const body = await res.text();
        if (!res.ok) console.error(`data retention: ${res.status} ${body.slice(0, 300)}`);
      })
      .catch((err: unknown) => console.error('data retention:', err instanceof Error ? err.message : err))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, 1000);
  first.unref();
  const timer = setInterval(tick, Math.max(seconds * 1000, 50));
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
