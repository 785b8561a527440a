// The stack's Realtime serializers against realtime-js's own (the 2.0.0 binary frames are read and written by
// the real client library's Serializer), and the fan-out's one encoding per serializer.
import Serializer from '@supabase/realtime-js/dist/module/lib/serializer.js';
import { describe, expect, test } from 'vitest';
import { type Broadcast, encodeBroadcast, type Frame, Hub, type Subscriber } from '../../src/realtime/hub.ts';
import {
  decodeBinary,
  decodeText,
  encodeMessage,
  encodeReply,
  encodeUserBroadcast,
  ProtocolError,
  vsnOf,
} from '../../src/realtime/serializer.ts';

const client = new Serializer();

/** What realtime-js puts on the wire for a message. */
const clientEncode = (msg: Record<string, unknown>) => client.encode(msg as never, (out: unknown) => out) as unknown;
/** What realtime-js makes of a frame the server sent. */
const clientDecode = (raw: ArrayBuffer | string) =>
  client.decode(raw as never, (out: unknown) => out) as unknown as Record<string, unknown>;

const arrayBufferOf = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;

describe('frames from realtime-js 2.0.0', () => {
  test('a JSON broadcast push is a binary user broadcast push (kind 3) with JSON encoding', () => {
    const wire = clientEncode({
      join_ref: '1',
      ref: '2',
      topic: 'realtime:room:é',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'move', payload: { x: 1 } },
    }) as ArrayBuffer;
    const decoded = decodeBinary(Buffer.from(wire));
    expect(decoded).toMatchObject({
      kind: 'userBroadcastPush',
      push: { joinRef: '1', ref: '2', topic: 'realtime:room:é', userEvent: 'move', encoding: 'json', metadata: {} },
    });
    if (decoded.kind !== 'userBroadcastPush') throw new Error('unexpected');
    expect(JSON.parse(decoded.push.body.toString('utf8'))).toEqual({ x: 1 });
  });

  test('bytes are sent with binary encoding, untouched', () => {
    const wire = clientEncode({
      join_ref: '1',
      ref: '3',
      topic: 'realtime:t',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'blob', payload: new Uint8Array([0, 255, 7]).buffer },
    }) as ArrayBuffer;
    const decoded = decodeBinary(Buffer.from(wire));
    if (decoded.kind !== 'userBroadcastPush') throw new Error('unexpected');
    expect(decoded.push.encoding).toBe('binary');
    expect([...decoded.push.body]).toEqual([0, 255, 7]);
  });

  test('other pushes are JSON arrays the 2.0.0 text decoder reads', () => {
    const wire = clientEncode({ join_ref: '4', ref: '5', topic: 'realtime:t', event: 'phx_join', payload: { a: 1 } });
    expect(decodeText('2.0.0', wire as string)).toEqual({
      joinRef: '4',
      ref: '5',
      topic: 'realtime:t',
      event: 'phx_join',
      payload: { a: 1 },
    });
  });

  test('frames that are not the protocol are refused', () => {
    expect(() => decodeText('2.0.0', '{"topic":"t"}')).toThrow(ProtocolError);
    expect(() => decodeText('1.0.0', '[1,2,"t","e",{}]')).toThrow(ProtocolError);
    expect(() => decodeText('1.0.0', 'not json')).toThrow(ProtocolError);
    expect(() => decodeBinary(Buffer.from([9, 0, 0]))).toThrow(ProtocolError);
    expect(() => decodeBinary(Buffer.from([3, 0, 0, 200, 0, 0, 1, 65]))).toThrow(ProtocolError);
  });
});

