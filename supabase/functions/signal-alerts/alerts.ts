// Sending the alert outbox (docs/alerts.md): claim due rows with public.claim_signal_alerts() (FOR UPDATE SKIP
// LOCKED, so concurrent runs in other isolates, the schedule and a kick from the ingest never mail one row twice),
// mail each through the shared mail path with its one-click unsubscribe link, record sent_at. A mail failure puts
// the row back with a growing wait and ends the run; the row is never given up while the member wants it.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { escapeHtml } from '../_shared/html.ts';
import { type Mailer, type OutgoingMail, unsubscribeHeaders } from '../_shared/mail.ts';

export const OUTBOX = 'alert_outbox';

export const SEND = {
  /** Rows one claim takes. */
  batch: 50,
  /**
   * A run starts no mail after this long and gives its unsent claims back to the next run (hosted: 150 s of wall
   * clock at most). With the mail timeouts of _shared/mail.ts (20 s) a claim is then at most ~50 s old.
   */
  budgetMs: 30_000,
  /** A claim older than this is abandoned (its sender died) and the row is due again. */
  leaseSeconds: 120,
  /** Wait before attempt n+1: 2^(n-1) seconds, at most a minute (alerts are worth little late). */
  maxDelayMs: 60_000,
};

/** A claimed row as public.claim_signal_alerts() returns it (the event's columns are null for new_signal). */
export type ClaimedAlert = Omit<
  Database['public']['Functions']['claim_signal_alerts']['Returns'][number],
  'event_kind' | 'event_price' | 'event_at' | 'email'
> & {
  email: string | null;
  event_kind: string | null;
  event_price: number | null;
  event_at: string | null;
};

export interface AlertLinks {
  /** The member's one-click unsubscribe URL (signal-alerts/unsubscribe?id=&token=). */
  unsubscribe: string;
  /** The site's dashboard, where the feed shows the signal. */
  dashboard: string;
  /** The settings panel, to change which alerts come. */
  settings: string;
}

export interface SendDeps {
  /** supabase-js with the service_role key (the outbox is closed to members). */
  db: SupabaseClient<Database>;
  mailer: Mailer;
  /** The links one mail to `userId` carries. */
  links(userId: string): Promise<AlertLinks>;
  now?: () => Date;
}

export interface SendTally {
  sent: number;
  failed: number;
  /** Rows given up unsent because the member no longer wants them (alerts off, tier or event unchosen). */
  dropped: number;
}

export const TIER_NAMES: Record<string, string> = {
  foundation: 'Foundation One',
  growth: 'Growth One',
  momentum: 'Momentum One',
};

const EVENT_NAMES: Record<string, string> = {
  tp1_hit: 'TP1 hit',
  tp2_hit: 'TP2 hit',
  tp3_hit: 'TP3 hit',
  sl_hit: 'Stop loss hit',
};

const price = (value: number | null) => (value === null ? '' : String(value));
const utc = (iso: string) => `${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC`;

/** The alert mail of one claimed row: subject, plain text and HTML, with the List-Unsubscribe headers. */
export function alertMail(row: ClaimedAlert, links: AlertLinks): OutgoingMail {
  const tier = TIER_NAMES[row.tier] ?? row.tier;
  const what = `${row.direction} ${row.pair}`;
  const isEvent = row.kind !== 'new_signal';
  const eventName = EVENT_NAMES[row.event_kind ?? ''] ?? row.event_kind ?? '';
  const subject = isEvent ? `${eventName}: ${what} (${tier})` : `New signal: ${what} (${tier})`;
  const lines = isEvent
    ? [
        `${eventName} on ${what} (${tier}, ${row.timeframe}) at ${price(row.event_price)}, ${utc(row.event_at ?? '')}.`,
        '',
        `Entry ${price(row.entry)}, stop loss ${price(row.current_stop)}, take profit ${price(row.tp1)} / ${price(row.tp2)} / ${price(row.tp3)}.`,
      ]
    : [
        `${tier} has issued a new signal, ${utc(row.issued_at)}:`,
        '',
        `${what} (${row.timeframe})`,
        `Entry: ${price(row.entry)}`,
        `Stop loss: ${price(row.stop_loss)}`,
        `Take profit: ${price(row.tp1)} / ${price(row.tp2)} / ${price(row.tp3)}`,
      ];
  const footer = [
    `Your signals: ${links.dashboard}`,
    `Choose which alerts you get: ${links.settings}`,
    'Turn email alerts off (one click, no sign-in needed):',
    links.unsubscribe,
  ];
  const text = [...lines, '', 'Trading carries risk; a signal is not advice.', '', ...footer, ''].join('\n');
  const html = [
    ...lines.filter((l) => l !== '').map((l) => `<p>${escapeHtml(l)}</p>`),
    '<p>Trading carries risk; a signal is not advice.</p>',
    `<p><a href="${escapeHtml(links.dashboard)}">Your signals</a> · <a href="${escapeHtml(links.settings)}">Choose which alerts you get</a></p>`,
    `<p><a href="${escapeHtml(links.unsubscribe)}">Turn email alerts off</a> (one click, no sign-in needed)</p>`,
  ].join('\n');
  return {
    to: row.email ?? '',
    subject,
    text,
    html,
    headers: unsubscribeHeaders(links.unsubscribe),
  };
}

