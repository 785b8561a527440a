// Broadcast from the database: rows inserted into realtime.messages (realtime.send, realtime.broadcast_changes
// in a trigger) reach the topic's subscribers once committed. Hosted Realtime reads them through logical
// replication; the stack through the notification its bootstrap's trigger sends at commit (20-realtime.sql):
// the row itself, or its id when the row is over NOTIFY's size, and the stack reads it.
//
// On PostgreSQL, a connection of its own LISTENs (postgres.js reconnects it). On PGlite the one session
// LISTENs; notifications reach PGlite's listeners from the stack's own statements, but those committed by a
// client of the wire-protocol socket are written to that client's raw stream, so that stream is read too.
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { Db } from '../db/types.ts';
import type { Broadcast } from './hub.ts';

export const NOTIFY_CHANNEL = 'realtime_local_messages';

export interface DbMessage {
  topic: string;
  isPrivate: boolean;
  broadcast: Broadcast;
}

interface Notified {
  id: string;
  topic?: string;
  event?: string | null;
  private?: boolean;
  payload?: unknown;
  inserted_at?: string;
}

interface Row {
  topic: string;
  event: string | null;
  private: boolean | null;
  payload: string | null;
  binary_payload: Uint8Array | null;
}

async function toMessage(db: Db, n: Notified): Promise<DbMessage | undefined> {
  const metadata = { id: n.id };
  if (n.topic !== undefined) {
    if (typeof n.event !== 'string' || n.payload === null || n.payload === undefined) return undefined;
    return {
      topic: n.topic,
      isPrivate: n.private === true,
      broadcast: {
        kind: 'user',
        userEvent: n.event,
        encoding: 'json',
        body: Buffer.from(JSON.stringify(n.payload), 'utf8'),
        metadata,
      },
    };
  }
  const [row] = await db.query<Row>(
    'select topic, event, private, payload::text as payload, binary_payload from realtime.messages where id = $1',
    [n.id],
  );
  if (!row || typeof row.event !== 'string') return undefined;
  const binary = row.binary_payload !== null && row.binary_payload !== undefined;
  if (!binary && row.payload === null) return undefined;
  return {
    topic: row.topic,
    isPrivate: row.private === true,
    broadcast: {
      kind: 'user',
      userEvent: row.event,
      encoding: binary ? 'binary' : 'json',
      body: binary ? Buffer.from(row.binary_payload as Uint8Array) : Buffer.from(row.payload as string, 'utf8'),
      metadata,
    },
  };
}

/**
 * Reads NotificationResponse messages ('A') out of PGlite's raw output to a wire-protocol client, keeping a
 * message split across chunks for the next one.
 */
function notificationSniffer(onPayload: (channel: string, payload: string) => void): (chunk: Uint8Array) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    let buf = pending.length
      ? Buffer.concat([pending, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let offset = 0;
    while (buf.length - offset >= 5) {
      const length = buf.readInt32BE(offset + 1);
      if (length < 4 || buf.length - offset < 1 + length) break;
      if (buf[offset] === 0x41) {
        const body = buf.subarray(offset + 9, offset + 1 + length);
        const end = body.indexOf(0);
        const channel = body.subarray(0, end).toString('utf8');
        const payloadEnd = body.indexOf(0, end + 1);
        onPayload(channel, body.subarray(end + 1, payloadEnd < 0 ? body.length : payloadEnd).toString('utf8'));
      }
      offset += 1 + length;
    }
    buf = buf.subarray(offset);
    pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  };
}

type RawStream = PGlite['execProtocolRawStream'];

/** Starts delivering committed broadcast rows to `deliver`; the returned function stops it. */
export async function startDbFeed(
  db: Db,
  databaseUrl: string | undefined,
  deliver: (m: DbMessage) => void,
): Promise<() => Promise<void>> {
  const onPayload = (payload: string) => {
    let n: Notified;
    try {
      n = JSON.parse(payload) as Notified;
    } catch {
      return;
    }
    toMessage(db, n).then(
      (m) => m && deliver(m),
      (err) => console.error(`realtime: could not read message ${n.id}: ${(err as Error).message}`),
    );
  };

  if (db.pglite) {
    const pg = db.pglite;
    const unlisten = await pg.listen(NOTIFY_CHANNEL, onPayload);
    const original = pg.execProtocolRawStream;
    const sniff = notificationSniffer((channel, payload) => channel === NOTIFY_CHANNEL && onPayload(payload));
    const tapped: RawStream = (message, options) =>
      original.call(pg, message, {
        ...options,
        onRawData: (chunk: Uint8Array) => {
          sniff(chunk);
          options.onRawData(chunk);
        },
      });
    pg.execProtocolRawStream = tapped;
    return async () => {
      if (pg.execProtocolRawStream === tapped) pg.execProtocolRawStream = original;
      await unlisten().catch(() => {});
    };
  }

  if (!databaseUrl) throw new Error('realtime: a PostgreSQL database without its URL');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, fetch_types: false });
  await sql.listen(NOTIFY_CHANNEL, onPayload);
  return async () => {
    await sql.end({ timeout: 5 }).catch(() => {});
  };
}

export interface StoredMessage {
  id: string;
  event: string;
  /** The JSON payload, or undefined when the message is bytes. */
  payload?: unknown;
  binary?: Buffer;
}

/**
 * The stored broadcasts of a private topic inserted since `sinceMs` (Unix ms), at most `limit` (1 to 25) of the
 * newest, oldest first, as Realtime.Messages.replay reads them.
 */
export async function replayMessages(db: Db, topic: string, sinceMs: number, limit: number): Promise<StoredMessage[]> {
  const rows = await db.query<Row & { id: string }>(
    `select id::text as id, topic, event, private, payload::text as payload, binary_payload from realtime.messages
      where topic = $1 and private is true and extension = 'broadcast'
        and inserted_at >= to_timestamp($2::double precision / 1000)::timestamp
        and inserted_at < (now() + interval '1 minute')::timestamp
      order by inserted_at desc limit $3`,
    [topic, sinceMs, Math.max(1, Math.min(25, limit))],
  );
  return rows.reverse().flatMap((row): StoredMessage[] => {
    if (typeof row.event !== 'string') return [];
    if (row.binary_payload !== null && row.binary_payload !== undefined) {
      return [{ id: row.id, event: row.event, binary: Buffer.from(row.binary_payload) }];
    }
    if (row.payload === null) return [];
    return [{ id: row.id, event: row.event, payload: JSON.parse(row.payload) }];
  });
}
