// Email alerts members choose, through the real stack: preferences under RLS (supabase-js with members' sessions),
// the outbox the ledger's triggers fill when signals-ingest stores a signed post, the signal-alerts function mailing
// it over real SMTP into the stack's catcher (List-Unsubscribe headers, one-click unsubscribe), mail down and back
// with the stack's scheduler running the migration's cron job, the export and the account's deletion.
// Runs on PGlite here and on PostgreSQL in `npm test`'s postgres step.
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import {
  codeFor,
  confirmedUser,
  GOOD_PASSWORD,
  type RelayDownStack,
  sleep,
  startStackWithRelayDown,
  startTestStack,
  type TestStack,
  uniqueEmail,
  until,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database, Tables } from '../../supabase/database.types.ts';
import { COMPANY_FOOTER } from '../../supabase/functions/_shared/company-footer.ts';
import { createMailer } from '../../supabase/functions/_shared/mail.ts';
import { SEND, type SendTally, sendDue } from '../../supabase/functions/signal-alerts/alerts.ts';
import { sign, signingKey } from '../../supabase/functions/signals-ingest/signature.ts';

const SECRET = `signal-alerts-test-secret-${randomUUID()}`;
const SEND_PATH = '/functions/v1/signal-alerts/send';

let t: TestStack;

beforeAll(async () => {
  // The schedule is off here: each test runs the sender itself, so it knows when a run happened.
  t = await startTestStack({ functionSecrets: { SIGNALS_INGEST_SECRET: SECRET }, cron: { 'signal-alerts': 0 } });
});
afterAll(() => t?.stop());

type Client = SupabaseClient<Database>;
type Prefs = Pick<Tables<'alert_preferences'>, 'email_enabled' | 'tiers' | 'events'>;

interface Member {
  id: string;
  email: string;
  client: Client;
}

/** A confirmed member signed in on a client of their own, with `prefs` saved through that client when given. */
async function member(prefix: string, prefs?: Partial<Prefs>): Promise<Member> {
  const email = uniqueEmail(prefix);
  const { user } = await confirmedUser(t, email, GOOD_PASSWORD);
  const client = t.anon<Database>();
  const signedIn = await client.auth.signInWithPassword({ email, password: GOOD_PASSWORD });
  expect(signedIn.error).toBeNull();
  const m = { id: user.id, email, client };
  if (prefs) expect((await save(m, prefs)).error).toBeNull();
  return m;
}

