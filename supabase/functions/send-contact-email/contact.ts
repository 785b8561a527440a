// The contact form's logic: store the message first, then mail it to the inbox, then record how that went.
// A message is never lost to a mail failure: it stays 'pending' and the retry (a schedule calling
// deliverPending through the function's /retry entry) sends it once mail works again.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Tables } from '../../database.types.ts';
import type { Mailer, OutgoingMail } from '../_shared/mail.ts';
import type { ContactInput } from '../_shared/schemas.ts';

export const TABLE = 'contact_messages';

export const RETRY = {
  /** Messages one retry run sends at most (one at a time, so a failing relay stops the run early). */
  batch: 20,
  /** After this many attempts a row is left for a person to look at ('failed'). */
  maxAttempts: 40,
  /** Wait before attempt n+1: 2^(n-1) seconds, at most an hour (1 s, 2 s, 4 s, ... then hourly). */
  maxDelayMs: 3600_000,
  /** A claim older than this is considered abandoned (its sender died) and the row is due again. */
  leaseSeconds: 300,
};

export interface ContactDeps {
  /** supabase-js with the service_role key (the table is closed to anon and authenticated). */
  db: SupabaseClient<Database>;
  mailer: Mailer;
  /** Where contact messages go (CONTACT_INBOX). */
  inbox: string;
  now?: () => Date;
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** A stored message as a delivery needs it: what was sent, its row and how many attempts it has had. */
export type StoredMessage = Pick<Tables<'contact_messages'>, keyof ContactInput | 'id' | 'attempts'>;

export interface SubmitResult {
  id: string;
  /** False when the mail failed: the message is stored and will be retried. */
  delivered: boolean;
}

export interface RetryTally {
  delivered: number;
  failed: number;
}

/** The mail the inbox receives; replying answers the sender. */
export function contactMail(msg: ContactInput, inbox: string): OutgoingMail {
  return {
    to: inbox,
    subject: msg.subject,
    replyTo: { name: msg.name, address: msg.email },
    text: [
      'New message from the contact form.',
      '',
      `Name: ${msg.name}`,
      `Email: ${msg.email}`,
      `Subject: ${msg.subject}`,
      '',
      msg.message,
      '',
    ].join('\n'),
  };
}

/** When a message whose `attempts`-th attempt just failed is due again. */
export function nextAttemptAt(attempts: number, now: Date): Date {
  const delay = Math.min(2 ** Math.max(attempts - 1, 0) * 1000, RETRY.maxDelayMs);
  return new Date(now.getTime() + delay);
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** Sends one claimed message ('sending') and records the outcome; true when it was delivered. */
async function deliver(deps: ContactDeps, row: StoredMessage): Promise<boolean> {
  const now = deps.now ?? (() => new Date());
  let failure: string | null = null;
  try {
    await deps.mailer.send(contactMail(row, deps.inbox));
  } catch (err) {
    failure = errorText(err) || 'Mail delivery failed';
  }
  const at = now();
  const outcome =
    failure === null
      ? { delivery_status: 'sent', delivered_at: at.toISOString(), delivery_error: null, claimed_at: null }
      : {
          // Given up after the last attempt; otherwise due again after a growing wait.
          delivery_status: row.attempts >= RETRY.maxAttempts ? 'failed' : 'pending',
          delivery_error: failure,
          next_attempt_at: nextAttemptAt(row.attempts, at).toISOString(),
          claimed_at: null,
        };
  const { error } = await deps.db.from(TABLE).update(outcome).eq('id', row.id).eq('delivery_status', 'sending');
  // The mail outcome stands even when recording it fails: the claim runs out and the row is due again.
  if (error) console.error(`contact message ${row.id}: could not record delivery: ${error.message}`);
  if (failure !== null) console.error(`contact message ${row.id}: mail failed (attempt ${row.attempts}): ${failure}`);
  return failure === null;
}

/** Stores the message (claimed for this first attempt), then mails it. Throws only when it could not be stored. */
export async function submitContact(input: ContactInput, meta: RequestMeta, deps: ContactDeps): Promise<SubmitResult> {
  const now = deps.now ?? (() => new Date());
  const { data, error } = await deps.db
    .from(TABLE)
    .insert({
      name: input.name,
      email: input.email,
      subject: input.subject,
      message: input.message,
      ip: meta.ip,
      user_agent: meta.userAgent,
      // This request sends it; a retry takes it only if this attempt fails or its claim runs out.
      delivery_status: 'sending',
      claimed_at: now().toISOString(),
      attempts: 1,
    })
    .select('id')
    .single();
  if (error || !data) throw new Error(`Could not store the contact message: ${error?.message ?? 'no row returned'}`);
  const { id } = data;
  const delivered = await deliver(deps, { ...input, id, attempts: 1 });
  return { id, delivered };
}

/**
 * Sends due messages, oldest first, up to RETRY.batch. Each is claimed on its own by
 * public.claim_contact_message (FOR UPDATE SKIP LOCKED), so concurrent runs never send a row twice; the
 * run stops at the first mail failure, leaving the rest for a later run.
 */
export async function deliverPending(deps: ContactDeps): Promise<RetryTally> {
  const tally: RetryTally = { delivered: 0, failed: 0 };
  for (let i = 0; i < RETRY.batch; i++) {
    const { data, error } = await deps.db.rpc('claim_contact_message', { lease_seconds: RETRY.leaseSeconds });
    if (error) throw new Error(`Could not claim a contact message: ${error.message}`);
    const row = data?.[0];
    if (!row) break;
    if (await deliver(deps, row)) tally.delivered += 1;
    else {
      tally.failed += 1;
      break;
    }
  }
  return tally;
}
