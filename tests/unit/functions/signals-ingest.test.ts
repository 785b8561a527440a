// signals-ingest without a network: the signature check, the payload's rules, and the handler's answers over a
// fake ledger (the real one is in tests/integration/signals-ledger.test.ts).
import { describe, expect, test } from 'vitest';
import { envFrom } from '../../../supabase/functions/_shared/env.ts';
import { createHandler, MAX_INGEST_BYTES } from '../../../supabase/functions/signals-ingest/handler.ts';
import type { IngestDeps } from '../../../supabase/functions/signals-ingest/ingest.ts';
import { validatePayload } from '../../../supabase/functions/signals-ingest/payload.ts';
import { checkSignature, sign, signingKey } from '../../../supabase/functions/signals-ingest/signature.ts';

const SECRET = 'unit-test-signals-ingest-secret-0123456789';
const NOW = Date.parse('2026-11-26T12:00:00Z');
const TS = String(NOW / 1000);
const bytes = (s: string) => new TextEncoder().encode(s);

const signal = (overrides: Record<string, unknown> = {}) => ({
  type: 'signal.opened',
  id: 'sig-1',
  tier: 'growth',
  pair: 'EUR/USD',
  direction: 'BUY',
  entry: 1.085,
  stop_loss: 1.08,
  take_profit: [1.09, 1.095, 1.1],
  timeframe: 'H1',
  issued_at: '2026-11-26T10:00:00Z',
  ...overrides,
});
const event = (overrides: Record<string, unknown> = {}) => ({
  type: 'signal.event',
  id: 'ev-1',
  signal_id: 'sig-1',
  kind: 'tp1_hit',
  price: 1.09,
  at: '2026-11-26T11:00:00.000Z',
  ...overrides,
});

describe('the signature', () => {
  test('v1= HMAC-SHA256 of "<timestamp>.<raw body>" is accepted; anything else is refused with a reason', async () => {
    const key = await signingKey(SECRET);
    const body = '{"a":1}';
    const good = await sign(key, TS, body);
    expect(good).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(await checkSignature(key, TS, good, bytes(body), NOW)).toEqual({ ok: true });
    // A rotation sends two: one good one is enough.
    expect(await checkSignature(key, TS, `v1=${'0'.repeat(64)}, ${good}`, bytes(body), NOW)).toEqual({ ok: true });
    const refused: [string | null, string | null, string, number, RegExp][] = [
      [null, good, body, NOW, /required/],
      [TS, null, body, NOW, /required/],
      ['12.5', good, body, NOW, /unix seconds/],
      [TS, good, '{"a":2}', NOW, /does not match/],
      [TS, good.replace('v1=', 'v0='), body, NOW, /does not match/],
      [TS, good.slice(0, -2), body, NOW, /does not match/],
      [TS, await sign(await signingKey(`${SECRET}-other`), TS, body), body, NOW, /does not match/],
      [TS, good, body, NOW + 301_000, /more than 300 seconds/],
      [TS, good, body, NOW - 301_000, /more than 300 seconds/],
    ];
    for (const [ts, sig, b, now, reason] of refused) {
      const check = await checkSignature(key, ts, sig, bytes(b), now);
      expect(check.ok).toBe(false);
      expect(check.ok ? '' : check.reason).toMatch(reason);
    }
    expect(await checkSignature(key, TS, good, bytes(body), NOW + 299_000)).toEqual({ ok: true });
  });

  test.each([[undefined], [''], ['short']])('SIGNALS_INGEST_SECRET %j is refused, naming it', async (secret) => {
    await expect(signingKey(secret)).rejects.toThrow(/SIGNALS_INGEST_SECRET must be set/);
  });
});

