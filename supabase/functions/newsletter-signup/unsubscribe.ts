// Unsubscribing from the newsletter: the link (and the List-Unsubscribe headers, RFC 8058) in every mail to a
// subscriber. The token is an HMAC-SHA-256 of the subscriber's id under UNSUBSCRIBE_SECRET: unguessable, bound
// to that one row, the same in every isolate and in every mail sent to the subscriber, and checked without a
// database read (a forged link costs one HMAC, never a query).
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import type { Env } from '../_shared/env.ts';
import { type UnsubscribeKey, unsubscribeTokenKey } from '../_shared/unsubscribe-token.ts';
import { type RequestMeta, recordConsentEvent } from './consent-events.ts';
import type { TABLE } from './newsletter.ts';

export type { UnsubscribeKey };

/** The path under the function that unsubscribes: /functions/v1/newsletter-signup/unsubscribe. */
export const UNSUBSCRIBE_PATH = 'unsubscribe';

/** The key of the newsletter's links: its label keeps its tokens apart from any other link's. */
export const unsubscribeKey = (env: Env): Promise<UnsubscribeKey> =>
  unsubscribeTokenKey(env, 'newsletter-unsubscribe:v1:');

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The unsubscribe URL of one subscriber, on the function's public URL. */
export function unsubscribeUrl(apiUrl: string, functionName: string, id: string, token: string): string {
  const query = new URLSearchParams({ id, token });
  return `${trimSlash(apiUrl)}/functions/v1/${functionName}/${UNSUBSCRIBE_PATH}?${query}`;
}

/** RFC 2369 / RFC 8058 headers for a mail to a subscriber: one-click unsubscribe by POST to `url`. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/** Whether the request is for the unsubscribe path (`/<function>/unsubscribe`, as Supabase passes it). */
export function isUnsubscribePath(req: Request): boolean {
  return new URL(req.url).pathname.replace(/\/+$/, '').endsWith(`/${UNSUBSCRIBE_PATH}`);
}

/** Where an unsubscribe link leads: 'unsubscribed' (also when already so), or 'invalid' for a bad token. */
export type UnsubscribeOutcome = 'unsubscribed' | 'invalid';

export interface UnsubscribeDeps {
  db: SupabaseClient<Database>;
  key: UnsubscribeKey;
  now?: () => Date;
}

/** The unsubscribe request: who sent it, and how (a click on the link, or a mail client's one-click POST). */
export interface UnsubscribeRequest extends RequestMeta {
  via: 'link' | 'one-click';
}

/**
 * Unsubscribes the subscriber `id` when `token` is theirs: the withdrawal is recorded (consent-events.ts), then
 * the row becomes 'unsubscribed' with unsubscribed_at and no confirmation link left. The hourly mail slot is not
 * freed: no confirmation mail reaches the address within the hour after it withdrew. A row already unsubscribed
 * with no link out, or deleted since, is answered as unsubscribed too and changes nothing.
 */
export async function unsubscribe(
  id: string | null,
  token: string | null,
  request: UnsubscribeRequest,
  deps: UnsubscribeDeps,
  table: typeof TABLE,
): Promise<UnsubscribeOutcome> {
  if (!id || !token || !(await deps.key.check(id, token))) return 'invalid';
  const now = (deps.now ?? (() => new Date()))();
  const { data: row, error: readError } = await deps.db
    .from(table)
    .select('email, status, verify_token_hash, consent_text_version')
    .eq('id', id)
    .maybeSingle();
  if (readError) throw new Error(`Could not read the subscriber: ${readError.message}`);
  if (!row || (row.status === 'unsubscribed' && !row.verify_token_hash)) return 'unsubscribed';
  await recordConsentEvent(deps.db, {
    subscriberId: id,
    kind: 'withdrawn',
    via: request.via,
    email: row.email,
    ip: request.ip,
    userAgent: request.userAgent,
    consentVersion: row.consent_text_version,
  });
  const { error } = await deps.db
    .from(table)
    .update({
      status: 'unsubscribed',
      unsubscribed_at: now.toISOString(),
      verify_token_hash: null,
      verify_expires_at: null,
    })
    .eq('id', id);
  if (error) throw new Error(`Could not unsubscribe: ${error.message}`);
  return 'unsubscribed';
}

/** The largest one-click body accepted (mail providers send `List-Unsubscribe=One-Click`, 26 bytes). */
const MAX_ONE_CLICK_BYTES = 4096;

/** The body, or null past `max` bytes (read no further than that). */
async function readCapped(req: Request, max: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (Number(req.headers.get('content-length') ?? 0) > max) {
    await req.body?.cancel().catch(() => {});
    return null;
  }
  const bytes = new Uint8Array(max);
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > max) {
        await reader.cancel().catch(() => {});
        return null;
      }
      bytes.set(value, size);
      size += value.byteLength;
    }
  }
  return bytes.slice(0, size);
}

/**
 * Whether a POST body is RFC 8058's one-click request: `List-Unsubscribe=One-Click`, form-urlencoded or
 * multipart/form-data (the RFC allows both). Reads at most 4 KB.
 */
export async function isOneClickBody(req: Request): Promise<boolean> {
  const bytes = await readCapped(req, MAX_ONE_CLICK_BYTES);
  if (!bytes) return false;
  const type = req.headers.get('content-type') ?? '';
  try {
    const form = type.startsWith('multipart/form-data')
      ? await new Response(bytes, { headers: { 'Content-Type': type } }).formData()
      : new URLSearchParams(new TextDecoder().decode(bytes).trim());
    return form.get('List-Unsubscribe') === 'One-Click';
  } catch {
    return false;
  }
}
