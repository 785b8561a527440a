// The signals ledger through the real stack: signed posts to signals-ingest as the engine sends them, the
// migration's RPCs, triggers and RLS through supabase-js, and SQL as the database owner. Runs on PGlite here and on
// PostgreSQL in `npm test`'s postgres step.
import { createHash, randomUUID } from 'node:crypto';
import {
  codeFor,
  createMember,
  type Member,
  startTestStack,
  type TestStack,
  uniqueEmail,
} from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyFromApi } from '../../scripts/lib/ledger-verify.ts';
import type { Database, Json, Tables } from '../../supabase/database.types.ts';
import { sign, signingKey } from '../../supabase/functions/signals-ingest/signature.ts';

const SECRET = `signals-ingest-test-secret-${randomUUID()}`;

let t: TestStack;
let member: Member;

beforeAll(async () => {
  t = await startTestStack({ functionSecrets: { SIGNALS_INGEST_SECRET: SECRET } });
  member = await createMember(t, 'ledger');
});
afterAll(() => t?.stop());

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A BUY on EUR/USD as the engine sends it, with `overrides`. */
function opened(overrides: Record<string, unknown> = {}) {
  return {
    id: uid('sig'),
    tier: 'growth',
    pair: 'EUR/USD',
    direction: 'BUY',
    entry: 1.085,
    stop_loss: 1.08,
    take_profit: [1.09, 1.095, 1.1],
    timeframe: 'H1',
    issued_at: '2026-11-26T10:00:00.000Z',
    ...overrides,
  };
}

async function ingestSignal(signal: Record<string, unknown>) {
  const { data, error } = await t.admin<Database>().rpc('ingest_signal', { signal: signal as Json });
  expect(error).toBeNull();
  return data as { outcome: string; field?: string };
}

async function ingestEvent(event: Record<string, unknown>) {
  const { data, error } = await t.admin<Database>().rpc('ingest_signal_event', { event: event as Json });
  expect(error).toBeNull();
  return data as { outcome: string; field?: string };
}

const event = (signalId: string, kind: string, extra: Record<string, unknown> = {}) => ({
  id: uid('ev'),
  signal_id: signalId,
  kind,
  price: 1.09,
  at: '2026-11-26T11:00:00.000Z',
  ...extra,
});

/** The stored signal, read as the owner (no RLS). */
async function stored(id: string): Promise<Tables<'signals'> | undefined> {
  const rows = await t.stack.ctx.db.query<Tables<'signals'>>(
    'select id, status, current_stop::float8 as current_stop, closed_at, exit_price::float8 as exit_price, entry::float8 as entry from public.signals where id = $1',
    [id],
  );
  return rows[0];
}

async function countOf(table: string, column: string, id: string): Promise<number> {
  const rows = await t.stack.ctx.db.query<{ n: number }>(
    `select count(*)::int as n from public.${table} where ${column} = $1`,
    [id],
  );
  return Number(rows[0]?.n);
}