/** Saves preferences as the settings panel does: an upsert of the member's row. */
const save = (m: { id: string; client: Client }, prefs: Partial<Prefs>) =>
  m.client
    .from('alert_preferences')
    .upsert({ user_id: m.id, ...prefs }, { onConflict: 'user_id' })
    .select();

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Posts `body` to signals-ingest as the engine does (signed now) on `stack`; expects it stored. */
async function ingest(body: Record<string, unknown>, stack: TestStack = t): Promise<void> {
  const raw = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${stack.url}/functions/v1/signals-ingest`, {
    method: 'POST',
    body: raw,
    headers: {
      'Content-Type': 'application/json',
      'X-Signal-Timestamp': ts,
      'X-Signal-Signature': await sign(await signingKey(SECRET), ts, raw),
    },
  });
  expect(res.status, await res.text()).toBe(201);
}

/** A new signal of `tier`, posted; returns its id. */
async function newSignal(tier: string, stack: TestStack = t): Promise<string> {
  const id = uid('sig');
  await ingest(
    {
      type: 'signal.opened',
      id,
      tier,
      pair: 'EUR/USD',
      direction: 'BUY',
      entry: 1.085,
      stop_loss: 1.08,
      take_profit: [1.09, 1.095, 1.1],
      timeframe: 'H1',
      issued_at: new Date(Date.now() - 60_000).toISOString(),
    },
    stack,
  );
  return id;
}

/** An event of `kind` on signal `signalId`, posted; returns its id. */
async function newEvent(signalId: string, kind: string, stack: TestStack = t): Promise<string> {
  const id = uid('ev');
  const extra = kind === 'stop_moved' ? { stop_loss: 1.082 } : { price: kind === 'sl_hit' ? 1.08 : 1.09 };
  await ingest({ type: 'signal.event', id, signal_id: signalId, kind, at: new Date().toISOString(), ...extra }, stack);
  return id;
}

/** The outbox rows of a ledger item (a signal's or an event's id), read with the service role. */
async function outbox(ledgerId: string, stack: TestStack = t): Promise<Tables<'alert_outbox'>[]> {
  const { data, error } = await stack.admin<Database>().from('alert_outbox').select('*').eq('ledger_id', ledgerId);
  expect(error).toBeNull();
  return data ?? [];
}

/** Runs the sender once, as the schedule does: POST to the send entry with the service-role key. */
async function runSender(key = t.config.serviceRoleKey): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.url}${SEND_PATH}`, {
    method: 'POST',
    headers: { apikey: key, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Every caught mail to `email`, with its headers. */
async function mailsTo(email: string, stack: TestStack = t, web = `http://127.0.0.1:${stack.config.ports.mailWeb}`) {
  const list = (await (await fetch(`${web}/api/v1/messages`)).json()) as {
    messages: { ID: string; To: { Address: string }[]; Subject: string }[];
  };
  const mine = list.messages.filter((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase()));
  return Promise.all(
    mine.map(async (m) => {
      const full = (await (await fetch(`${web}/api/v1/message/${m.ID}`)).json()) as { Text: string; HTML: string };
      const headers = (await (await fetch(`${web}/api/v1/message/${m.ID}/headers`)).json()) as Record<string, string[]>;
      return { subject: m.Subject, text: full.Text, html: full.HTML, headers };
    }),
  );
}

/** The one-click URL of a mail, from its List-Unsubscribe header. */
function unsubscribeUrlOf(mail: { headers: Record<string, string[]> }): string {
  const url = /^<(.+)>$/.exec(mail.headers['List-Unsubscribe']?.[0] ?? '')?.[1];
  expect(url, JSON.stringify(mail.headers)).toBeTruthy();
  return url as string;
}

/** RFC 8058's one-click POST, as a mail provider sends it: no key, a form body. */
const oneClick = (url: string, body = 'List-Unsubscribe=One-Click') =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });

async function prefsOf(userId: string): Promise<Tables<'alert_preferences'> | null> {
  const { data, error } = await t.admin<Database>().from('alert_preferences').select('*').eq('user_id', userId);
  expect(error).toBeNull();
  return data?.[0] ?? null;
}

describe('preferences: the member owns their row under RLS', () => {
  test('a member saves and reads their own; tiers and events are stored sorted, each once; updated_at is the database’s', async () => {
    const ann = await member('prefs');
    const before = Date.now();
    const saved = await save(ann, {
      email_enabled: true,
      tiers: ['momentum', 'growth', 'growth'],
      events: ['sl_hit', 'new_signal'],
    });
    expect(saved.error).toBeNull();
    const { data } = await ann.client.from('alert_preferences').select('*');
    expect(data).toEqual([
      {
        user_id: ann.id,
        email_enabled: true,
        tiers: ['growth', 'momentum'],
        events: ['new_signal', 'sl_hit'],
        updated_at: expect.any(String),
      },
    ]);
    expect(Date.parse(data?.[0]?.updated_at as string)).toBeGreaterThanOrEqual(before - 5000);
  });

  test('a tier or an event that does not exist is refused (23514) and nothing is stored', async () => {
    const ann = await member('prefs-bad');
    const tier = await save(ann, { email_enabled: true, tiers: ['platinum'] });
    expect(tier.error?.code).toBe('23514');
    const event = await save(ann, { email_enabled: true, events: ['stop_moved'] });
    expect(event.error?.code).toBe('23514');
    expect(await prefsOf(ann.id)).toBeNull();
  });

  test('a visitor reads and writes nothing', async () => {
    const ann = await member('prefs-anon', { email_enabled: true });
    const anon = t.anon<Database>();
    const read = await anon.from('alert_preferences').select('*');
    expect(read.error?.code).toBe('42501');
    const write = await anon.from('alert_preferences').insert({ user_id: ann.id, email_enabled: false });
    expect(write.error?.code).toBe('42501');
    expect((await prefsOf(ann.id))?.email_enabled).toBe(true);
  });

  test('another member neither reads nor changes nor creates a member’s row', async () => {
    const ann = await member('prefs-ann', { email_enabled: true, tiers: ['growth'] });
    const bob = await member('prefs-bob');
    const read = await bob.client.from('alert_preferences').select('*').eq('user_id', ann.id);
    expect(read.error).toBeNull();
    expect(read.data).toEqual([]);
    const update = await bob.client
      .from('alert_preferences')
      .update({ email_enabled: false })
      .eq('user_id', ann.id)
      .select();
    expect(update.data ?? []).toEqual([]);
    const upsert = await save({ id: ann.id, client: bob.client }, { email_enabled: false });
    expect(upsert.error?.code).toBe('42501');
    const removed = await bob.client.from('alert_preferences').delete().eq('user_id', ann.id).select();
    expect(removed.data ?? []).toEqual([]);
    expect(await prefsOf(ann.id)).toMatchObject({ email_enabled: true, tiers: ['growth'] });
  });

  test('a member with two-factor: an aal1 session neither reads nor writes the row; aal2 does', async () => {
    const ann = await member('prefs-2fa', { email_enabled: true });
    const { data: factor } = await ann.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    const verified = await ann.client.auth.mfa.challengeAndVerify({
      factorId: factor?.id as string,
      code: codeFor(factor?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    const aal1 = t.anon<Database>();
    expect((await aal1.auth.signInWithPassword({ email: ann.email, password: GOOD_PASSWORD })).error).toBeNull();

    expect((await aal1.from('alert_preferences').select('*')).data).toEqual([]);
    const write = await save({ id: ann.id, client: aal1 }, { email_enabled: false });
    expect(write.error?.code).toBe('42501');
    expect((await prefsOf(ann.id))?.email_enabled).toBe(true);

    expect((await ann.client.from('alert_preferences').select('email_enabled')).data).toEqual([
      { email_enabled: true },
    ]);
    expect((await save(ann, { email_enabled: false })).error).toBeNull();
    expect((await prefsOf(ann.id))?.email_enabled).toBe(false);
  });
});

describe('the outbox: one row per member whose preferences match, written by the ingest', () => {
  let all: Member;
  let growthTpOnly: Member;
  let foundationOnly: Member;
  let off: Member;
  let none: Member;
  let unconfirmed: string;

  beforeAll(async () => {
    all = await member('all', { email_enabled: true });
    growthTpOnly = await member('tp-only', { email_enabled: true, tiers: ['growth'], events: ['tp_hit'] });
    foundationOnly = await member('foundation', { email_enabled: true, tiers: ['foundation'] });
    off = await member('off', { email_enabled: false });
    none = await member('none');
    // An address nobody confirmed (a stranger may have signed it up) gets no alert, whatever its row says.
    const created = await t
      .admin()
      .auth.admin.createUser({ email: uniqueEmail('unconfirmed'), password: GOOD_PASSWORD });
    unconfirmed = created.data.user?.id as string;
    const row = await t
      .admin<Database>()
      .from('alert_preferences')
      .insert({ user_id: unconfirmed, email_enabled: true });
    expect(row.error).toBeNull();
  });

  test('a new growth signal: one new_signal row for the member who follows growth and new signals, none for others', async () => {
    const signal = await newSignal('growth');
    const rows = await outbox(signal);
    const mine = rows.filter((r) => [all, growthTpOnly, foundationOnly, off, none].some((m) => m.id === r.user_id));
    expect(mine).toEqual([
      expect.objectContaining({
        user_id: all.id,
        kind: 'new_signal',
        signal_id: signal,
        event_id: null,
        attempts: 0,
        sent_at: null,
      }),
    ]);
    expect(rows.some((r) => r.user_id === unconfirmed)).toBe(false);
  });

  test('a take-profit hit: tp_hit rows for both growth members who chose it; a moved stop queues nothing', async () => {
    const signal = await newSignal('growth');
    const moved = await newEvent(signal, 'stop_moved');
    expect(await outbox(moved)).toEqual([]);
    const hit = await newEvent(signal, 'tp1_hit');
    const rows = (await outbox(hit)).filter((r) =>
      [all, growthTpOnly, foundationOnly, off, none].some((m) => m.id === r.user_id),
    );
    expect(rows.map((r) => r.user_id).sort()).toEqual([all.id, growthTpOnly.id].sort());
    for (const row of rows) expect(row).toMatchObject({ kind: 'tp_hit', signal_id: signal, event_id: hit });
    expect(rows[0].event_seq).toEqual(expect.any(Number));
  });

  test('the same post again (a duplicate) and the same row again: still one row per member and item', async () => {
    const signal = await newSignal('foundation');
    expect((await outbox(signal)).filter((r) => r.user_id === foundationOnly.id)).toHaveLength(1);
    const again = await t.stack.ctx.db.query<{ n: number }>(
      `insert into public.alert_outbox (user_id, kind, ledger_id, signal_id) values ($1, 'new_signal', $2, $2)
       on conflict do nothing returning 1 as n`,
      [foundationOnly.id, signal],
    );
    expect(again).toEqual([]);
    await expect(
      t.stack.ctx.db.query(
        `insert into public.alert_outbox (user_id, kind, ledger_id, signal_id) values ($1, 'new_signal', $2, $2)`,
        [foundationOnly.id, signal],
      ),
    ).rejects.toThrow(/alert_outbox_once|duplicate key/);
  });

  test('the outbox failing never fails the ingest: the signal is stored, the alert is not queued', async () => {
    const db = t.stack.ctx.db;
    await db.query('alter table public.alert_preferences rename to alert_preferences_away');
    let signal: string;
    try {
      signal = await newSignal('growth');
    } finally {
      await db.query('alter table public.alert_preferences_away rename to alert_preferences');
    }
    const stored = await db.query<{ id: string }>('select id from public.signals where id = $1', [signal]);
    expect(stored).toEqual([{ id: signal }]);
    expect(await outbox(signal)).toEqual([]);
  });

  test('members and visitors read no outbox rows', async () => {
    await newSignal('growth');
    expect((await all.client.from('alert_outbox').select('*')).error?.code).toBe('42501');
    expect((await t.anon<Database>().from('alert_outbox').select('*')).error?.code).toBe('42501');
    expect((await all.client.rpc('claim_signal_alerts', {})).error).not.toBeNull();
  });
});

describe('signal-alerts sends each alert once, with one-click unsubscribe', () => {
  test('the send entry refuses the public key: 401 not_admin, nothing claimed', async () => {
    const ann = await member('refused', { email_enabled: true });
    const signal = await newSignal('momentum');
    expect(await runSender(t.config.anonKey)).toEqual({
      status: 401,
      body: { error: 'The send entry requires the service-role key.', code: 'not_admin' },
    });
    const [row] = (await outbox(signal)).filter((r) => r.user_id === ann.id);
    expect(row).toMatchObject({ claimed_at: null, attempts: 0, sent_at: null });
  });

  test('each matching member gets one mail with the signal, the links and the List-Unsubscribe headers; a second run sends nothing twice', async () => {
    const ann = await member('mail-ann', { email_enabled: true, tiers: ['momentum'] });
    const bob = await member('mail-bob', { email_enabled: true, tiers: ['growth'] });
    const signal = await newSignal('momentum');
    const hit = await newEvent(signal, 'tp2_hit');
    const first = await runSender();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, failed: 0 });

    const mails = await mailsTo(ann.email);
    expect(mails.map((m) => m.subject).sort()).toEqual(
      ['New signal: BUY EUR/USD (Momentum One)', 'TP2 hit: BUY EUR/USD (Momentum One)'].sort(),
    );
    const opened = mails.find((m) => m.subject.startsWith('New signal')) as (typeof mails)[number];
    expect(opened.text).toContain('Entry: 1.085');
    expect(opened.text).toContain('Take profit: 1.09 / 1.095 / 1.1');
    expect(opened.text).toContain('http://127.0.0.1:4321/dashboard');
    const url = unsubscribeUrlOf(opened);
    expect(url).toMatch(
      new RegExp(`^${t.url}/functions/v1/signal-alerts/unsubscribe\\?id=${ann.id}&token=[A-Za-z0-9_-]{43}$`),
    );
    expect(opened.headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);
    expect(opened.text).toContain(url);
    // Who sends it: the company's details close every mail.
    for (const line of COMPANY_FOOTER) expect(opened.text).toContain(line);
    expect(await mailsTo(bob.email)).toEqual([]);

    const rows = [...(await outbox(signal)), ...(await outbox(hit))].filter((r) => r.user_id === ann.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ attempts: 1, claimed_at: null, last_error: null, dropped_at: null });
      expect(Date.parse(row.sent_at as string)).toBeGreaterThanOrEqual(Date.parse(row.created_at));
    }

    const second = await runSender();
    expect(second.body).toMatchObject({ success: true, sent: 0, failed: 0 });
    expect(await mailsTo(ann.email)).toHaveLength(2);
  });

  test('two senders at once (SKIP LOCKED): 30 alerts of 10 members, each mailed exactly once', async () => {
    const members = await Promise.all(
      Array.from({ length: 10 }, (_, i) => member(`burst-${i}`, { email_enabled: true, tiers: ['foundation'] })),
    );
    const signal = await newSignal('foundation');
    await newEvent(signal, 'tp1_hit');
    await newEvent(signal, 'tp2_hit');
    const mailer = createMailer({ smtpUrl: t.config.smtpUrl, from: 'SignalOne <no-reply@signals.local>' });
    const deps = {
      db: t.admin<Database>(),
      mailer,
      links: async () => ({ unsubscribe: 'http://x/u', dashboard: 'http://x/d', settings: 'http://x/s' }),
    };
    // Small batches, so that the two runs claim in turn rather than one taking everything at once.
    const batch = SEND.batch;
    SEND.batch = 4;
    let a: SendTally;
    let b: SendTally;
    try {
      [a, b] = await Promise.all([sendDue(deps), sendDue(deps)]);
    } finally {
      SEND.batch = batch;
    }
    expect(a.failed + b.failed).toBe(0);
    expect(a.sent + b.sent).toBeGreaterThanOrEqual(30);
    for (const m of members) {
      expect((await mailsTo(m.email)).map((x) => x.subject).sort()).toEqual(
        [
          'New signal: BUY EUR/USD (Foundation One)',
          'TP1 hit: BUY EUR/USD (Foundation One)',
          'TP2 hit: BUY EUR/USD (Foundation One)',
        ].sort(),
      );
    }
  });

  test('a run out of time (a slow relay) gives its unsent claims back at once; the next run sends them, once each', async () => {
    const members = await Promise.all(
      Array.from({ length: 4 }, (_, i) => member(`slow-${i}`, { email_enabled: true, tiers: ['momentum'] })),
    );
    const signal = await newSignal('momentum');
    await runSender();
    const stop = await newEvent(signal, 'sl_hit');
    const smtp = createMailer({ smtpUrl: t.config.smtpUrl, from: 'SignalOne <no-reply@signals.local>' });
    const budget = SEND.budgetMs;
    // The relay is so slow that the run's time is up once its first mail is out, however long the claim took.
    const slow = {
      async send(mail: Parameters<typeof smtp.send>[0]) {
        await smtp.send(mail);
        SEND.budgetMs = 0;
      },
    };
    const links = async () => ({ unsubscribe: 'http://x/u', dashboard: 'http://x/d', settings: 'http://x/s' });
    let first: SendTally;
    try {
      first = await sendDue({ db: t.admin<Database>(), mailer: slow, links });
    } finally {
      SEND.budgetMs = budget;
    }
    expect(first.sent).toBe(1);
    const left = (await outbox(stop)).filter((r) => r.sent_at === null);
    expect(left.length).toBeGreaterThan(0);
    for (const row of left) expect(row).toMatchObject({ claimed_at: null, attempts: 0 });

    await runSender();
    for (const m of members) {
      const subjects = (await mailsTo(m.email)).map((x) => x.subject);
      expect(subjects.filter((x) => x.startsWith('Stop loss hit'))).toHaveLength(1);
    }
  });

  test('one click on the mail’s unsubscribe turns email alerts off: later signals queue nothing, queued ones are dropped unsent', async () => {
    const ann = await member('unsub', { email_enabled: true, tiers: ['growth'], events: ['new_signal', 'sl_hit'] });
    const first = await newSignal('growth');
    await runSender();
    const [mail] = await mailsTo(ann.email);
    const url = unsubscribeUrlOf(mail);
    // A stop hit queued before the click.
    const queued = await newEvent(first, 'sl_hit');
    expect((await outbox(queued)).filter((r) => r.user_id === ann.id)).toHaveLength(1);

    const forged = await oneClick(url.replace(/token=[^&]+/, `token=${'A'.repeat(43)}`));
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ error: 'This unsubscribe link is not valid.', code: 'invalid_link' });
    expect((await prefsOf(ann.id))?.email_enabled).toBe(true);
    const notOneClick = await oneClick(url, 'hello');
    expect(notOneClick.status).toBe(400);

    const res = await oneClick(url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await prefsOf(ann.id)).toMatchObject({
      email_enabled: false,
      tiers: ['growth'],
      events: ['new_signal', 'sl_hit'],
    });
    // The member sees it off in their own session.
    expect((await ann.client.from('alert_preferences').select('email_enabled')).data).toEqual([
      { email_enabled: false },
    ]);

    const later = await newSignal('growth');
    expect((await outbox(later)).filter((r) => r.user_id === ann.id)).toEqual([]);
    const run = await runSender();
    expect(run.body.dropped).toBeGreaterThanOrEqual(1);
    const [dropped] = (await outbox(queued)).filter((r) => r.user_id === ann.id);
    expect(dropped).toMatchObject({ sent_at: null, dropped_at: expect.any(String) });
    expect(await mailsTo(ann.email)).toHaveLength(1);

    // A click (GET) on the same link again: still off, and the browser lands on the settings panel.
    const clicked = await fetch(url, { redirect: 'manual' });
    expect(clicked.status).toBe(303);
    expect(clicked.headers.get('location')).toBe('http://127.0.0.1:4321/settings?alerts=off#notification-preferences');
    const bad = await fetch(url.replace(/id=[^&]+/, `id=${randomUUID()}`), { redirect: 'manual' });
    expect(bad.headers.get('location')).toBe('http://127.0.0.1:4321/newsletter-verified?status=unsubscribe-invalid');
  });

  test('a member who never saved preferences and unsubscribes through a link gets a row with alerts off', async () => {
    const ann = await member('unsub-new', { email_enabled: true });
    await newSignal('growth');
    await runSender();
    const [mail] = await mailsTo(ann.email);
    expect((await t.admin<Database>().from('alert_preferences').delete().eq('user_id', ann.id)).error).toBeNull();
    expect((await oneClick(unsubscribeUrlOf(mail))).status).toBe(200);
    expect(await prefsOf(ann.id)).toMatchObject({ email_enabled: false, tiers: ['foundation', 'growth', 'momentum'] });
  });
});

