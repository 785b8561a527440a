// The channels joined on each topic, and the fan-out of a broadcast to them. A private and a public channel of
// the same name are different topics, as on hosted Realtime. A broadcast is encoded once per serializer (the
// frames carry the joined topic, which every subscriber of a topic shares) and that frame is sent to each
// subscriber, as Realtime's MessageDispatcher caches the encoded message per serializer.
import { encodeMessage, encodeUserBroadcast, type Vsn } from './serializer.ts';

/**
 * What is broadcast: a JSON broadcast (Phoenix.Socket.Broadcast: what a 1.0.0 client or the batch HTTP API
 * sends, its payload `{type, event, payload}`), or a user broadcast (what a 2.0.0 client, the single-message
 * HTTP API or the database sends: the user's event and the payload as JSON text or bytes).
 */
export type Broadcast =
  | { kind: 'json'; payload: unknown }
  | {
      kind: 'user';
      userEvent: string;
      encoding: 'json' | 'binary';
      body: Buffer;
      metadata?: Record<string, unknown>;
    };

export interface Frame {
  data: Buffer;
  binary: boolean;
}

export interface Subscriber {
  readonly vsn: Vsn;
  readonly joinTopic: string;
  /** False for a private channel whose token may not read broadcasts (joined for presence only). */
  readonly broadcastRead: boolean;
  /** Ids of stored messages already replayed to this subscriber. */
  readonly replayedIds?: ReadonlySet<string>;
  deliver(frame: Frame): void;
}

/** The frame a subscriber of `vsn` gets for `b` on `joinTopic`; null when it cannot have one (bytes to 1.0.0). */
export function encodeBroadcast(vsn: Vsn, joinTopic: string, b: Broadcast): Frame | null {
  if (b.kind === 'json') {
    const text = encodeMessage(vsn, {
      joinRef: null,
      ref: null,
      topic: joinTopic,
      event: 'broadcast',
      payload: b.payload,
    });
    return { data: Buffer.from(text, 'utf8'), binary: false };
  }
  if (vsn === '2.0.0') {
    return { data: encodeUserBroadcast(joinTopic, b.userEvent, b.metadata, b.encoding, b.body), binary: true };
  }
  // 1.0.0 cannot carry bytes; JSON is converted to a JSON broadcast (UserBroadcast.convert_to_json_broadcast).
  if (b.encoding !== 'json') return null;
  let payload: unknown;
  try {
    payload = JSON.parse(b.body.toString('utf8'));
  } catch {
    return null;
  }
  const converted: Record<string, unknown> = { event: b.userEvent, payload, type: 'broadcast' };
  if (b.metadata) converted.meta = b.metadata;
  return encodeBroadcast(vsn, joinTopic, { kind: 'json', payload: converted });
}

/** A message's stored id (meta.id), as the dispatcher reads it to skip what a channel has had replayed. */
function messageId(b: Broadcast): string | undefined {
  const meta = b.kind === 'user' ? b.metadata : (b.payload as { meta?: Record<string, unknown> } | null)?.meta;
  return typeof meta?.id === 'string' ? meta.id : undefined;
}

export const topicKey = (subTopic: string, isPrivate: boolean) => `${isPrivate ? 'private' : 'public'}:${subTopic}`;

export class Hub {
  readonly #topics = new Map<string, Set<Subscriber>>();

  subscribe(key: string, sub: Subscriber): void {
    let subs = this.#topics.get(key);
    if (!subs) {
      subs = new Set();
      this.#topics.set(key, subs);
    }
    subs.add(sub);
  }

  unsubscribe(key: string, sub: Subscriber): void {
    const subs = this.#topics.get(key);
    if (!subs) return;
    subs.delete(sub);
    if (subs.size === 0) this.#topics.delete(key);
  }

  subscribers(key: string): ReadonlySet<Subscriber> {
    return this.#topics.get(key) ?? new Set();
  }

  /** Sends `b` to every subscriber of the topic that may read broadcasts, except `from` (no `self`). */
  broadcast(subTopic: string, isPrivate: boolean, b: Broadcast, from?: Subscriber): number {
    const subs = this.#topics.get(topicKey(subTopic, isPrivate));
    if (!subs) return 0;
    const frames = new Map<Vsn, Frame | null>();
    const id = messageId(b);
    let sent = 0;
    for (const sub of subs) {
      if (sub === from || !sub.broadcastRead) continue;
      if (id !== undefined && sub.replayedIds?.has(id)) continue;
      let frame = frames.get(sub.vsn);
      if (frame === undefined) {
        // A frame that cannot be encoded (a field over 255 bytes in a binary frame) goes to no one of that serializer.
        try {
          frame = encodeBroadcast(sub.vsn, sub.joinTopic, b);
        } catch {
          frame = null;
        }
        frames.set(sub.vsn, frame);
      }
      if (frame) {
        sub.deliver(frame);
        sent += 1;
      }
    }
    return sent;
  }
}
