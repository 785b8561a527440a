// The frontend messages Db.batch sends to PGlite (src/db/wire.ts), read back field by field as a
// Postgres server reads them: lengths, names, parameters (long and non-ASCII ones included), and the Sync.
import { describe, expect, test } from 'vitest';
import { extendedBatch, readReply } from '../../src/db/wire.ts';

interface Message {
  type: string;
  body: Uint8Array;
}

function messages(bytes: Uint8Array): Message[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Message[] = [];
  for (let pos = 0; pos < bytes.length; ) {
    const length = view.getInt32(pos + 1);
    out.push({ type: String.fromCharCode(bytes[pos] as number), body: bytes.subarray(pos + 5, pos + 1 + length) });
    pos += 1 + length;
  }
  return out;
}

/** A Bind message's statement name and text parameters. */
function bindOf(body: Uint8Array): { statement: string; params: (string | null)[] } {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const decoder = new TextDecoder();
  let pos = body.indexOf(0) + 1; // portal
  const statementEnd = body.indexOf(0, pos);
  const statement = decoder.decode(body.subarray(pos, statementEnd));
  pos = statementEnd + 1 + 2; // no format codes
  const count = view.getInt16(pos);
  pos += 2;
  const params: (string | null)[] = [];
  for (let i = 0; i < count; i++) {
    const length = view.getInt32(pos);
    pos += 4;
    params.push(length < 0 ? null : decoder.decode(body.subarray(pos, pos + length)));
    pos += Math.max(length, 0);
  }
  return { statement, params };
}

describe('extendedBatch', () => {
  test('Parse, Bind, Describe, Execute per statement and one Sync; prepared ones are not parsed again', () => {
    const bytes = extendedBatch([
      { text: 'select $1::text', params: ['a'], name: 's1', parse: true },
      { text: 'select 2', name: 's2', parse: false },
    ]);
    expect(messages(bytes).map((m) => m.type)).toEqual(['P', 'B', 'D', 'E', 'B', 'D', 'E', 'S']);
  });

  test('parameters of any length and script keep their exact bytes, and null stays null', () => {
    const long = `{"authorization":"Bearer ${'x'.repeat(9000)}"}`;
    const params = ['', 'Zoë – 東京 🚀', long, null, 'after the long one'];
    const bind = messages(extendedBatch([{ text: 'select', params, name: 'n', parse: false }])).find(
      (m) => m.type === 'B',
    );
    expect(bindOf(bind?.body as Uint8Array)).toEqual({ statement: 'n', params });
  });

  test('evicted statements are closed first', () => {
    const list = messages(extendedBatch([{ text: 'select 1' }], ['old_1', 'old_2']));
    expect(list.slice(0, 2).map((m) => [m.type, new TextDecoder().decode(m.body)])).toEqual([
      ['C', 'Sold_1\0'],
      ['C', 'Sold_2\0'],
    ]);
  });
});

describe('readReply', () => {
  test('rows by their column names and types, each statement apart, and the transaction status', () => {
    const enc = new TextEncoder();
    const message = (type: string, ...parts: Uint8Array[]) => {
      const length = parts.reduce((n, p) => n + p.length, 4);
      const head = new Uint8Array(5);
      head[0] = type.charCodeAt(0);
      new DataView(head.buffer).setInt32(1, length);
      return [head, ...parts];
    };
    const int16 = (n: number) => new Uint8Array([n >> 8, n & 255]);
    const int32 = (n: number) => {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setInt32(0, n);
      return b;
    };
    const column = (name: string, type: number) => [
      enc.encode(`${name}\0`),
      int32(0),
      int16(0),
      int32(type),
      int16(-1),
      int32(-1),
      int16(0),
    ];
    const cell = (value: string | null) =>
      value === null ? [int32(-1)] : [int32(enc.encode(value).length), enc.encode(value)];
    const parts = [
      ...message('1'),
      ...message('T', int16(3), ...column('name', 25), ...column('n', 23), ...column('ok', 16)),
      ...message('D', int16(3), ...cell('Zoë'), ...cell('42'), ...cell('t')),
      ...message('D', int16(3), ...cell(null), ...cell('7'), ...cell('f')),
      ...message('C', enc.encode('SELECT 2\0')),
      ...message('Z', enc.encode('I')),
    ];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    expect(readReply(bytes)).toEqual({
      results: [
        [
          { name: 'Zoë', n: 42, ok: true },
          { name: null, n: 7, ok: false },
        ],
      ],
      parsed: 1,
      error: undefined,
      status: 'I',
    });
  });
});
