// The retry entry, POST /send-contact-email/retry: sends the messages earlier mail failures left pending.
// Called by a schedule (pg_cron + pg_net on hosted Supabase, a timer in the local stack) with the
// service-role key; a visitor cannot trigger sends. One run at a time per isolate; rows are claimed in
// the database, so runs in other isolates never send the same message.
import type { Env } from '../_shared/env.ts';
import { errorResponse, json } from '../_shared/http.ts';
import { hasServiceRole } from '../_shared/service-role.ts';
import { type ContactDeps, deliverPending, type RetryTally } from './contact.ts';

/** True when the request's path is the retry entry (`/<function>/retry`). */
export function isRetryPath(req: Request): boolean {
  return /\/retry\/?$/.test(new URL(req.url).pathname);
}

export const RETRY_FORBIDDEN = 'The retry entry requires the service-role key.';

/** The retry entry's handler; `deps` is called only for an authorised request. */
export function retryHandler(env: Env, deps: () => ContactDeps): (req: Request) => Promise<Response> {
  let running: Promise<RetryTally> | undefined;
  return async (req) => {
    await req.body?.cancel().catch(() => {});
    if (req.method !== 'POST')
      return errorResponse(405, 'method_not_allowed', 'Method not allowed: use POST.', { headers: { Allow: 'POST' } });
    if (!hasServiceRole(req, env)) return errorResponse(401, 'not_admin', RETRY_FORBIDDEN);
    try {
      // A run already under way in this isolate answers for this call too.
      running ??= deliverPending(deps()).finally(() => {
        running = undefined;
      });
      return json({ success: true, ...(await running) });
    } catch (err) {
      console.error('send-contact-email retry:', err instanceof Error ? err.message : err);
      return errorResponse(
        503,
        'unexpected_failure',
        'Retry failed (see the function logs); pending messages stay stored for the next run.',
      );
    }
  };
}