describe('the member’s data', () => {
  test('Download my data holds the preferences and the alerts queued for the member, and no one else’s', async () => {
    const ann = await member('export', { email_enabled: true, tiers: ['growth'], events: ['new_signal'] });
    const bob = await member('export-bob', { email_enabled: true, tiers: ['growth'] });
    const signal = await newSignal('growth');
    await runSender();
    const { data, error } = await ann.client.functions.invoke('account', { method: 'GET' });
    expect(error).toBeNull();
    expect(data.alertPreferences).toEqual({
      email_enabled: true,
      tiers: ['growth'],
      events: ['new_signal'],
      updated_at: expect.any(String),
    });
    expect(data.alerts).toEqual([
      {
        kind: 'new_signal',
        signal_id: signal,
        event_id: null,
        created_at: expect.any(String),
        attempts: 1,
        sent_at: expect.any(String),
        dropped_at: null,
      },
    ]);
    expect(JSON.stringify(data)).not.toContain(bob.id);
    const none = await bob.client.functions.invoke('account', { method: 'GET' });
    expect(none.data.alerts).toHaveLength(1);
  });

  test('deleting the account removes the preferences and the alerts, never the ledger', async () => {
    const ann = await member('delete', { email_enabled: true, tiers: ['growth'], events: ['new_signal'] });
    const signal = await newSignal('growth');
    await runSender();
    const db = t.stack.ctx.db;
    const count = async (sql: string) => Number((await db.query<{ n: number }>(sql, [ann.id]))[0]?.n);
    expect(await count('select count(*)::int as n from public.alert_preferences where user_id = $1')).toBe(1);
    expect(await count('select count(*)::int as n from public.alert_outbox where user_id = $1')).toBe(1);

    const deleted = await ann.client.functions.invoke('account', { body: { password: GOOD_PASSWORD } });
    expect(deleted.error).toBeNull();
    expect(await count('select count(*)::int as n from public.alert_preferences where user_id = $1')).toBe(0);
    expect(await count('select count(*)::int as n from public.alert_outbox where user_id = $1')).toBe(0);
    const ledger = await db.query<{ n: number }>(
      `select (select count(*) from public.signals where id = $1)::int
            + (select count(*) from public.signal_commitments where signal_id = $1)::int as n`,
      [signal],
    );
    expect(Number(ledger[0]?.n)).toBe(2);
  });
});

