// The retry entry, POST /send-contact-email/retry: sends the messages earlier mail failures left pending.
// Called by a schedule (pg_cron + pg_net on hosted Supabase, a timer in the local stack) with the
// service-role key; a visitor cannot trigger sends. One run at a time per isolate; rows are claimed in
// the database, so runs in other isolates never send the same message.
import type { Env } from '../_shared/env.ts';
import { errorResponse, json } from '../_shared/http.ts';
import { type ContactDeps, deliverPending, type RetryTally } from './contact.ts';

/** True when the request's path is the retry entry (`/<function>/retry`). */
export function isRetryPath(req: Request): boolean {
  return /\/retry\/?$/.test(new URL(req.url).pathname);
}

/** The service-role keys the function accepts: the legacy JWT and the new-format secret keys. */
function serviceKeys(env: Env): string[] {
  const keys = [env.get('SUPABASE_SERVICE_ROLE_KEY') ?? ''];
  try {
    const secret = JSON.parse(env.get('SUPABASE_SECRET_KEYS') ?? '{}') as Record<string, unknown>;
    for (const value of Object.values(secret)) if (typeof value === 'string') keys.push(value);
  } catch {
    // Not JSON: no secret keys beside the legacy one.
  }
  return keys.filter((k) => k.length > 0);
}

/** Compares without stopping at the first difference, so timing does not tell how much of a key was right. */
function sameKey(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** The bearer token or apikey header carries one of the service-role keys. */
export function hasServiceRole(req: Request, env: Env): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.get('authorization') ?? '')?.[1]?.trim();
  const presented = [bearer, req.headers.get('apikey')?.trim()].filter((k): k is string => Boolean(k));
  const keys = serviceKeys(env);
  return presented.some((p) => keys.some((k) => sameKey(p, k)));
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