/** When a row whose `attempts`-th attempt just failed is due again. */
export function nextAttemptAt(attempts: number, now: Date): Date {
  const delay = Math.min(2 ** Math.max(attempts - 1, 0) * 1000, SEND.maxDelayMs);
  return new Date(now.getTime() + delay);
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** Records one row's outcome; the mail stands even when recording fails (the claim runs out, the row is due). */
type OutboxUpdate = Database['public']['Tables']['alert_outbox']['Update'];

async function record(deps: SendDeps, id: number, values: OutboxUpdate): Promise<void> {
  const { error } = await deps.db.from(OUTBOX).update(values).eq('id', id).is('sent_at', null);
  if (error) console.error(`alert ${id}: could not record the outcome: ${error.message}`);
}

/** Gives claimed rows back unsent (claimed_at cleared), due as they were. */
async function release(deps: SendDeps, rows: ClaimedAlert[]): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((r) => r.id);
  const { error } = await deps.db.from(OUTBOX).update({ claimed_at: null }).in('id', ids).is('sent_at', null);
  if (error) console.error(`alerts: could not release ${ids.length} claims: ${error.message}`);
}

/**
 * Sends what is due, a batch at a time, until nothing is due, a mail fails or the run's time is up. The rows of a
 * batch left unsent after a failure are released at once (claimed_at cleared; `attempts` counts mails tried only)
 * so that the next run takes them.
 */
export async function sendDue(deps: SendDeps): Promise<SendTally> {
  const now = deps.now ?? (() => new Date());
  const tally: SendTally = { sent: 0, failed: 0, dropped: 0 };
  const started = Date.now();
  while (Date.now() - started < SEND.budgetMs) {
    const { data, error } = await deps.db.rpc('claim_signal_alerts', {
      batch_size: SEND.batch,
      lease_seconds: SEND.leaseSeconds,
    });
    if (error) throw new Error(`Could not claim alerts: ${error.message}`);
    const rows = (data ?? []) as ClaimedAlert[];
    if (rows.length === 0) break;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      // Out of time (a slow relay): the rest go back now, long before their claim would run out, so no other
      // sender takes a row this one may still be mailing.
      if (Date.now() - started >= SEND.budgetMs) {
        await release(deps, rows.slice(i));
        return tally;
      }
      if (!row.wanted || !row.email) {
        await record(deps, row.id, { dropped_at: now().toISOString(), claimed_at: null, last_error: null });
        tally.dropped += 1;
        continue;
      }
      try {
        await deps.mailer.send(alertMail(row, await deps.links(row.user_id)));
      } catch (err) {
        const failure = errorText(err) || 'Mail delivery failed';
        const attempts = row.attempts + 1;
        console.error(`alert ${row.id}: mail failed (attempt ${attempts}): ${failure}`);
        await record(deps, row.id, {
          attempts,
          claimed_at: null,
          last_error: failure,
          next_attempt_at: nextAttemptAt(attempts, now()).toISOString(),
        });
        tally.failed += 1;
        // The relay is likely down for the rest too: give them back for the next run, due as they were.
        await release(deps, rows.slice(i + 1));
        return tally;
      }
      await record(deps, row.id, {
        attempts: row.attempts + 1,
        sent_at: now().toISOString(),
        claimed_at: null,
        last_error: null,
      });
      tally.sent += 1;
    }
  }
  return tally;
}