describe('retention', () => {
  test('sent and dropped alerts go 30 days after they were queued; one still owed never goes', async () => {
    const ann = await member('retention', { email_enabled: true, tiers: ['growth'] });
    const signal = await newSignal('growth');
    const hit = await newEvent(signal, 'tp1_hit');
    const stop = await newEvent(signal, 'sl_hit');
    const db = t.stack.ctx.db;
    // As the database owner: the sent one and the dropped one are 31 days old, the unsent one too.
    const age = (ledgerId: string, set: string) =>
      db.query(
        `update public.alert_outbox set created_at = now() - interval '31 days', ${set}
          where user_id = $1 and ledger_id = $2`,
        [ann.id, ledgerId],
      );
    await age(signal, 'sent_at = now()');
    await age(hit, 'dropped_at = now()');
    await age(stop, 'attempts = 3');
    const recent = await newSignal('growth');
    await db.query(`update public.alert_outbox set sent_at = now() where user_id = $1 and ledger_id = $2`, [
      ann.id,
      recent,
    ]);
    expect((await member('retention-x').then((m) => m.client.rpc('delete_expired_alerts'))).error).not.toBeNull();

    const { data, error } = await t.admin<Database>().rpc('delete_expired_alerts');
    expect(error).toBeNull();
    expect(data).toBeGreaterThanOrEqual(2);
    const left = await db.query<{ ledger_id: string }>(
      'select ledger_id from public.alert_outbox where user_id = $1 order by ledger_id',
      [ann.id],
    );
    expect(left.map((r) => r.ledger_id).sort()).toEqual([recent, stop].sort());
  });
});