describe('the payload', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['unknown type', { ...signal(), type: 'signal.moved' }, 'type'],
    ['pair without a slash', signal({ pair: 'EURUSD' }), 'pair'],
    ['pair in lower case', signal({ pair: 'eur/usd' }), 'pair'],
    ['pair of one currency', signal({ pair: 'USD/USD' }), 'pair'],
    ['BUY with the stop above entry', signal({ stop_loss: 1.09 }), 'stop_loss'],
    ['SELL with the stop below entry', signal({ direction: 'SELL' }), 'stop_loss'],
    ['take-profits out of order', signal({ take_profit: [1.095, 1.09, 1.1] }), 'take_profit'],
    ['a take-profit behind entry', signal({ take_profit: [1.08, 1.095, 1.1] }), 'take_profit'],
    ['two take-profits', signal({ take_profit: [1.09, 1.095] }), 'take_profit'],
    ['a price as text', signal({ entry: '1.085' }), 'entry'],
    ['seven decimals', signal({ entry: 1.0850001 }), 'entry'],
    ['unknown tier', signal({ tier: 'platinum' }), 'tier'],
    ['unknown timeframe', signal({ timeframe: 'W1' }), 'timeframe'],
    ['time without a zone', signal({ issued_at: '2026-11-26T10:00:00' }), 'issued_at'],
    ['microseconds', signal({ issued_at: '2026-11-26T10:00:00.000001Z' }), 'issued_at'],
    ['id with a slash', signal({ id: 'a/b' }), 'id'],
    ['a key of its own', signal({ note: 'x' }), 'note'],
    ['missing entry', signal({ entry: undefined }), 'entry'],
    ['unknown kind', event({ kind: 'tp4_hit' }), 'kind'],
    ['tp1 without a price', event({ price: undefined }), 'price'],
    ['stop_moved without the stop', event({ kind: 'stop_moved' }), 'stop_loss'],
    ['a stop on another kind', event({ stop_loss: 1.08 }), 'stop_loss'],
    ['event without signal_id', event({ signal_id: undefined }), 'signal_id'],
  ])('%s: refused, naming %s', (_name, input, field) => {
    const result = validatePayload(JSON.parse(JSON.stringify(input)));
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.field).toBe(field);
    expect(result.ok ? '' : result.error).toMatch(new RegExp(`^${field} `));
  });

  test('good payloads pass, times in UTC to the millisecond', () => {
    expect(validatePayload(signal({ issued_at: '2026-11-26T12:00:00.5+02:00' }))).toEqual({
      ok: true,
      payload: { ...signal(), issued_at: '2026-11-26T10:00:00.500Z' },
    });
    const sell = signal({ direction: 'SELL', stop_loss: 1.09, take_profit: [1.08, 1.075, 1.07] });
    expect(validatePayload(sell).ok).toBe(true);
    expect(validatePayload(event({ kind: 'stop_moved', stop_loss: 1.085 })).ok).toBe(true);
    expect(validatePayload(event({ kind: 'expired', price: undefined })).ok).toBe(true);
  });
});

describe('the handler over a fake ledger', () => {
  function setup(answer: unknown) {
    const calls: [string, Record<string, unknown>][] = [];
    const deps: IngestDeps = {
      async call(fn, args) {
        calls.push([fn, args]);
        return answer;
      },
    };
    const handler = createHandler(envFrom({ SIGNALS_INGEST_SECRET: SECRET }), { deps, now: () => NOW });
    return { handler, calls };
  }
  async function post(handler: (r: Request) => Promise<Response>, body: string, ts = TS) {
    const sig = await sign(await signingKey(SECRET), ts, body);
    return handler(
      new Request('http://x/functions/v1/signals-ingest', {
        method: 'POST',
        body,
        headers: { 'X-Signal-Timestamp': ts, 'X-Signal-Signature': sig },
      }),
    );
  }

  test.each<[string, number, Record<string, unknown>]>([
    ['stored', 201, { id: 'sig-1', outcome: 'stored' }],
    ['duplicate', 200, { id: 'sig-1', outcome: 'duplicate' }],
    ['conflict', 409, { code: 'ledger_conflict', field: 'id' }],
  ])('the ledger says %s: %i', async (outcome, status, body) => {
    const { handler, calls } = setup({ outcome });
    const res = await post(handler, JSON.stringify(signal()));
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject(body);
    const { type: _type, ...stored } = signal({ issued_at: '2026-11-26T10:00:00.000Z' });
    expect(calls).toEqual([['ingest_signal', { signal: stored }]]);
  });

  test("the ledger's refusal names the payload's field", async () => {
    const { handler } = setup({ outcome: 'invalid', field: 'signal_id', message: 'Signal sig-1 is already sl_hit.' });
    const res = await post(handler, JSON.stringify(event()));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'Signal sig-1 is already sl_hit.',
      code: 'invalid_input',
      field: 'signal_id',
    });
  });

  test('unsigned, stale, over 16 KB, not JSON, bad input or another method: refused before the ledger', async () => {
    const { handler, calls } = setup({ outcome: 'stored' });
    const unsigned = await handler(new Request('http://x/', { method: 'POST', body: JSON.stringify(signal()) }));
    expect([unsigned.status, (await unsigned.json()).code]).toEqual([401, 'invalid_signature']);
    const stale = await post(handler, JSON.stringify(signal()), String(NOW / 1000 - 301));
    expect([stale.status, (await stale.json()).code]).toEqual([401, 'invalid_signature']);
    const big = await post(handler, JSON.stringify(signal({ id: 'x'.repeat(MAX_INGEST_BYTES) })));
    expect([big.status, (await big.json()).code]).toEqual([413, 'payload_too_large']);
    const notJson = await post(handler, 'not json');
    expect([notJson.status, (await notJson.json()).code]).toEqual([400, 'bad_json']);
    const bad = await post(handler, JSON.stringify(signal({ pair: 'EURUSD' })));
    expect(await bad.json()).toMatchObject({ code: 'invalid_input', field: 'pair' });
    const get = await handler(new Request('http://x/', { method: 'GET' }));
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);
    expect(calls).toEqual([]);
  });

  test('without SIGNALS_INGEST_SECRET every request is refused (500) and nothing reaches the ledger', async () => {
    const calls: unknown[] = [];
    const handler = createHandler(envFrom({}), {
      deps: { call: async (...args) => calls.push(args) },
      now: () => NOW,
    });
    const res = await post(handler, JSON.stringify(signal()));
    expect([res.status, (await res.json()).code]).toEqual([500, 'unexpected_failure']);
    expect(calls).toEqual([]);
  });
});
