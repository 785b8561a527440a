// Realtime on the stack, through supabase-js's own client (and raw WebSockets where the client hides the wire):
// both serializers, join / reply / heartbeat, broadcast from clients, over HTTP and from the database, private
// channels authorized by the RLS policies of realtime.messages, token expiry, presence, and the switched-off
// answer with REALTIME=off.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { createClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { signAccessToken } from '../../src/jwt.ts';
import { startThrowawayCluster } from '../../testing/pg-cluster.ts';
import { createMember, type Member } from '../../testing/rest-helpers.ts';
import { startTestStack, type TestStack, until } from '../../testing/stack.ts';

let t: TestStack;
let member: Member;
let outsider: Member;

/** Topics of this file's private channels: members may read and write `members:<their id>` and `room:*`. */
beforeAll(async () => {
  t = await startTestStack();
  member = await createMember(t, 'rt');
  outsider = await createMember(t, 'rt-out');
  await t.stack.ctx.db.exec(`
    create policy "rt test: read own topic" on realtime.messages for select to authenticated
      using (realtime.topic() = 'members:' || auth.uid()::text or realtime.topic() like 'room:%');
    create policy "rt test: write own topic" on realtime.messages for insert to authenticated
      with check (realtime.topic() = 'members:' || auth.uid()::text or realtime.topic() like 'room:%');
  `);
});
afterAll(() => t?.stop());

const clients: SupabaseClient[] = [];
afterAll(async () => {
  for (const c of clients) await c.removeAllChannels();
});

/**
 * A supabase-js client on the publishable key with the given serializer; with `as`, every request (the
 * socket's joins and httpSend too) carries that member's access token, or the token given.
 */
async function client(vsn: '1.0.0' | '2.0.0', as?: Member | string): Promise<SupabaseClient> {
  const token = typeof as === 'string' ? as : as?.accessToken;
  const c = token
    ? createClient(t.url, t.config.publishableKey, { accessToken: async () => token, realtime: { vsn } })
    : createClient(t.url, t.config.publishableKey, {
        auth: { persistSession: false, autoRefreshToken: false },
        realtime: { vsn },
      });
  clients.push(c);
  return c;
}

/** Subscribes and resolves with the first status other than SUBSCRIBED-pending: SUBSCRIBED, or the error. */
function subscribe(channel: RealtimeChannel): Promise<string> {
  return new Promise((resolve) => {
    channel.subscribe((status, err) => resolve(err ? `${status}: ${err.message}` : status));
  });
}

/** Collects the broadcasts of `event` on `channel`. */
function collect(channel: RealtimeChannel, event: string): { payload: unknown; meta?: unknown }[] {
  const got: { payload: unknown; meta?: unknown }[] = [];
  channel.on('broadcast', { event }, (m) => got.push({ payload: m.payload, meta: m.meta }));
  return got;
}