describe('mail down, then back: the schedule delivers every alert, attempts recorded', () => {
  let down: RelayDownStack;
  let d: TestStack;

  beforeAll(async () => {
    // Nothing listens on the relay port until it comes back; the migration's cron job runs every 300 ms.
    down = await startStackWithRelayDown({
      functionSecrets: { SIGNALS_INGEST_SECRET: SECRET },
      cron: { 'signal-alerts': 0.3 },
    });
    d = down.t;
  });
  afterAll(() => down?.stop());

  test('alerts wait while SMTP is down, then each arrives exactly once', async () => {
    const email = uniqueEmail('down');
    const { user } = await confirmedUser(d, email, GOOD_PASSWORD);
    const saved = await d
      .admin<Database>()
      .from('alert_preferences')
      .insert({ user_id: user.id, email_enabled: true, tiers: ['growth'] });
    expect(saved.error).toBeNull();
    const signal = await newSignal('growth', d);
    const hit = await newEvent(signal, 'tp1_hit', d);
    const stop = await newEvent(signal, 'sl_hit', d);
    const ids = [signal, hit, stop];
    const rowsOf = async () =>
      (await Promise.all(ids.map((id) => outbox(id, d)))).flat().filter((r) => r.user_id === user.id);

    // The schedule tries, fails, and waits longer each time: read a row with two failed attempts.
    const failing = await until(
      'two failed attempts',
      async () => (await rowsOf()).find((r) => r.attempts >= 2 && r.claimed_at === null),
      20_000,
    );
    expect(failing.sent_at).toBeNull();
    expect(failing.last_error).toMatch(/ECONNREFUSED|connect/i);
    expect(Date.parse(failing.next_attempt_at)).toBeGreaterThan(Date.parse(failing.created_at));

    await down.relayUp();
    const sent = await until(
      'every alert sent',
      async () => {
        const rows = await rowsOf();
        return rows.length === 3 && rows.every((r) => r.sent_at !== null) ? rows : undefined;
      },
      70_000,
    );
    for (const row of sent) expect(row.last_error).toBeNull();
    expect(Math.max(...sent.map((r) => r.attempts))).toBeGreaterThanOrEqual(2);
    const caught = () =>
      down.relay?.store.list().filter((m) => m.To.some((to) => to.Address.toLowerCase() === email.toLowerCase())) ?? [];
    expect(
      caught()
        .map((m) => m.Subject)
        .sort(),
    ).toEqual(
      [
        'New signal: BUY EUR/USD (Growth One)',
        'Stop loss hit: BUY EUR/USD (Growth One)',
        'TP1 hit: BUY EUR/USD (Growth One)',
      ].sort(),
    );
    // Several more ticks of the schedule (every 300 ms): still one mail each.
    await sleep(1500);
    expect(caught()).toHaveLength(3);
  });
});
