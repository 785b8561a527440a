// The contact form's logic: store the message first, then mail it to the inbox, then record how that went.
// A message is never lost to a mail failure: failed and stale pending rows are retried later.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Mailer, OutgoingMail } from '../_shared/mail.ts';
import type { ContactInput } from '../_shared/schemas.ts';

export const TABLE = 'contact_messages';

export const RETRY = {
  /** Rows younger than this may still be in their first attempt. */
  olderThanMs: 60_000,
  /** Rows retried after one successful send. */
  batch: 5,
  /** After this many attempts a row is left for a person to look at. */
  maxAttempts: 5,
};

export interface ContactDeps {
  /** supabase-js with the service_role key (the table is closed to anon and authenticated). */
  db: SupabaseClient;
  mailer: Mailer;
  /** Where contact messages go (CONTACT_INBOX). */
  inbox: string;
  now?: () => Date;
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export interface StoredMessage extends ContactInput {
  id: string;
  attempts: number;
}

export interface SubmitResult {
  id: string;
  /** False when the mail failed: the message is stored and will be retried. */
  delivered: boolean;
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

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** Sends one stored message and records the outcome; true when it was delivered. */
async function deliver(deps: ContactDeps, row: StoredMessage): Promise<boolean> {
  const now = deps.now ?? (() => new Date());
  let failure: string | null = null;
  try {
    await deps.mailer.send(contactMail(row, deps.inbox));
  } catch (err) {
    failure = errorText(err) || 'Mail delivery failed';
  }
  const { error } = await deps.db
    .from(TABLE)
    .update(
      failure === null
        ? { delivery_status: 'sent', delivered_at: now().toISOString(), delivery_error: null }
        : { delivery_status: 'failed', delivery_error: failure },
    )
    .eq('id', row.id);
  // The mail outcome stands even when recording it fails; a 'pending' row is retried later.
  if (error) console.error(`contact message ${row.id}: could not record delivery: ${error.message}`);
  if (failure !== null) console.error(`contact message ${row.id}: mail failed: ${failure}`);
  return failure === null;
}

/** Stores the message, then mails it. Throws only when it could not be stored. */
export async function submitContact(input: ContactInput, meta: RequestMeta, deps: ContactDeps): Promise<SubmitResult> {
  const { data, error } = await deps.db
    .from(TABLE)
    .insert({
      name: input.name,
      email: input.email,
      subject: input.subject,
      message: input.message,
      ip: meta.ip,
      user_agent: meta.userAgent,
      // The first attempt starts now; a retry claims a row by moving this counter.
      attempts: 1,
    })
    .select('id')
    .single();
  if (error || !data) throw new Error(`Could not store the contact message: ${error?.message ?? 'no row returned'}`);
  const id = (data as { id: string }).id;
  const delivered = await deliver(deps, { ...input, id, attempts: 1 });
  return { id, delivered };
}

/**
 * Retries up to RETRY.batch failed or stale pending messages, oldest first. Each row is claimed by
 * bumping its attempt counter from the value read, so two callers never send the same row twice.
 */
export async function deliverPending(deps: ContactDeps): Promise<{ delivered: number; failed: number }> {
  const now = deps.now ?? (() => new Date());
  const cutoff = new Date(now().getTime() - RETRY.olderThanMs).toISOString();
  const { data, error } = await deps.db
    .from(TABLE)
    .select('id, name, email, subject, message, attempts')
    .in('delivery_status', ['pending', 'failed'])
    .lt('created_at', cutoff)
    .lt('attempts', RETRY.maxAttempts)
    .order('created_at', { ascending: true })
    .limit(RETRY.batch);
  if (error) throw new Error(`Could not list undelivered contact messages: ${error.message}`);
  const tally = { delivered: 0, failed: 0 };
  for (const row of (data ?? []) as StoredMessage[]) {
    const claim = await deps.db
      .from(TABLE)
      .update({ attempts: row.attempts + 1 })
      .eq('id', row.id)
      .eq('attempts', row.attempts)
      .in('delivery_status', ['pending', 'failed'])
      .select('id');
    if (claim.error || claim.data?.length !== 1) continue;
    if (await deliver(deps, { ...row, attempts: row.attempts + 1 })) tally.delivered += 1;
    else {
      tally.failed += 1;
      // The relay is failing again: leave the rest for a later run.
      break;
    }
  }
  return tally;
}