async function commitments(): Promise<Tables<'signal_commitments'>[]> {
  const { data, error } = await t.anon<Database>().from('signal_commitments').select('*').order('seq');
  expect(error).toBeNull();
  return data ?? [];
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Posts `body` as the engine does: signed with the secret, stamped with the time of sending plus `skew` seconds,
 * unless headers say otherwise. The stamp is taken as the request leaves, so a slow run moves it with the clock.
 */
async function post(body: unknown, opts: { skew?: number; secret?: string; headers?: Record<string, string> } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000) + (opts.skew ?? 0));
  const signature = await sign(await signingKey(opts.secret ?? SECRET), ts, raw);
  const res = await fetch(`${t.url}/functions/v1/signals-ingest`, {
    method: 'POST',
    body: raw,
    headers: {
      'Content-Type': 'application/json',
      'X-Signal-Timestamp': ts,
      'X-Signal-Signature': signature,
      ...opts.headers,
    },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('signals-ingest: the engine posts signed signals and events', () => {
  test('201 stored, 200 the same again, 409 the same id with other content; one row and one commitment', async () => {
    const s = opened();
    const body = { type: 'signal.opened', ...s };
    expect(await post(body)).toEqual({ status: 201, body: { id: s.id, outcome: 'stored' } });
    expect(await post(body)).toEqual({ status: 200, body: { id: s.id, outcome: 'duplicate' } });
    const other = await post({ ...body, take_profit: [1.09, 1.095, 1.105] });
    expect(other).toMatchObject({ status: 409, body: { code: 'ledger_conflict', field: 'id' } });
    expect(await countOf('signals', 'id', s.id)).toBe(1);
    expect(await countOf('signal_commitments', 'signal_id', s.id)).toBe(1);
    const { data } = await t.admin<Database>().from('signals').select('tp3, status').eq('id', s.id).single();
    expect(data).toEqual({ tp3: 1.1, status: 'active' });
  });

  test('events: 201 moves the signal, 200 again, 409 changed, 400 for an unknown or closed signal', async () => {
    const s = opened();
    await post({ type: 'signal.opened', ...s });
    const tp1 = { type: 'signal.event', ...event(s.id, 'tp1_hit') };
    expect((await post(tp1)).status).toBe(201);
    expect(await stored(s.id)).toMatchObject({ status: 'tp1_hit' });
    expect((await post(tp1)).status).toBe(200);
    expect(await post({ ...tp1, price: 1.0905 })).toMatchObject({ status: 409, body: { code: 'ledger_conflict' } });
    const unknown = { type: 'signal.event', ...event(uid('missing'), 'tp1_hit') };
    expect(await post(unknown)).toMatchObject({ status: 400, body: { code: 'invalid_input', field: 'signal_id' } });
    expect((await post({ type: 'signal.event', ...event(s.id, 'sl_hit', { price: 1.08 }) })).status).toBe(201);
    const late = { type: 'signal.event', ...event(s.id, 'closed', { price: 1.1 }) };
    expect(await post(late)).toMatchObject({ status: 400, body: { code: 'invalid_input', field: 'signal_id' } });
    expect(await countOf('signal_events', 'id', late.id)).toBe(0);
    expect(await countOf('signal_events', 'id', unknown.id)).toBe(0);
    expect(await stored(s.id)).toMatchObject({ status: 'sl_hit', exit_price: 1.08 });
  });

  test('400 naming the field for bad input; nothing stored', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'signal.opened', ...opened({ pair: 'EURUSD' }) }, 'pair'],
      [{ type: 'signal.opened', ...opened({ stop_loss: 1.09 }) }, 'stop_loss'],
      [{ type: 'signal.opened', ...opened({ take_profit: [1.1, 1.095, 1.09] }) }, 'take_profit'],
      [{ type: 'signal.opened', ...opened({ timeframe: 'W1' }) }, 'timeframe'],
    ];
    for (const [body, field] of cases) {
      expect(await post(body)).toMatchObject({ status: 400, body: { code: 'invalid_input', field } });
      expect(await countOf('signals', 'id', body.id as string)).toBe(0);
    }
    expect(await post('[1]')).toMatchObject({ status: 400, body: { code: 'bad_json' } });
  });

  test('401 for a missing, wrong or stale signature, 413 over 16 KB; nothing stored', async () => {
    const s = opened();
    const body = { type: 'signal.opened', ...s };
    // Twice the 300 s window either way: the edge itself is unit-tested against a fixed clock
    // (tests/unit/functions/signals-ingest.test.ts); here a second of a busy run must not decide the answer.
    const refusals = [
      await post(body, { secret: `${SECRET}-not-ours` }),
      await post(body, { skew: -600 }),
      await post(body, { skew: 600 }),
      await post(body, { headers: { 'X-Signal-Signature': '' } }),
    ];
    for (const r of refusals) expect(r).toMatchObject({ status: 401, body: { code: 'invalid_signature' } });
    const big = await post({ ...body, padding: 'x'.repeat(16 * 1024) });
    expect(big).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    expect(await countOf('signals', 'id', s.id)).toBe(0);
    // Within the window, either way, it is taken.
    expect((await post(body, { skew: -240 })).status).toBe(201);
  });

  test('20 concurrent posts of one signal: one 201, nineteen 200, one row and one commitment', async () => {
    const s = opened();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post({ type: 'signal.opened', ...s })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    expect(await countOf('signals', 'id', s.id)).toBe(1);
    expect(await countOf('signal_commitments', 'signal_id', s.id)).toBe(1);
  });
});