/** A raw socket on /realtime/v1/websocket and the frames it receives. */
async function rawSocket(vsn: string, apikey = t.config.anonKey, base = t.url) {
  const frames: (string | Buffer)[] = [];
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=${vsn}`);
  ws.on('message', (data, isBinary) => frames.push(isBinary ? (data as Buffer) : data.toString()));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = async (match: (f: string | Buffer) => boolean, timeoutMs = 5000) => {
    const hit = await until('a frame', async () => frames.find(match), timeoutMs, 10);
    frames.splice(frames.indexOf(hit), 1);
    return hit;
  };
  return { ws, frames, next };
}

describe('the socket and its serializers', () => {
  test('1.0.0: JSON objects; join, heartbeat and leave are answered with phx_reply, then phx_close', async () => {
    const { ws, next } = await rawSocket('1.0.0');
    ws.send(
      JSON.stringify({ topic: 'realtime:lobby', event: 'phx_join', payload: { config: {} }, ref: '1', join_ref: '1' }),
    );
    expect(JSON.parse((await next((f) => String(f).includes('"ref":"1"'))) as string)).toEqual({
      topic: 'realtime:lobby',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
      ref: '1',
    });
    ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '2' }));
    expect(JSON.parse((await next((f) => String(f).includes('"ref":"2"'))) as string)).toEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '2',
    });
    ws.send(JSON.stringify({ topic: 'realtime:lobby', event: 'phx_leave', payload: {}, ref: '3', join_ref: '1' }));
    expect(JSON.parse((await next((f) => String(f).includes('"ref":"3"'))) as string)).toMatchObject({
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    });
    expect(JSON.parse((await next((f) => String(f).includes('phx_close'))) as string)).toEqual({
      topic: 'realtime:lobby',
      event: 'phx_close',
      payload: {},
      ref: '1',
    });
    // A push on a topic not joined: Phoenix's "unmatched topic".
    ws.send(JSON.stringify({ topic: 'realtime:lobby', event: 'broadcast', payload: {}, ref: '4' }));
    expect(JSON.parse((await next((f) => String(f).includes('"ref":"4"'))) as string)).toMatchObject({
      payload: { status: 'error', response: { reason: 'unmatched topic' } },
    });
    ws.close();
  });

  test('2.0.0: JSON arrays [join_ref, ref, topic, event, payload]', async () => {
    const { ws, next } = await rawSocket('2.0.0');
    ws.send(JSON.stringify(['7', '7', 'realtime:lobby', 'phx_join', { config: { broadcast: { self: true } } }]));
    expect(JSON.parse((await next((f) => typeof f === 'string' && f.startsWith('["7"'))) as string)).toEqual([
      '7',
      '7',
      'realtime:lobby',
      'phx_reply',
      { status: 'ok', response: { postgres_changes: [] } },
    ]);
    ws.send(JSON.stringify([null, '8', 'phoenix', 'heartbeat', {}]));
    expect(JSON.parse((await next((f) => String(f).includes('"8"'))) as string)).toEqual([
      null,
      '8',
      'phoenix',
      'phx_reply',
      { status: 'ok', response: {} },
    ]);
    // A JSON broadcast pushed as text comes back (self) as text.
    ws.send(
      JSON.stringify(['7', '9', 'realtime:lobby', 'broadcast', { type: 'broadcast', event: 'e', payload: { a: 1 } }]),
    );
    expect(JSON.parse((await next((f) => String(f).includes('"broadcast"'))) as string)).toEqual([
      null,
      null,
      'realtime:lobby',
      'broadcast',
      { type: 'broadcast', event: 'e', payload: { a: 1 } },
    ]);
    ws.close();
  });

  test('a join without a topic name, or with a bad token, is refused with the reason hosted gives', async () => {
    const { ws, next } = await rawSocket('2.0.0');
    ws.send(JSON.stringify(['1', '1', 'realtime:', 'phx_join', {}]));
    expect(JSON.parse((await next((f) => String(f).startsWith('["1"'))) as string)[4]).toEqual({
      status: 'error',
      response: { reason: 'You must provide a topic name' },
    });
    const now = Math.floor(Date.now() / 1000);
    const expired = await signAccessToken(
      { sub: member.id, role: 'authenticated', exp: now - 10 },
      t.stack.ctx.jwtKeys,
    );
    ws.send(JSON.stringify(['2', '2', 'realtime:x', 'phx_join', { access_token: expired }]));
    const reason = JSON.parse((await next((f) => String(f).startsWith('["2"'))) as string)[4].response.reason;
    expect(reason).toMatch(/^InvalidJWTToken: Token has expired \d+ seconds ago$/);
    ws.send(JSON.stringify(['3', '3', 'realtime:x', 'phx_join', { access_token: 'not-a-jwt' }]));
    expect(JSON.parse((await next((f) => String(f).startsWith('["3"'))) as string)[4]).toEqual({
      status: 'error',
      response: { reason: 'The token provided is not a valid JWT' },
    });
    ws.close();
  });

  test('the socket needs an apikey that is a token of the project', async () => {
    const url = `${t.url.replace(/^http/, 'ws')}/realtime/v1/websocket?vsn=2.0.0`;
    const refused = (u: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(u);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
    expect(await refused(url)).toBe(401);
    expect(await refused(`${url}&apikey=sb_publishable_unknown`)).toBe(401);
    expect(await refused(`${url}&apikey=${t.config.publishableKey}`)).toBe(101);
  });
});

describe('broadcast', () => {
  test('between a 1.0.0 and a 2.0.0 client: self and ack honoured', async () => {
    const topic = `public-${randomUUID()}`;
    const a = await client('1.0.0');
    const b = await client('2.0.0');
    const ca = a.channel(topic, { config: { broadcast: { self: true, ack: true } } });
    const cb = b.channel(topic, { config: { broadcast: { ack: true } } });
    const gotA = collect(ca, 'move');
    const gotB = collect(cb, 'move');
    expect(await subscribe(ca)).toBe('SUBSCRIBED');
    expect(await subscribe(cb)).toBe('SUBSCRIBED');
    expect(await ca.send({ type: 'broadcast', event: 'move', payload: { from: 'a' } })).toBe('ok');
    expect(await cb.send({ type: 'broadcast', event: 'move', payload: { from: 'b' } })).toBe('ok');
    await until('both messages at a', async () => (gotA.length === 2 ? true : undefined));
    await until('a message at b', async () => (gotB.length >= 1 ? true : undefined));
    expect(gotA.map((m) => m.payload)).toEqual([{ from: 'a' }, { from: 'b' }]);
    // b has no self: its own message never comes back, only a's.
    expect(gotB.map((m) => m.payload)).toEqual([{ from: 'a' }]);
  });

  test('bytes with 2.0.0: sent by a client and over HTTP, received as an ArrayBuffer', async () => {
    const topic = `bytes-${randomUUID()}`;
    const sender = await client('2.0.0');
    const receiver = await client('2.0.0');
    const cs = sender.channel(topic, { config: { broadcast: { ack: true } } });
    const cr = receiver.channel(topic);
    const got = collect(cr, 'blob');
    expect(await subscribe(cs)).toBe('SUBSCRIBED');
    expect(await subscribe(cr)).toBe('SUBSCRIBED');
    expect(await cs.send({ type: 'broadcast', event: 'blob', payload: new Uint8Array([9, 8, 7]).buffer })).toBe('ok');
    expect(await cs.httpSend('blob', new Uint8Array([1, 2, 3, 4, 5]))).toEqual({ success: true });
    await until('two binary broadcasts', async () => (got.length === 2 ? true : undefined));
    expect(got.map((m) => [...new Uint8Array(m.payload as ArrayBuffer)])).toEqual([
      [9, 8, 7],
      [1, 2, 3, 4, 5],
    ]);
  });

  test('HTTP: the batch API and httpSend reach a public channel', async () => {
    const topic = `http-${randomUUID()}`;
    const c = await client('1.0.0');
    const ch = c.channel(topic);
    const got = collect(ch, 'note');
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    const res = await fetch(`${t.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: t.config.publishableKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic, event: 'note', payload: { n: 1 }, id: 'm-1' }] }),
    });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
    expect(await ch.httpSend('note', { n: 2 })).toEqual({ success: true });
    await until('two notes', async () => (got.length === 2 ? true : undefined));
    expect(got).toEqual([
      { payload: { n: 1 }, meta: { id: 'm-1' } },
      { payload: { n: 2 }, meta: undefined },
    ]);
    const bad = await fetch(`${t.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: t.config.publishableKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic, payload: { n: 3 } }] }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ errors: { messages: [{ event: ["can't be blank"] }] } });
  });
});

describe('private channels (RLS on realtime.messages)', () => {
  test('refused without a select policy for the topic, accepted with one', async () => {
    const c = await client('2.0.0', outsider);
    expect(await subscribe(c.channel(`members:${member.id}`, { config: { private: true } }))).toBe(
      `CHANNEL_ERROR: You do not have permissions to read from this Channel topic: members:${member.id}`,
    );
    const anon = await client('2.0.0');
    expect(await subscribe(anon.channel('room:1', { config: { private: true } }))).toMatch(
      /^CHANNEL_ERROR: You do not have permissions to read from this Channel topic: room:1$/,
    );
    const own = await client('1.0.0', member);
    expect(await subscribe(own.channel(`members:${member.id}`, { config: { private: true } }))).toBe('SUBSCRIBED');
  });

  test('a private broadcast reaches the private channel only; HTTP needs a user the insert policy allows', async () => {
    const topic = `room:${randomUUID()}`;
    const m = await client('2.0.0', member);
    const pub = await client('2.0.0');
    const priv = m.channel(topic, { config: { private: true, broadcast: { self: true, ack: true } } });
    const open = pub.channel(topic);
    const gotPriv = collect(priv, 'say');
    const gotPub = collect(open, 'say');
    expect(await subscribe(priv)).toBe('SUBSCRIBED');
    expect(await subscribe(open)).toBe('SUBSCRIBED');
    expect(await priv.send({ type: 'broadcast', event: 'say', payload: { via: 'socket' } })).toBe('ok');
    expect(await priv.httpSend('say', { via: 'http' })).toEqual({ success: true });
    const refused = await fetch(
      `${t.url}/realtime/v1/api/broadcast/${encodeURIComponent(topic)}/events/say?private=true`,
      {
        method: 'POST',
        headers: { apikey: t.config.publishableKey, 'Content-Type': 'application/json' },
        body: '{"via":"anon"}',
      },
    );
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: 'Unauthorized' });
    await until('two private messages', async () => (gotPriv.length === 2 ? true : undefined));
    // The public message after them shows the public channel saw none of them.
    expect(await open.httpSend('say', { via: 'public' })).toEqual({ success: true });
    await until('the public message', async () => (gotPub.length === 1 ? true : undefined));
    expect(gotPriv.map((g) => g.payload)).toEqual([{ via: 'socket' }, { via: 'http' }]);
    expect(gotPub.map((g) => g.payload)).toEqual([{ via: 'public' }]);
  });

  test('an expiring token ends the channel with the system message hosted sends', async () => {
    // 4 to 5 s to live: time for a busy machine to join before it runs out (a late join would be refused instead).
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await signAccessToken(
      { sub: member.id, role: 'authenticated', aud: 'authenticated', exp: now + 5 },
      t.stack.ctx.jwtKeys,
    );
    const c = await client('2.0.0', shortLived);
    const ch = c.channel(`members:${member.id}`, { config: { private: true } });
    const system: unknown[] = [];
    ch.on('system', {}, (m) => system.push(m));
    const statuses: string[] = [];
    expect(
      await new Promise<string>((resolve) =>
        ch.subscribe((status) => {
          statuses.push(status);
          resolve(status);
        }),
      ),
    ).toBe('SUBSCRIBED');
    await until('the channel to close', async () => (statuses.includes('CLOSED') ? true : undefined), 20_000);
    expect(system).toEqual([
      {
        extension: 'system',
        status: 'error',
        message: expect.stringMatching(/^Token has expired \d+ seconds ago$/),
        channel: `members:${member.id}`,
      },
    ]);
  });

  test('an access_token update the policies no longer allow ends the channel', async () => {
    const { ws, next } = await rawSocket('2.0.0');
    const topic = `realtime:members:${member.id}`;
    ws.send(
      JSON.stringify(['1', '1', topic, 'phx_join', { config: { private: true }, access_token: member.accessToken }]),
    );
    expect(JSON.parse((await next((f) => String(f).startsWith('["1","1"'))) as string)[4].status).toBe('ok');
    ws.send(JSON.stringify(['1', '2', topic, 'access_token', { access_token: outsider.accessToken }]));
    expect(JSON.parse((await next((f) => String(f).includes('"system"'))) as string)).toEqual([
      '1',
      null,
      topic,
      'system',
      {
        extension: 'system',
        status: 'error',
        message: `You do not have permissions to read from this Channel topic: members:${member.id}`,
        channel: `members:${member.id}`,
      },
    ]);
    expect(JSON.parse((await next((f) => String(f).includes('phx_close'))) as string)).toEqual([
      '1',
      '1',
      topic,
      'phx_close',
      {},
    ]);
    ws.close();
  });
});

describe('broadcast from the database', () => {
  test('realtime.send in a transaction: delivered after commit, never after a rollback', async () => {
    const topic = `members:${member.id}`;
    const c = await client('1.0.0', member);
    const ch = c.channel(topic, { config: { private: true } });
    const got = collect(ch, 'signal');
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    const db = t.stack.ctx.db;
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`select realtime.send('{"n": 0}'::jsonb, 'signal', $1, true)`, [topic]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await db.transaction(async (tx) => {
      await tx.query(`select realtime.send('{"n": 1}'::jsonb, 'signal', $1, true)`, [topic]);
      expect(got).toEqual([]);
    });
    await until('the committed message', async () => (got.length >= 1 ? true : undefined));
    expect(got).toEqual([{ payload: { n: 1, id: expect.any(String) }, meta: { id: expect.any(String) } }]);
    expect((got[0]?.payload as { id?: string } | undefined)?.id).toBe(
      (got[0]?.meta as { id?: string } | undefined)?.id,
    );
  });

  test("a row over NOTIFY's 8000 bytes, and broadcast_changes from a trigger (SQL and REST), arrive (2.0.0)", async () => {
    const topic = `room:${randomUUID()}`;
    const c = await client('2.0.0', member);
    const ch = c.channel(topic, { config: { private: true } });
    const big = collect(ch, 'big');
    const changes = collect(ch, 'INSERT');
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    const db = t.stack.ctx.db;
    await db.query(`select realtime.send(jsonb_build_object('text', repeat('x', 20000)), 'big', $1, true)`, [topic]);
    await db.exec(`
      create table public.rt_test_notes (id int primary key, body text);
      create function public.rt_test_notes_broadcast() returns trigger language plpgsql security definer as $$
      begin
        perform realtime.broadcast_changes('${topic}', tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
        return null;
      end $$;
      create trigger rt_test_notes_broadcast after insert on public.rt_test_notes
        for each row execute function public.rt_test_notes_broadcast();
      insert into public.rt_test_notes values (1, 'hello');
    `);
    // Through REST too (PGlite: the stack's own prepared-statement path; PostgreSQL: its REST login).
    const { error } = await t.admin().from('rt_test_notes').insert({ id: 2, body: 'via rest' });
    expect(error).toBeNull();
    await until('all three messages', async () => (big.length && changes.length === 2 ? true : undefined));
    expect((big[0]?.payload as { text?: string } | undefined)?.text).toHaveLength(20000);
    expect(changes[0]?.payload).toMatchObject({
      operation: 'INSERT',
      table: 'rt_test_notes',
      schema: 'public',
      record: { id: 1, body: 'hello' },
      old_record: null,
    });
    expect(changes[1]?.payload).toMatchObject({ operation: 'INSERT', record: { id: 2, body: 'via rest' } });
  });

  test('replay: a private channel joining with broadcast.replay gets the stored messages first, once', async () => {
    const topic = `room:${randomUUID()}`;
    const since = Date.now() - 60_000;
    const db = t.stack.ctx.db;
    for (const n of [1, 2, 3]) {
      await db.query(`select realtime.send(jsonb_build_object('n', $2::int), 'stored', $1, true)`, [topic, n]);
    }
    await db.query(`select realtime.send('{"n": 0}'::jsonb, 'stored', $1, false)`, [topic]);
    const c = await client('1.0.0', member);
    const ch = c.channel(topic, { config: { private: true, broadcast: { replay: { since, limit: 2 } } } });
    const got = collect(ch, 'stored');
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    await until('the replayed messages', async () => (got.length === 2 ? true : undefined));
    await db.query(`select realtime.send('{"n": 4}'::jsonb, 'stored', $1, true)`, [topic]);
    await until('the live message', async () => (got.length === 3 ? true : undefined));
    // The newest two stored private messages, oldest first, marked replayed; then the live one.
    expect(got.map((g) => [(g.payload as { n: number }).n, (g.meta as { replayed?: boolean }).replayed])).toEqual([
      [2, true],
      [3, true],
      [4, undefined],
    ]);
  });

  test('replay keeps the order of sends made within one millisecond (PGlite ticks in milliseconds)', async () => {
    const topic = `room:${randomUUID()}`;
    const db = t.stack.ctx.db;
    const since = Date.now() - 60_000;
    for (let n = 1; n <= 25; n++) {
      await db.query(`select realtime.send(jsonb_build_object('n', $2::int), 'burst', $1, true)`, [topic, n]);
    }
    const c = await client('2.0.0', member);
    const ch = c.channel(topic, { config: { private: true, broadcast: { replay: { since, limit: 25 } } } });
    const got = collect(ch, 'burst');
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    await until('the replayed burst', async () => (got.length === 25 ? true : undefined));
    expect(got.map((g) => (g.payload as { n: number }).n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  test('replay on a public channel is refused', async () => {
    const { ws, next } = await rawSocket('2.0.0');
    ws.send(
      JSON.stringify(['1', '1', 'realtime:open', 'phx_join', { config: { broadcast: { replay: { since: 0 } } } }]),
    );
    expect(JSON.parse((await next((f) => String(f).startsWith('["1"'))) as string)[4]).toEqual({
      status: 'error',
      response: { reason: 'Replay is not allowed for public channels' },
    });
    ws.close();
  });

  test.skipIf(process.env.DATABASE_URL)(
    'on PGlite, a send committed through the Postgres port arrives too',
    async () => {
      const topic = `room:${randomUUID()}`;
      const c = await client('2.0.0', member);
      const ch = c.channel(topic, { config: { private: true } });
      const got = collect(ch, 'wire');
      expect(await subscribe(ch)).toBe('SUBSCRIBED');
      const sql = postgres(`postgresql://postgres@127.0.0.1:${t.config.ports.db}/postgres`, {
        max: 1,
        onnotice: () => {},
      });
      try {
        await sql.begin((tx) => tx`select realtime.send('{"via": "wire"}'::jsonb, 'wire', ${topic}, true)`);
      } finally {
        await sql.end();
      }
      await until('the message', async () => (got.length ? true : undefined));
      expect(got[0]?.payload).toMatchObject({ via: 'wire' });
    },
  );
});

