// Data retention on the local stack: calls public.delete_expired_data() (migration
// 20261124090000_newsletter_consent_unsubscribe_retention.sql) through the API with the service-role key on a
// timer, as pg_cron runs it every day on hosted Supabase. Contact messages, rate-limit counters and newsletter
// rows past the retention the privacy notice states are deleted.
import type { StackConfig } from './config.ts';
import { startSchedule } from './schedule.ts';

/** The RPC the timer calls (executable by service_role only). */
export const RETENTION_RPC_PATH = '/rest/v1/rpc/delete_expired_data';

/** Calls the deletion every `seconds`, and once a second after the start. Returns the stop function. */
export function startRetention(config: StackConfig, seconds: number): () => Promise<void> {
  return startSchedule(config, {
    name: 'data retention',
    path: RETENTION_RPC_PATH,
    seconds,
    body: '{}',
    firstAfterMs: 1000,
  });
}