describe('signals and their commitment', () => {
  test('a new signal is stored active with its stop in force and one commitment; the same again is a duplicate', async () => {
    const s = opened();
    expect(await ingestSignal(s)).toEqual({ outcome: 'stored' });
    expect(await stored(s.id)).toMatchObject({ status: 'active', current_stop: 1.08, closed_at: null, entry: 1.085 });
    expect(await ingestSignal(s)).toEqual({ outcome: 'duplicate' });
    // The same numbers written otherwise are the same content.
    expect(await ingestSignal({ ...s, entry: '1.08500' })).toEqual({ outcome: 'duplicate' });
    expect(await ingestSignal({ ...s, tp1: 1.091, take_profit: [1.091, 1.095, 1.1] })).toEqual({
      outcome: 'conflict',
    });
    expect(await countOf('signals', 'id', s.id)).toBe(1);
    expect(await countOf('signal_commitments', 'signal_id', s.id)).toBe(1);
    const { data } = await t.admin<Database>().from('signals').select('risk_reward').eq('id', s.id).single();
    expect(data?.risk_reward).toBe(1);
  });

  test('terms the ledger refuses store nothing and commit nothing', async () => {
    const cases = [
      opened({ pair: 'EURUSD' }),
      opened({ stop_loss: 1.09 }),
      opened({ direction: 'SELL' }),
      opened({ take_profit: [1.095, 1.09, 1.1] }),
      opened({ tier: 'platinum' }),
      opened({ issued_at: '2026-11-26T10:00:00.000123Z' }),
    ];
    for (const s of cases) {
      expect((await ingestSignal(s)).outcome, JSON.stringify(s)).toBe('invalid');
      expect(await countOf('signals', 'id', s.id)).toBe(0);
      expect(await countOf('signal_commitments', 'signal_id', s.id)).toBe(0);
    }
  });

  test('the commitments chain: seq 1, 2, 3... without gaps, each hash over seq, the previous hash and the content', async () => {
    for (let i = 0; i < 3; i++) expect((await ingestSignal(opened())).outcome).toBe('stored');
    const chain = await commitments();
    expect(chain.length).toBeGreaterThanOrEqual(3);
    chain.forEach((c, i) => {
      expect(c.seq).toBe(i + 1);
      expect(c.prev_hash).toBe(i === 0 ? '0'.repeat(64) : chain[i - 1]?.hash);
      expect(c.hash).toBe(sha256(`${c.seq}:${c.prev_hash}:${c.content_hash}`));
    });
  });

  test("a commitment's content hash is the SHA-256 of the signal's canonical JSON, written exactly", async () => {
    const s = opened({ entry: '1.08500', issued_at: '2026-11-26T12:34:56.789+02:00' });
    await ingestSignal(s);
    const expected =
      `{"id":"${s.id}","tier":"growth","pair":"EUR/USD","direction":"BUY","entry":1.085,"stop_loss":1.08,` +
      '"take_profit":[1.09,1.095,1.1],"timeframe":"H1","issued_at":"2026-11-26T10:34:56.789Z"}';
    const [row] = await t.stack.ctx.db.query<{ json: string }>(
      'select public.signal_canonical_json(s) as json from public.signals s where id = $1',
      [s.id],
    );
    expect(row?.json).toBe(expected);
    const { data } = await t.anon<Database>().from('signal_commitments').select('content_hash').eq('signal_id', s.id);
    expect(data).toEqual([{ content_hash: sha256(expected) }]);
  });

  test('20 concurrent inserts of one signal: one row, one commitment, the rest duplicates', async () => {
    const s = opened();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => ingestSignal(s)));
    expect(outcomes.filter((o) => o.outcome === 'stored')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'duplicate')).toHaveLength(19);
    expect(await countOf('signals', 'id', s.id)).toBe(1);
    expect(await countOf('signal_commitments', 'signal_id', s.id)).toBe(1);
  });
});