describe('frames the server sends, as realtime-js reads them', () => {
  test('a user broadcast (kind 4) with JSON payload and metadata', () => {
    const frame = encodeUserBroadcast('realtime:room', 'signal', { id: 'abc' }, 'json', Buffer.from('{"n":1}'));
    expect(clientDecode(arrayBufferOf(frame))).toEqual({
      join_ref: null,
      ref: null,
      topic: 'realtime:room',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'signal', payload: { n: 1 }, meta: { id: 'abc' } },
    });
  });

  test('a user broadcast with bytes arrives as an ArrayBuffer', () => {
    const frame = encodeUserBroadcast('realtime:room', 'blob', undefined, 'binary', Buffer.from([1, 2, 3]));
    const decoded = clientDecode(arrayBufferOf(frame));
    const payload = decoded.payload as { payload: ArrayBuffer; meta?: unknown };
    expect([...new Uint8Array(payload.payload)]).toEqual([1, 2, 3]);
    expect(payload.meta).toBeUndefined();
  });

  test('replies and pushes: arrays for 2.0.0, objects without join_ref for 1.0.0', () => {
    expect(clientDecode(encodeReply('2.0.0', '1', '2', 'realtime:t', 'ok', { postgres_changes: [] }))).toEqual({
      join_ref: '1',
      ref: '2',
      topic: 'realtime:t',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
    });
    expect(JSON.parse(encodeReply('1.0.0', '1', '2', 'realtime:t', 'error', { reason: 'r' }))).toEqual({
      topic: 'realtime:t',
      event: 'phx_reply',
      payload: { status: 'error', response: { reason: 'r' } },
      ref: '2',
    });
    expect(
      JSON.parse(encodeMessage('1.0.0', { joinRef: '1', ref: null, topic: 't', event: 'system', payload: {} })),
    ).toEqual({ topic: 't', event: 'system', payload: {}, ref: null });
  });

  test('a field over 255 bytes cannot be framed', () => {
    expect(() => encodeUserBroadcast('t'.repeat(256), 'e', undefined, 'json', Buffer.from('{}'))).toThrow(
      ProtocolError,
    );
  });

  test('vsn: none is 1.0.0; 1.0.x and 2.0.x are known; anything else is not', () => {
    expect([null, '', '1.0.0', '1.0.3', '2.0.0', '3.0.0', 'x'].map(vsnOf)).toEqual([
      '1.0.0',
      '1.0.0',
      '1.0.0',
      '1.0.0',
      '2.0.0',
      undefined,
      undefined,
    ]);
  });
});

describe('fan-out', () => {
  const userJson: Broadcast = { kind: 'user', userEvent: 'e', encoding: 'json', body: Buffer.from('{"a":1}') };

  test('a user broadcast is converted to a JSON broadcast for 1.0.0; bytes are not sent to 1.0.0', () => {
    const v1 = encodeBroadcast('1.0.0', 'realtime:t', { ...userJson, metadata: { id: 'x' } });
    expect(v1?.binary).toBe(false);
    expect(JSON.parse(String(v1?.data))).toEqual({
      topic: 'realtime:t',
      event: 'broadcast',
      payload: { event: 'e', payload: { a: 1 }, type: 'broadcast', meta: { id: 'x' } },
      ref: null,
    });
    expect(encodeBroadcast('1.0.0', 'realtime:t', { ...userJson, encoding: 'binary' })).toBeNull();
    expect(encodeBroadcast('2.0.0', 'realtime:t', userJson)?.binary).toBe(true);
  });

  test('one encoding per serializer, shared by every subscriber; the sender without self gets nothing', () => {
    const hub = new Hub();
    const received: { name: string; frame: Frame }[] = [];
    const sub = (name: string, vsn: '1.0.0' | '2.0.0', broadcastRead = true): Subscriber => ({
      vsn,
      joinTopic: 'realtime:t',
      broadcastRead,
      deliver: (frame) => received.push({ name, frame }),
    });
    const subs = [sub('a', '2.0.0'), sub('b', '2.0.0'), sub('c', '1.0.0'), sub('d', '1.0.0'), sub('e', '2.0.0', false)];
    for (const s of subs) hub.subscribe('public:t', s);
    hub.subscribe('private:t', sub('p', '2.0.0'));
    expect(hub.broadcast('t', false, userJson, subs[0])).toBe(3);
    expect(received.map((r) => r.name)).toEqual(['b', 'c', 'd']);
    expect(received[1]?.frame).toBe(received[2]?.frame);
    expect(received[0]?.frame.binary).toBe(true);
    expect(received[1]?.frame.binary).toBe(false);
  });

  test('an event too long for a binary frame reaches 1.0.0 subscribers only, and throws nowhere', () => {
    const hub = new Hub();
    const received: string[] = [];
    for (const [name, vsn] of [
      ['v2', '2.0.0'],
      ['v1', '1.0.0'],
    ] as const) {
      hub.subscribe('public:t', {
        vsn,
        joinTopic: 'realtime:t',
        broadcastRead: true,
        deliver: () => received.push(name),
      });
    }
    expect(hub.broadcast('t', false, { ...userJson, userEvent: 'e'.repeat(300) })).toBe(1);
    expect(received).toEqual(['v1']);
  });
});
