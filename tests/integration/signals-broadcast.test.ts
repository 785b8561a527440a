// Live delivery of the ledger through the real stack's Realtime: signals and events posted through signals-ingest
// reach members' supabase-js channels on the private topic 'signals:members' (migration
// 20261127100000_signals_broadcast.sql), and the topic's RLS keeps everyone else out. Runs on PGlite here and on
// PostgreSQL in `npm test`'s postgres step.
import { randomUUID } from 'node:crypto';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import {
  codeFor,
  createMember,
  type Member,
  startTestStack,
  type TestStack,
  uniqueEmail,
  until,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SIGNALS_TOPIC } from '../../src/stores/signal-live.ts';
import type { Database } from '../../supabase/database.types.ts';
import { sign, signingKey } from '../../supabase/functions/signals-ingest/signature.ts';

const SECRET = `signals-broadcast-test-secret-${randomUUID()}`;

let t: TestStack;
let member: Member;
let other: Member;
const clients: SupabaseClient[] = [];

beforeAll(async () => {
  // Realtime on whatever config.toml or the environment says: hosted projects have it.
  t = await startTestStack({ functionSecrets: { SIGNALS_INGEST_SECRET: SECRET }, realtime: true });
  member = await createMember(t, 'live');
  other = await createMember(t, 'live-other');
});
afterAll(async () => {
  for (const c of clients) await c.removeAllChannels();
  await t?.stop();
});

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Posts one body to signals-ingest as the engine does, and expects it stored. */
async function post(body: Record<string, unknown>): Promise<void> {
  const raw = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${t.url}/functions/v1/signals-ingest`, {
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

const opened = (id: string) => ({
  type: 'signal.opened',
  id,
  tier: 'momentum',
  pair: 'GBP/USD',
  direction: 'SELL',
  entry: 1.265,
  stop_loss: 1.27,
  take_profit: [1.26, 1.255, 1.25],
  timeframe: 'M15',
  issued_at: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
});

/** A supabase-js client whose requests, Realtime's join included, carry `token` (the publishable key alone without). */
function clientWith(token?: string): SupabaseClient {
  const c = token
    ? createClient(t.url, t.config.publishableKey, { accessToken: async () => token })
    : createClient(t.url, t.config.publishableKey, { auth: { persistSession: false, autoRefreshToken: false } });
  clients.push(c);
  return c;
}

interface Got {
  event: string;
  payload: Record<string, unknown> & { signal?: { id: string; status: string }; seq?: number };
}

/**
 * The members' topic on `c`, collecting what arrives; joined resolves with SUBSCRIBED or the refusal. The token is
 * set before the join, as Supabase asks for private channels: a join sent before it would go as the key's role.
 */
function topic(c: SupabaseClient): { channel: RealtimeChannel; got: Got[]; joined: Promise<string> } {
  const got: Got[] = [];
  const channel = c.channel(SIGNALS_TOPIC, { config: { private: true, broadcast: { ack: true } } });
  for (const event of ['signal', 'signal_event']) {
    channel.on('broadcast', { event }, (m) => got.push({ event, payload: m.payload }));
  }
  const joined = c.realtime
    .setAuth()
    .then(
      () =>
        new Promise<string>((resolve) =>
          channel.subscribe((status, err) => resolve(err ? `${status}: ${err.message}` : status)),
        ),
    );
  return { channel, got, joined };
}

const arrived = (got: Got[], event: string, signalId: string) =>
  until(`${event} of ${signalId}`, async () => got.find((g) => g.event === event && g.payload.signal?.id === signalId));

describe('the members topic', () => {
  test("a member's channel receives a signal posted through signals-ingest, then its event, with their seqs", async () => {
    const mine = topic(clientWith(member.accessToken));
    const theirs = topic(clientWith(other.accessToken));
    expect(await mine.joined).toBe('SUBSCRIBED');
    expect(await theirs.joined).toBe('SUBSCRIBED');

    const id = uid('live');
    await post(opened(id));
    const signal = await arrived(mine.got, 'signal', id);
    await arrived(theirs.got, 'signal', id);
    const [commitment] = await t.stack.ctx.db.query<{ seq: string }>(
      'select seq::text from public.signal_commitments where signal_id = $1',
      [id],
    );
    expect(signal.payload).toMatchObject({
      seq: Number(commitment.seq),
      signal: {
        id,
        tier: 'momentum',
        pair: 'GBP/USD',
        direction: 'SELL',
        entry: 1.265,
        stop_loss: 1.27,
        tp1: 1.26,
        status: 'active',
        current_stop: 1.27,
        risk_reward: 1,
      },
    });

    const eventId = uid('ev');
    await post({
      type: 'signal.event',
      id: eventId,
      signal_id: id,
      kind: 'tp1_hit',
      price: 1.26,
      at: opened(id).issued_at,
    });
    const event = await arrived(mine.got, 'signal_event', id);
    const [stored] = await t.stack.ctx.db.query<{ seq: string }>(
      'select seq::text from public.signal_events where id = $1',
      [eventId],
    );
    // The signal as the event left it: the feed shows it without reading.
    expect(event.payload).toMatchObject({
      seq: Number(stored.seq),
      event: { id: eventId, signal_id: id, kind: 'tp1_hit', price: 1.26 },
      signal: { id, status: 'tp1_hit' },
    });
  });

  test('refused to visitors and to a member with two-factor at aal1; joined at aal2', async () => {
    expect(await topic(clientWith()).joined).toBe(
      `CHANNEL_ERROR: You do not have permissions to read from this Channel topic: ${SIGNALS_TOPIC}`,
    );

    const email = uniqueEmail('live-2fa');
    const password = `Pw-${randomUUID()}-Aa1!`;
    expect((await t.admin().auth.admin.createUser({ email, password, email_confirm: true })).error).toBeNull();
    const enrolled = t.anon<Database>();
    expect((await enrolled.auth.signInWithPassword({ email, password })).error).toBeNull();
    const { data: factor } = await enrolled.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    const verified = await enrolled.auth.mfa.challengeAndVerify({
      factorId: factor?.id as string,
      code: codeFor(factor?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    const aal2 = (await enrolled.auth.getSession()).data.session?.access_token;
    const again = t.anon<Database>();
    const aal1 = (await again.auth.signInWithPassword({ email, password })).data.session?.access_token;

    expect(await topic(clientWith(aal1)).joined).toBe(
      `CHANNEL_ERROR: You do not have permissions to read from this Channel topic: ${SIGNALS_TOPIC}`,
    );
    expect(await topic(clientWith(aal2)).joined).toBe('SUBSCRIBED');
  });

  test('no client may send to it: over the socket nothing is delivered, over HTTP it is refused', async () => {
    const sender = topic(clientWith(member.accessToken));
    const listener = topic(clientWith(other.accessToken));
    expect(await sender.joined).toBe('SUBSCRIBED');
    expect(await listener.joined).toBe('SUBSCRIBED');
    const fake = { seq: 999999, signal: { id: 'forged', status: 'active' } };

    // Without an insert policy the socket's broadcast is dropped unanswered: its ack never comes.
    expect(await sender.channel.send({ type: 'broadcast', event: 'signal', payload: fake }, { timeout: 2000 })).toBe(
      'timed out',
    );
    await expect(sender.channel.httpSend('signal', fake)).rejects.toThrow('Unauthorized');

    // A real signal after them arrives; the forged one never did.
    const id = uid('after');
    await post(opened(id));
    await arrived(listener.got, 'signal', id);
    expect(listener.got.filter((g) => g.payload.signal?.id === 'forged')).toEqual([]);
    const [forged] = await t.stack.ctx.db.query<{ n: number }>(
      "select count(*)::int as n from realtime.messages where payload -> 'signal' ->> 'id' = 'forged'",
    );
    expect(Number(forged.n)).toBe(0);
  });

  test('a broadcast that cannot be sent never costs a signal: the ingest is stored all the same', async () => {
    // realtime.send made to fail for this transaction's caller: the ledger row is the truth, the broadcast a hint.
    const id = uid('nosend');
    await t.stack.ctx.db.exec(`
      alter function realtime.send(jsonb, text, text, boolean) rename to send_away;
      create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
        returns void language plpgsql as $$ begin raise exception 'realtime is down'; end $$;
    `);
    try {
      await post(opened(id));
      await post({ type: 'signal.event', id: uid('ev'), signal_id: id, kind: 'expired', at: opened(id).issued_at });
    } finally {
      await t.stack.ctx.db.exec(`
        drop function realtime.send(jsonb, text, text, boolean);
        alter function realtime.send_away(jsonb, text, text, boolean) rename to send;
      `);
    }
    const [row] = await t.stack.ctx.db.query<{ status: string; commitments: number }>(
      `select s.status, (select count(*)::int from public.signal_commitments c where c.signal_id = s.id) as commitments
         from public.signals s where s.id = $1`,
      [id],
    );
    expect(row).toEqual({ status: 'expired', commitments: 1 });
  });
});