describe('events move a signal forward only', () => {
  test('tp1, a moved stop, tp2 and tp3: the status follows, the stop moves, the exit is TP3', async () => {
    const s = opened();
    await ingestSignal(s);
    const tp1 = event(s.id, 'tp1_hit', { price: 1.09 });
    expect(await ingestEvent(tp1)).toEqual({ outcome: 'stored' });
    expect(await stored(s.id)).toMatchObject({ status: 'tp1_hit', current_stop: 1.08 });
    expect(await ingestEvent(tp1)).toEqual({ outcome: 'duplicate' });
    expect(await ingestEvent({ ...tp1, price: 1.0901 })).toEqual({ outcome: 'conflict' });
    expect(await ingestEvent(event(s.id, 'stop_moved', { price: 1.09, stop_loss: 1.085 }))).toEqual({
      outcome: 'stored',
    });
    expect(await stored(s.id)).toMatchObject({ status: 'tp1_hit', current_stop: 1.085 });
    expect(await ingestEvent(event(s.id, 'tp2_hit', { price: 1.095 }))).toEqual({ outcome: 'stored' });
    expect(await ingestEvent(event(s.id, 'tp3_hit', { price: 1.1, at: '2026-11-26T13:00:00.000Z' }))).toEqual({
      outcome: 'stored',
    });
    expect(await stored(s.id)).toMatchObject({ status: 'tp3_hit', exit_price: 1.1 });
    expect((await stored(s.id))?.closed_at).toEqual(new Date('2026-11-26T13:00:00.000Z'));
    expect(await countOf('signal_events', 'signal_id', s.id)).toBe(4);
  });

  test('backwards, after a final state, before the issue or for an unknown signal: refused naming the field, nothing stored', async () => {
    const s = opened();
    await ingestSignal(s);
    await ingestEvent(event(s.id, 'tp2_hit'));
    const refusals: [Record<string, unknown>, string][] = [
      [event(s.id, 'tp1_hit'), 'kind'],
      [event(s.id, 'tp2_hit'), 'kind'],
      [event(s.id, 'sl_hit', { at: '2026-11-26T09:00:00.000Z' }), 'at'],
      [event(uid('missing'), 'tp1_hit'), 'signal_id'],
    ];
    for (const [e, field] of refusals) {
      expect(await ingestEvent(e), JSON.stringify(e)).toMatchObject({ outcome: 'invalid', field });
      expect(await countOf('signal_events', 'id', e.id as string)).toBe(0);
    }
    expect(await ingestEvent(event(s.id, 'sl_hit', { price: 1.08 }))).toEqual({ outcome: 'stored' });
    expect(await stored(s.id)).toMatchObject({ status: 'sl_hit', exit_price: 1.08 });
    for (const kind of ['closed', 'cancelled', 'expired', 'stop_moved']) {
      const late = event(s.id, kind, kind === 'stop_moved' ? { stop_loss: 1.07 } : {});
      expect(await ingestEvent(late)).toMatchObject({ outcome: 'invalid', field: 'signal_id' });
    }
    expect(await stored(s.id)).toMatchObject({ status: 'sl_hit', exit_price: 1.08, current_stop: 1.08 });
  });

  test('expired and cancelled close an open signal without an exit price', async () => {
    for (const kind of ['expired', 'cancelled']) {
      const s = opened();
      await ingestSignal(s);
      expect(await ingestEvent(event(s.id, kind, { price: null }))).toEqual({ outcome: 'stored' });
      expect(await stored(s.id)).toMatchObject({ status: kind, exit_price: null });
    }
  });
});

