// Data retention: public.delete_expired_data() deletes what the privacy notice says is kept for a limited time
// (contact messages 12 months, rate-limit counters a day, never-confirmed newsletter sign-ups 30 days after their
// link expired, unsubscribed addresses and the record of their consent 2 years after the withdrawal) and keeps
// everything younger; only service_role may run it; the local stack's timer runs it as pg_cron does on hosted
// Supabase.
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack, until } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database, TablesInsert } from '../../supabase/database.types.ts';

const DAY = 24 * 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const tag = () => randomUUID().slice(0, 8);

async function addContact(t: TestStack, createdAt: string): Promise<string> {
  const { data, error } = await t
    .admin<Database>()
    .from('contact_messages')
    .insert({
      name: 'Ann',
      email: `ann-${tag()}@example.com`,
      subject: 'Question',
      message: 'Hello',
      created_at: createdAt,
      delivery_status: 'sent',
    })
    .select('id')
    .single();
  if (error) throw error;
  return data.id;
}

async function addSubscriber(
  t: TestStack,
  fields: Omit<TablesInsert<'newsletter_subscribers'>, 'email'>,
): Promise<string> {
  const { data, error } = await t
    .admin<Database>()
    .from('newsletter_subscribers')
    .insert({ email: `reader-${tag()}@example.com`, ...fields })
    .select('id')
    .single();
  if (error) throw error;
  return data.id;
}

async function addCounter(t: TestStack, windowStart: string): Promise<string> {
  const key = `203.0.113.${Math.floor(Math.random() * 250)}-${tag()}`;
  await t.stack.ctx.db.query(
    'insert into private.rate_limit_hits (bucket, key, window_start, hits) values ($1, $2, $3, 1)',
    ['retention-test', key, windowStart],
  );
  return key;
}

const exists = async (t: TestStack, table: 'contact_messages' | 'newsletter_subscribers', id: string) =>
  ((await t.admin<Database>().from(table).select('id').eq('id', id)).data ?? []).length === 1;
const counterExists = async (t: TestStack, key: string) =>
  (await t.stack.ctx.db.query('select 1 from private.rate_limit_hits where key = $1', [key])).length === 1;