describe('presence and postgres_changes', () => {
  test("presence: a tracked client appears in the other client's state", async () => {
    const topic = `presence-${randomUUID()}`;
    const a = await client('2.0.0');
    const b = await client('1.0.0');
    const ca = a.channel(topic, { config: { presence: { key: 'alice' } } });
    const cb = b.channel(topic, { config: { presence: { key: 'bob' } } });
    cb.on('presence', { event: 'sync' }, () => {});
    expect(await subscribe(ca)).toBe('SUBSCRIBED');
    expect(await subscribe(cb)).toBe('SUBSCRIBED');
    expect(await ca.track({ online_at: 'now' })).toBe('ok');
    const state = await until("alice in bob's state", async () => {
      const s = cb.presenceState();
      return s.alice ? s : undefined;
    });
    expect(state.alice).toEqual([expect.objectContaining({ online_at: 'now' })]);
  });

  test('postgres_changes: joined, then the system error hosted sends when it cannot subscribe', async () => {
    const c = await client('2.0.0');
    const ch = c.channel(`changes-${randomUUID()}`);
    const system: { extension?: string; status?: string; message?: string }[] = [];
    ch.on('system', {}, (m) => system.push(m));
    ch.on('postgres_changes', { event: '*', schema: 'public', table: 'profiles' }, () => {});
    expect(await subscribe(ch)).toBe('SUBSCRIBED');
    await until('the system message', async () => (system.length ? true : undefined));
    expect(system[0]).toMatchObject({ extension: 'postgres_changes', status: 'error' });
    expect(system[0]?.message).toMatch(/^Unable to subscribe to changes with given parameters/);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL stopped under the stack', () => {
  test('a private join gets the reason hosted gives; once the database is back, checks and database broadcasts work', async () => {
    const cluster = await startThrowawayCluster();
    const own = await startTestStack({ databaseUrl: cluster.url });
    try {
      const { ws, next } = await rawSocket('2.0.0', own.config.anonKey, own.url);
      const join = (ref: string) =>
        ws.send(JSON.stringify([ref, ref, 'realtime:room:down', 'phx_join', { config: { private: true } }]));
      await cluster.stopServer();
      join('1');
      expect(JSON.parse((await next((f) => String(f).startsWith('["1"'))) as string)[4]).toEqual({
        status: 'error',
        response: { reason: 'Realtime was unable to connect to the project database' },
      });
      await cluster.startServer();
      // Back: the anon role has no policy on this topic, so the answer is the policy's again.
      join('2');
      expect(JSON.parse((await next((f) => String(f).startsWith('["2"'), 15_000)) as string)[4]).toEqual({
        status: 'error',
        response: { reason: 'You do not have permissions to read from this Channel topic: room:down' },
      });
      // The database feed listens again: a public send after the restart arrives.
      ws.send(JSON.stringify(['3', '3', 'realtime:after', 'phx_join', {}]));
      await next((f) => String(f).startsWith('["3"'));
      // The feed's connection comes back on its own; until it has, a send can go unheard: send until one arrives.
      let frame: Buffer | undefined;
      for (const end = Date.now() + 15_000; !frame && Date.now() < end; ) {
        await own.stack.ctx.db.query(`select realtime.send('{"back": true}'::jsonb, 'ping', 'after', false)`);
        frame = (await next((f) => Buffer.isBuffer(f), 1000).catch(() => undefined)) as Buffer | undefined;
      }
      expect(frame?.includes(Buffer.from('"back":true'))).toBe(true);
      ws.close();
    } finally {
      await own.stop();
      await cluster.stop();
    }
  });
});

describe('stopping and switching off', () => {
  test('a stopped stack closes every socket (1001)', async () => {
    const other = await startTestStack();
    const ws = new WebSocket(
      `${other.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${other.config.anonKey}&vsn=2.0.0`,
    );
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await other.stop();
    expect(await closed).toBe(1001);
  });

  test('a config.toml with [realtime] enabled = false: Realtime runs all the same, and the start says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-supabase-'));
    writeFileSync(join(dir, 'config.toml'), '[realtime]\nenabled = false\n');
    symlinkSync(join(process.cwd(), 'supabase', 'migrations'), join(dir, 'migrations'));
    symlinkSync(join(process.cwd(), 'supabase', 'functions'), join(dir, 'functions'));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let other: TestStack | undefined;
    try {
      other = await startTestStack({ supabaseDir: dir });
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/^realtime: config\.toml says \[realtime\] enabled = false/),
      );
      const ws = new WebSocket(
        `${other.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${other.config.anonKey}`,
      );
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      ws.close();
    } finally {
      warn.mockRestore();
      await other?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('REALTIME=off: 503 "name resolution failed", as the CLI\'s gateway with Realtime disabled', async () => {
    const off = await startTestStack({ realtime: false });
    try {
      const res = await fetch(`${off.url}/realtime/v1/api/broadcast`, {
        method: 'POST',
        headers: { apikey: off.config.anonKey, 'Content-Type': 'application/json' },
        body: '{"messages":[]}',
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ message: 'name resolution failed' });
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(
          `${off.url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${off.config.anonKey}`,
        );
        ws.on('unexpected-response', (_req, r) => resolve(r.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
      expect(status).toBe(503);
    } finally {
      await off.stop();
    }
  });
});
