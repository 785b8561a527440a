// Presence, as Phoenix.Presence keeps it for a Realtime channel: per topic, each key's metas (one per channel
// that tracks it, with its phx_ref); a join gets `presence_state`, every change goes to the topic's channels
// that may read presence as `presence_diff` {joins, leaves}.
import { randomBytes } from 'node:crypto';
import type { Channel } from './socket.ts';

type Meta = Record<string, unknown> & { phx_ref: string };
type Metas = Record<string, { metas: Meta[] }>;

const phxRef = () => randomBytes(8).toString('base64url');

export class Presence {
  /** Topic key -> channel -> its tracked meta. */
  readonly #tracked = new Map<string, Map<Channel, Meta>>();
  readonly #subscribers: (key: string) => Iterable<Channel>;

  constructor(subscribers: (key: string) => Iterable<Channel>) {
    this.#subscribers = subscribers;
  }

  state(key: string): Metas {
    const out: Metas = {};
    for (const [channel, meta] of this.#tracked.get(key) ?? []) {
      const entry = out[channel.presenceKey] ?? { metas: [] };
      entry.metas.push(meta);
      out[channel.presenceKey] = entry;
    }
    return out;
  }

  sendState(channel: Channel): void {
    channel.push('presence_state', this.state(channel.key));
  }

  track(channel: Channel, payload: Record<string, unknown>): void {
    let byChannel = this.#tracked.get(channel.key);
    if (!byChannel) {
      byChannel = new Map();
      this.#tracked.set(channel.key, byChannel);
    }
    const previous = byChannel.get(channel);
    const meta: Meta = { ...payload, phx_ref: phxRef() };
    if (previous) meta.phx_ref_prev = previous.phx_ref;
    byChannel.set(channel, meta);
    const joins = { [channel.presenceKey]: { metas: [meta] } };
    const leaves = previous ? { [channel.presenceKey]: { metas: [previous] } } : {};
    this.#diff(channel.key, joins, leaves);
  }

  untrackChannel(channel: Channel): void {
    const byChannel = this.#tracked.get(channel.key);
    const previous = byChannel?.get(channel);
    if (!byChannel || !previous) return;
    byChannel.delete(channel);
    if (byChannel.size === 0) this.#tracked.delete(channel.key);
    this.#diff(channel.key, {}, { [channel.presenceKey]: { metas: [previous] } });
  }

  #diff(key: string, joins: Metas, leaves: Metas): void {
    for (const sub of this.#subscribers(key)) {
      if (!sub.closed && sub.presenceRead) sub.push('presence_diff', { joins, leaves });
    }
  }
}