describe('delete_expired_data', () => {
  let t: TestStack;
  beforeAll(async () => {
    // The timer is off here: the test calls the function itself.
    t = await startTestStack({ cron: { 'delete-expired-data': 0 } });
  });
  afterAll(() => t?.stop());

  test('deletes rows past their stated retention and keeps younger ones', async () => {
    const contact = { old: await addContact(t, ago(366 * DAY)), recent: await addContact(t, ago(300 * DAY)) };
    const counter = { old: await addCounter(t, ago(DAY + 60_000)), recent: await addCounter(t, ago(3_600_000)) };
    const pending = {
      old: await addSubscriber(t, { status: 'pending', verify_expires_at: ago(31 * DAY) }),
      recent: await addSubscriber(t, { status: 'pending', verify_expires_at: ago(29 * DAY) }),
    };
    const unsubscribed = {
      old: await addSubscriber(t, { status: 'unsubscribed', unsubscribed_at: ago(731 * DAY) }),
      recent: await addSubscriber(t, { status: 'unsubscribed', unsubscribed_at: ago(700 * DAY) }),
    };
    const verified = await addSubscriber(t, { status: 'verified', verified_at: ago(1000 * DAY) });
    // Unsubscribed 2 years ago, but a new confirmation link of theirs still works: kept until it expires.
    const asking = await addSubscriber(t, {
      status: 'unsubscribed',
      unsubscribed_at: ago(731 * DAY),
      verify_token_hash: randomUUID().replaceAll('-', '').repeat(2),
      verify_expires_at: new Date(Date.now() + DAY).toISOString(),
    });

    const { data, error } = await t.admin<Database>().rpc('delete_expired_data');
    expect(error).toBeNull();
    expect(data).toEqual({
      contact_messages: 1,
      rate_limit_hits: 1,
      newsletter_pending: 1,
      newsletter_unsubscribed: 1,
      newsletter_consent_events: 0,
    });

    expect(await exists(t, 'contact_messages', contact.old)).toBe(false);
    expect(await exists(t, 'contact_messages', contact.recent)).toBe(true);
    expect(await counterExists(t, counter.old)).toBe(false);
    expect(await counterExists(t, counter.recent)).toBe(true);
    expect(await exists(t, 'newsletter_subscribers', pending.old)).toBe(false);
    expect(await exists(t, 'newsletter_subscribers', pending.recent)).toBe(true);
    expect(await exists(t, 'newsletter_subscribers', unsubscribed.old)).toBe(false);
    expect(await exists(t, 'newsletter_subscribers', unsubscribed.recent)).toBe(true);
    // A confirmed subscriber stays for as long as they are subscribed.
    expect(await exists(t, 'newsletter_subscribers', verified)).toBe(true);
    expect(await exists(t, 'newsletter_subscribers', asking)).toBe(true);
  });

  test('consent events: a link neither confirmed nor withdrawn goes 30 days after it expired; the rest 2 years after their withdrawal', async () => {
    const add = (kind: string, at: number) => ({ kind, at });
    const histories = {
      // A link mailed, never answered: 31 days after mailing is 30 days after its 24-hour link expired.
      unanswered: { events: [add('requested', 32 * DAY)], kept: [] },
      unansweredRecent: { events: [add('requested', 30 * DAY)], kept: [0] },
      // Subscribed for years: kept while subscribed.
      subscribed: { events: [add('requested', 1100 * DAY), add('confirmed', 1100 * DAY)], kept: [0, 1] },
      // Withdrawn 2 years ago: the whole consent goes; a little less: all of it stays.
      withdrawnLongAgo: {
        events: [add('requested', 1000 * DAY), add('confirmed', 1000 * DAY), add('withdrawn', 731 * DAY)],
        kept: [],
      },
      withdrawnRecently: {
        events: [add('requested', 1000 * DAY), add('confirmed', 1000 * DAY), add('withdrawn', 700 * DAY)],
        kept: [0, 1, 2],
      },
      // Unsubscribed before confirming: the request stays with its withdrawal.
      refusedFirstLink: { events: [add('requested', 40 * DAY), add('withdrawn', 40 * DAY)], kept: [0, 1] },
      // A second link replaced the first, and was confirmed: the first is a sign-up never confirmed.
      secondLinkConfirmed: {
        events: [add('requested', 40 * DAY), add('requested', 35 * DAY), add('confirmed', 35 * DAY)],
        kept: [1, 2],
      },
      // Came back after an old withdrawal: the old consent goes, the current one stays.
      cameBack: {
        events: [
          add('requested', 900 * DAY),
          add('confirmed', 900 * DAY),
          add('withdrawn', 800 * DAY),
          add('requested', 100 * DAY),
          add('confirmed', 100 * DAY),
        ],
        kept: [3, 4],
      },
    };
    const ids: Record<string, number[]> = {};
    for (const [name, history] of Object.entries(histories)) {
      const subscriber = randomUUID();
      ids[name] = [];
      for (const { kind, at } of history.events) {
        const [row] = await t.stack.ctx.db.query<{ id: number }>(
          `insert into public.newsletter_consent_events (subscriber_id, kind, via, email, created_at)
           values ($1, $2, 'form', $3, $4) returning id`,
          [subscriber, kind, `${name}@example.com`, ago(at)],
        );
        ids[name].push(Number(row?.id));
      }
    }
    const { data, error } = await t.admin<Database>().rpc('delete_expired_data');
    expect(error).toBeNull();
    const left = new Set(
      (await t.stack.ctx.db.query<{ id: number }>('select id from public.newsletter_consent_events')).map((r) =>
        Number(r.id),
      ),
    );
    const keptNow = Object.fromEntries(
      Object.keys(histories).map((name) => [name, ids[name].flatMap((id, i) => (left.has(id) ? [i] : []))]),
    );
    expect(keptNow).toEqual(Object.fromEntries(Object.entries(histories).map(([name, h]) => [name, h.kept])));
    const gone = Object.values(histories).reduce((n, h) => n + h.events.length - h.kept.length, 0);
    expect((data as Record<string, number>).newsletter_consent_events).toBe(gone);
  });

  test('only service_role may run it: the anon key and a member get permission denied', async () => {
    const old = await addContact(t, ago(400 * DAY));
    const anon = await t.anon().rpc('delete_expired_data');
    expect(anon.error?.code).toBe('42501');
    const email = `member-${tag()}@example.com`;
    const password = 'Str0ng!Passw0rd';
    await t.admin().auth.admin.createUser({ email, password, email_confirm: true });
    const member = t.anon();
    await member.auth.signInWithPassword({ email, password });
    expect((await member.rpc('delete_expired_data')).error?.code).toBe('42501');
    expect(await exists(t, 'contact_messages', old)).toBe(true);
  });
});

describe("the local stack's retention timer", () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack({ cron: { 'delete-expired-data': 0.2 } });
  });
  afterAll(() => t?.stop());

  test('runs the deletion on its own: an old contact message goes, a new one stays', async () => {
    const old = await addContact(t, ago(400 * DAY));
    const recent = await addContact(t, ago(DAY));
    await until('the old message to be deleted', async () =>
      (await exists(t, 'contact_messages', old)) ? undefined : true,
    );
    expect(await exists(t, 'contact_messages', recent)).toBe(true);
  });
});