describe('nothing rewrites history', () => {
  let s: ReturnType<typeof opened>;
  let e: ReturnType<typeof event>;
  const snapshot = async () =>
    t.stack.ctx.db.query(
      `select (select row_to_json(x)::text from public.signals x where id = $1) as signal,
              (select json_agg(x)::text from public.signal_events x where signal_id = $1) as events,
              (select json_agg(x)::text from public.signal_commitments x) as commitments`,
      [s.id],
    );
  beforeAll(async () => {
    s = opened();
    e = event(s.id, 'tp1_hit');
    await ingestSignal(s);
    await ingestEvent(e);
  });

  test('service_role through REST: updates and deletes of signals, events and commitments are refused', async () => {
    const before = await snapshot();
    const admin = t.admin<Database>();
    const attempts = [
      admin.from('signals').update({ entry: 1.2 }).eq('id', s.id),
      admin.from('signals').update({ status: 'tp3_hit' }).eq('id', s.id),
      admin.from('signals').delete().eq('id', s.id),
      admin.from('signal_events').update({ price: 1.2 }).eq('id', e.id),
      admin.from('signal_events').delete().eq('id', e.id),
      admin
        .from('signal_commitments')
        .update({ hash: '0'.repeat(64) })
        .eq('signal_id', s.id),
      admin.from('signal_commitments').delete().eq('signal_id', s.id),
      admin.from('signal_commitments').insert({
        seq: 999_999,
        signal_id: s.id,
        content_hash: '0'.repeat(64),
        prev_hash: '0'.repeat(64),
        hash: '0'.repeat(64),
      }),
    ];
    for (const attempt of attempts) {
      const { error } = await attempt;
      expect(error?.code).toBe('42501');
    }
    expect(await snapshot()).toEqual(before);
  });

  test('the database owner through SQL: every rewrite is refused by the triggers', async () => {
    const before = await snapshot();
    const statements: [string, unknown[]][] = [
      ['update public.signals set entry = 1.2 where id = $1', [s.id]],
      ['update public.signals set status = $2, closed_at = now() where id = $1', [s.id, 'tp3_hit']],
      ['update public.signals set current_stop = 1.07 where id = $1', [s.id]],
      ['delete from public.signals where id = $1', [s.id]],
      ['update public.signal_events set price = 1.2 where signal_id = $1', [s.id]],
      ['delete from public.signal_events where signal_id = $1', [s.id]],
      ['update public.signal_commitments set committed_at = now() where signal_id = $1', [s.id]],
      ['delete from public.signal_commitments where signal_id = $1', [s.id]],
      [
        `insert into public.signal_commitments (seq, signal_id, content_hash, prev_hash, hash)
         values (999999, $1, repeat('0', 64), repeat('0', 64), repeat('1', 64))`,
        [s.id],
      ],
      // With cascade, so that the tables that refer to the ledger (the alert outbox) do not refuse it first.
      ['truncate public.signal_events cascade', []],
      ['truncate public.signal_commitments cascade', []],
    ];
    for (const [sql, params] of statements) {
      await expect(t.stack.ctx.db.query(sql, params), sql).rejects.toThrow(/append-only|written by the insert/);
    }
    expect(await snapshot()).toEqual(before);
  });

  test("deleting a member's account leaves the ledger as it was", async () => {
    const leaving = await createMember(t, 'ledger-leaving');
    const before = await snapshot();
    const { error } = await t.admin().auth.admin.deleteUser(leaving.id);
    expect(error).toBeNull();
    expect(await snapshot()).toEqual(before);
  });
});

describe('who reads what', () => {
  let open: ReturnType<typeof opened>;
  let closed: ReturnType<typeof opened>;
  beforeAll(async () => {
    open = opened();
    closed = opened({ pair: 'USD/JPY', entry: 150.25, stop_loss: 149.75, take_profit: [150.75, 151.25, 152] });
    await ingestSignal(open);
    await ingestSignal(closed);
    await ingestEvent(event(open.id, 'tp1_hit'));
    await ingestEvent(event(closed.id, 'sl_hit', { price: 149.75 }));
  });

  test("a visitor reads a closed signal and its events, an open one's commitment, never an open signal's terms", async () => {
    const anon = t.anon<Database>();
    const signals = await anon.from('signals').select('id, status, entry').in('id', [open.id, closed.id]);
    expect(signals.error).toBeNull();
    expect(signals.data).toEqual([{ id: closed.id, status: 'sl_hit', entry: 150.25 }]);
    const events = await anon.from('signal_events').select('signal_id, kind').in('signal_id', [open.id, closed.id]);
    expect(events.data).toEqual([{ signal_id: closed.id, kind: 'sl_hit' }]);
    const seen = await anon.from('signal_commitments').select('signal_id').in('signal_id', [open.id, closed.id]);
    expect(seen.data?.map((c) => c.signal_id).sort()).toEqual([open.id, closed.id].sort());
  });

  test('a member reads open and closed signals and all their events', async () => {
    const client = member.client as unknown as ReturnType<typeof t.anon<Database>>;
    const signals = await client.from('signals').select('id, status').in('id', [open.id, closed.id]).order('id');
    expect(signals.error).toBeNull();
    expect(signals.data?.map((s) => s.id).sort()).toEqual([open.id, closed.id].sort());
    const events = await client.from('signal_events').select('kind').in('signal_id', [open.id, closed.id]);
    expect(events.data?.map((e) => e.kind).sort()).toEqual(['sl_hit', 'tp1_hit']);
  });

  test('a member with two-factor reads open signals only with an aal2 session; at aal1, what a visitor reads', async () => {
    const email = uniqueEmail('ledger-2fa');
    const password = `Pw-${randomUUID()}-Aa1!`;
    const created = await t.admin().auth.admin.createUser({ email, password, email_confirm: true });
    expect(created.error).toBeNull();
    const aal2 = t.anon<Database>();
    expect((await aal2.auth.signInWithPassword({ email, password })).error).toBeNull();
    const { data: factor } = await aal2.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    const verified = await aal2.auth.mfa.challengeAndVerify({
      factorId: factor?.id as string,
      code: codeFor(factor?.totp.secret as string),
    });
    expect(verified.error).toBeNull();
    const aal1 = t.anon<Database>();
    expect((await aal1.auth.signInWithPassword({ email, password })).error).toBeNull();
    const ids = [open.id, closed.id];
    const seen = async (client: typeof aal1) =>
      (await client.from('signals').select('id').in('id', ids)).data?.map((r) => r.id).sort();
    expect(await seen(aal2)).toEqual([...ids].sort());
    expect(await seen(aal1)).toEqual([closed.id]);
    const events = await aal1.from('signal_events').select('signal_id').in('signal_id', ids);
    expect(events.data).toEqual([{ signal_id: closed.id }]);
  });

  test('visitors and members write nothing and call no ingest function', async () => {
    for (const client of [t.anon<Database>(), member.client as unknown as ReturnType<typeof t.anon<Database>>]) {
      const insert = await client.from('signals').insert({ ...toRow(opened()), current_stop: 1 });
      expect(insert.error?.code).toBe('42501');
      const rpc = await client.rpc('ingest_signal', { signal: opened() });
      expect(rpc.error).not.toBeNull();
    }
  });
});

