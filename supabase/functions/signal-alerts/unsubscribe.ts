// One-click unsubscribe from email alerts: the link (and the List-Unsubscribe headers, RFC 8058) in every alert
// mail. The token is an HMAC-SHA-256 of the member's id under UNSUBSCRIBE_SECRET (the newsletter's secret, under a
// label of its own, so a newsletter token never works here nor the other way round): unguessable, bound to one
// member, the same in every isolate and every mail, and checked before any database work.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import type { Env } from '../_shared/env.ts';
import { readRawBody } from '../_shared/http.ts';
import { type UnsubscribeKey, unsubscribeTokenKey } from '../_shared/unsubscribe-token.ts';

/** The path under the function that turns alerts off: /functions/v1/signal-alerts/unsubscribe. */
export const UNSUBSCRIBE_PATH = 'unsubscribe';

/** The key of the alert mails' links: a label of its own, so a newsletter token never works here nor the other way. */
export const alertsUnsubscribeKey = (env: Env): Promise<UnsubscribeKey> =>
  unsubscribeTokenKey(env, 'signal-alerts-unsubscribe:v1:');

/** The unsubscribe URL of one member, on the API's public URL. */
export function alertsUnsubscribeUrl(apiUrl: string, userId: string, token: string): string {
  const query = new URLSearchParams({ id: userId, token });
  return `${apiUrl.replace(/\/+$/, '')}/functions/v1/signal-alerts/${UNSUBSCRIBE_PATH}?${query}`;
}

/** Whether the request is for the unsubscribe path (`/signal-alerts/unsubscribe`, as Supabase passes it). */
export function isUnsubscribePath(req: Request): boolean {
  return new URL(req.url).pathname.replace(/\/+$/, '').endsWith(`/${UNSUBSCRIBE_PATH}`);
}

/** The largest one-click body accepted (mail providers send `List-Unsubscribe=One-Click`, 26 bytes). */
const MAX_ONE_CLICK_BYTES = 4096;

/**
 * Whether a POST body is RFC 8058's one-click request: `List-Unsubscribe=One-Click`, form-urlencoded or
 * multipart/form-data (the RFC allows both). Reads at most 4 KB.
 */
export async function isOneClickBody(req: Request): Promise<boolean> {
  const raw = await readRawBody(req, MAX_ONE_CLICK_BYTES);
  if (!raw.ok) return false;
  const type = req.headers.get('content-type') ?? '';
  try {
    const form = type.startsWith('multipart/form-data')
      ? await new Response(raw.bytes as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': type } }).formData()
      : new URLSearchParams(new TextDecoder().decode(raw.bytes).trim());
    return form.get('List-Unsubscribe') === 'One-Click';
  } catch {
    return false;
  }
}

/** What an unsubscribe link did: alerts are off now (also when they already were), or the token is not the id's. */
export type AlertsUnsubscribeOutcome = 'off' | 'invalid';

/**
 * Turns the member's email alerts off when `token` is theirs: their preferences row gets email_enabled = false
 * (created so when there was none; tiers and events kept). Alerts already queued for them are then dropped by the
 * sender unsent. A member deleted since is answered as done, changing nothing.
 */
export async function unsubscribeAlerts(
  userId: string | null,
  token: string | null,
  deps: { db: SupabaseClient<Database>; key: UnsubscribeKey },
): Promise<AlertsUnsubscribeOutcome> {
  if (!userId || !token || !(await deps.key.check(userId, token))) return 'invalid';
  const { error } = await deps.db
    .from('alert_preferences')
    .upsert({ user_id: userId, email_enabled: false }, { onConflict: 'user_id' });
  // 23503: the member's account is gone (the foreign key to auth.users): nothing to turn off.
  if (error && error.code !== '23503') throw new Error(`Could not turn alerts off: ${error.code} ${error.message}`);
  return 'off';
}
