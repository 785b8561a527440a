// The newsletter's record of consent: one row per confirmation link mailed, confirmation and withdrawal in
// newsletter_consent_events (migration 20261126100200). Rows are only appended: the table's trigger refuses
// UPDATE and DELETE to every API role, service_role included, and sets each row's time to the database's.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Tables } from '../../database.types.ts';

export const EVENTS_TABLE = 'newsletter_consent_events';

/** 'requested': a confirmation link was mailed; 'confirmed': it was opened; 'withdrawn': unsubscribed. */
export type ConsentEventKind = 'requested' | 'confirmed' | 'withdrawn';
/** The sign-up form, the mailed link (a click), or a mail client's RFC 8058 one-click POST. */
export type ConsentEventVia = 'form' | 'link' | 'one-click';

/** Who made the request an event records, as the function saw them. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export interface ConsentEvent extends RequestMeta {
  subscriberId: string;
  kind: ConsentEventKind;
  via: ConsentEventVia;
  email: string;
  consentVersion: string | null;
}

/** The request behind a confirmation: what the newest 'requested' event of a subscriber holds. */
export type RequestedConsent = Pick<
  Tables<'newsletter_consent_events'>,
  'ip' | 'user_agent' | 'consent_text_version' | 'created_at'
>;

/** Appends one event; throws when it could not be stored (the caller then does not act on the request). */
export async function recordConsentEvent(db: SupabaseClient<Database>, event: ConsentEvent): Promise<void> {
  const { error } = await db.from(EVENTS_TABLE).insert({
    subscriber_id: event.subscriberId,
    kind: event.kind,
    via: event.via,
    email: event.email,
    ip: event.ip,
    user_agent: event.userAgent,
    consent_text_version: event.consentVersion,
  });
  if (error) throw new Error(`Could not record the consent event: ${error.message}`);
}

/**
 * The newest mailed request of a subscriber: the one whose link is being confirmed, since each new link replaces
 * the last. Null for a row stored before the record existed.
 */
export async function latestRequest(
  db: SupabaseClient<Database>,
  subscriberId: string,
): Promise<RequestedConsent | null> {
  const { data, error } = await db
    .from(EVENTS_TABLE)
    .select('ip, user_agent, consent_text_version, created_at')
    .eq('subscriber_id', subscriberId)
    .eq('kind', 'requested')
    .order('id', { ascending: false })
    .limit(1)
    .maybeSingle();
  if (error) throw new Error(`Could not read the consent record: ${error.message}`);
  return data;
}