describe('anyone verifies the ledger from the public API', () => {
  /** Runs `sql` as a superuser with the triggers off: what only a rewrite behind the API's back could do. */
  const behindTheTriggers = (sql: string) =>
    t.stack.ctx.db.query(`do $$ begin perform set_config('session_replication_role', 'replica', true); ${sql}; end $$`);

  test("with the visitor's key: every commitment chains, every closed signal hashes to its commitment", async () => {
    const s = opened({ entry: 1.0855 });
    await ingestSignal(s);
    await ingestEvent(event(s.id, 'closed', { price: 1.087 }));
    const report = await verifyFromApi(t.url, t.config.anonKey);
    const [closed] = await t.stack.ctx.db.query<{ n: number }>(
      `select count(*)::int as n from public.signals
        where status in ('tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled')`,
    );
    expect(report.problems).toEqual([]);
    expect(report.entries).toBe((await commitments()).length);
    expect(report.contentChecked).toBe(Number(closed?.n));
    expect(report.contentChecked).toBeGreaterThan(0);
  });

  test("a closed signal's terms rewritten behind the triggers: the report names its seq", async () => {
    const s = opened();
    await ingestSignal(s);
    await ingestEvent(event(s.id, 'tp3_hit', { price: 1.1 }));
    const { data } = await t.anon<Database>().from('signal_commitments').select('seq').eq('signal_id', s.id).single();
    await behindTheTriggers(`update public.signals set entry = 1.0849 where id = '${s.id}'`);
    try {
      const report = await verifyFromApi(t.url, t.config.anonKey);
      expect(report.problems).toEqual([
        { seq: data?.seq, signal_id: s.id, problem: 'the signal’s content does not hash to its commitment' },
      ]);
    } finally {
      await behindTheTriggers(`update public.signals set entry = 1.085 where id = '${s.id}'`);
    }
    expect((await verifyFromApi(t.url, t.config.anonKey)).problems).toEqual([]);
  });
});

function toRow(s: ReturnType<typeof opened>) {
  const [tp1, tp2, tp3] = s.take_profit as number[];
  return {
    id: s.id,
    tier: s.tier,
    pair: s.pair,
    direction: s.direction,
    entry: s.entry as number,
    stop_loss: s.stop_loss as number,
    tp1: tp1 as number,
    tp2: tp2 as number,
    tp3: tp3 as number,
    timeframe: s.timeframe,
    issued_at: s.issued_at as string,
  };
}
