// The two serializers of Supabase Realtime's Phoenix socket, chosen by the `vsn` query parameter:
// - 1.0.0: Phoenix's V1 JSON serializer: each frame a JSON object {topic, event, payload, ref} (what the
//   server sends carries no join_ref; what the client sends may);
// - 2.0.0: Realtime's V2 serializer (supabase/realtime lib/realtime_web/socket/v2_serializer.ex): JSON arrays
//   [join_ref, ref, topic, event, payload], plus binary frames for broadcasts: the client's "user broadcast
//   push" (kind 3, as realtime-js's serializer encodes every broadcast it sends) and the server's "user
//   broadcast" (kind 4, as realtime-js decodes it).

export type Vsn = '1.0.0' | '2.0.0';

/** A Phoenix message: a push, a reply (event phx_reply) or a broadcast. */
export interface PhxMessage {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

/** A broadcast a client pushed in a binary frame (kind 3): its own event, and its payload as bytes. */
export interface UserBroadcastPush {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  userEvent: string;
  /** The frame's metadata (JSON object), {} when it has none. */
  metadata: Record<string, unknown>;
  encoding: 'json' | 'binary';
  /** JSON text (encoding json) or the bytes as sent. */
  body: Buffer;
}

export type Incoming =
  | { kind: 'message'; message: PhxMessage }
  | { kind: 'userBroadcastPush'; push: UserBroadcastPush };

const KIND_PUSH = 0;
const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;
const ENCODING_BINARY = 0;
const ENCODING_JSON = 1;

export class ProtocolError extends Error {}

const refOf = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** The serializer a `vsn` query parameter asks for: none given is 1.0.0 (Phoenix's default); unknown: undefined. */
export function vsnOf(param: string | null): Vsn | undefined {
  if (param === null || param === '') return '1.0.0';
  if (/^1\.0\.\d+$/.test(param)) return '1.0.0';
  if (/^2\.0\.\d+$/.test(param)) return '2.0.0';
  return undefined;
}

/** A text frame, as either serializer reads it. */
export function decodeText(vsn: Vsn, text: string): PhxMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProtocolError('frame is not JSON');
  }
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length < 5) throw new ProtocolError('expected V2 array');
    const [joinRef, ref, topic, event, payload] = parsed;
    if (typeof topic !== 'string' || typeof event !== 'string') throw new ProtocolError('expected V2 array');
    return { joinRef: refOf(joinRef), ref: refOf(ref), topic, event, payload };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ProtocolError('expected a JSON object');
  const m = parsed as Record<string, unknown>;
  if (typeof m.topic !== 'string' || typeof m.event !== 'string') throw new ProtocolError('expected topic and event');
  return { joinRef: refOf(m.join_ref), ref: refOf(m.ref), topic: m.topic, event: m.event, payload: m.payload };
}

/** A binary frame (2.0.0 only): a push with binary payload (kind 0) or a user broadcast push (kind 3). */
export function decodeBinary(buf: Buffer): Incoming {
  const kind = buf[0];
  const text = (start: number, size: number) => {
    if (start + size > buf.length) throw new ProtocolError('binary frame shorter than its header says');
    return buf.subarray(start, start + size).toString('utf8');
  };
  if (kind === KIND_USER_BROADCAST_PUSH && buf.length >= 7) {
    const [joinRefSize, refSize, topicSize, eventSize, metadataSize, encoding] = buf.subarray(1, 7);
    let offset = 7;
    const take = (size: number) => {
      const value = text(offset, size);
      offset += size;
      return value;
    };
    const joinRef = take(joinRefSize as number);
    const ref = take(refSize as number);
    const topic = take(topicSize as number);
    const userEvent = take(eventSize as number);
    const metadataText = take(metadataSize as number);
    let metadata: Record<string, unknown> = {};
    if (metadataText) {
      try {
        metadata = JSON.parse(metadataText) as Record<string, unknown>;
      } catch {
        throw new ProtocolError('binary frame metadata is not JSON');
      }
    }
    return {
      kind: 'userBroadcastPush',
      push: {
        joinRef: joinRef || null,
        ref: ref || null,
        topic,
        userEvent,
        metadata,
        encoding: encoding === ENCODING_BINARY ? 'binary' : 'json',
        body: buf.subarray(offset),
      },
    };
  }
  if (kind === KIND_PUSH && buf.length >= 5) {
    const [joinRefSize, refSize, topicSize, eventSize] = buf.subarray(1, 5);
    let offset = 5;
    const take = (size: number) => {
      const value = text(offset, size);
      offset += size;
      return value;
    };
    const joinRef = take(joinRefSize as number);
    const ref = take(refSize as number);
    const topic = take(topicSize as number);
    const event = take(eventSize as number);
    return {
      kind: 'message',
      message: { joinRef: joinRef || null, ref: ref || null, topic, event, payload: buf.subarray(offset) },
    };
  }
  throw new ProtocolError(`unknown binary frame kind ${kind}`);
}

/** A message as the server sends it in a text frame. */
export function encodeMessage(vsn: Vsn, m: PhxMessage): string {
  if (vsn === '2.0.0') return JSON.stringify([m.joinRef, m.ref, m.topic, m.event, m.payload]);
  return JSON.stringify({ topic: m.topic, event: m.event, payload: m.payload, ref: m.ref });
}

/** A reply to the push `ref` (phx_reply). */
export function encodeReply(
  vsn: Vsn,
  joinRef: string | null,
  ref: string | null,
  topic: string,
  status: 'ok' | 'error',
  response: unknown,
): string {
  return encodeMessage(vsn, { joinRef, ref, topic, event: 'phx_reply', payload: { status, response } });
}

function checkSize(what: string, bytes: Buffer): number {
  if (bytes.length > 255) throw new ProtocolError(`${what} must be less than or equal to 255 bytes`);
  return bytes.length;
}

/** The server's user broadcast (kind 4): topic, the user's event, metadata (JSON or none), payload bytes. */
export function encodeUserBroadcast(
  topic: string,
  userEvent: string,
  metadata: Record<string, unknown> | undefined,
  encoding: 'json' | 'binary',
  body: Buffer,
): Buffer {
  const t = Buffer.from(topic, 'utf8');
  const e = Buffer.from(userEvent, 'utf8');
  const m = metadata ? Buffer.from(JSON.stringify(metadata), 'utf8') : Buffer.alloc(0);
  const header = Buffer.from([
    KIND_USER_BROADCAST,
    checkSize('topic', t),
    checkSize('user_event', e),
    checkSize('metadata', m),
    encoding === 'json' ? ENCODING_JSON : ENCODING_BINARY,
  ]);
  return Buffer.concat([header, t, e, m, body]);
}
