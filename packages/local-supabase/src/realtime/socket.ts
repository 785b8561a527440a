// One WebSocket of /realtime/v1/websocket: Phoenix's socket and Supabase Realtime's channel
// (supabase/realtime lib/realtime_web/channels/realtime_channel.ex) over it. The frames of a socket are
// handled in order, one at a time.
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Db } from '../db/types.ts';
import { isDatabaseUnavailable } from '../db-unavailable.ts';
import type { Claims, JwtKeys } from '../jwt.ts';
import { broadcastWriteRight, checkToken, readRights, type TokenCheck } from './auth.ts';
import { replayMessages, type StoredMessage } from './feed.ts';
import type { Broadcast, Frame, Hub, Subscriber } from './hub.ts';
import { topicKey } from './hub.ts';
import type { Presence } from './presence.ts';
import {
  decodeBinary,
  decodeText,
  encodeMessage,
  encodeReply,
  encodeUserBroadcast,
  type Incoming,
  type PhxMessage,
  ProtocolError,
  type Vsn,
} from './serializer.ts';

export interface RealtimeEnv {
  hub: Hub;
  presence: Presence;
  db: Db;
  jwtKeys: JwtKeys;
}

/** Realtime's reason when the project's database cannot be reached for a private channel's check. */
const DATABASE_UNAVAILABLE = 'Realtime was unable to connect to the project database';

/** How often a channel checks its token again, at most (Realtime's @confirm_token_ms_interval). */
const CONFIRM_TOKEN_MS = 5 * 60 * 1000;

const TOPIC_PREFIX = 'realtime:';

type ChannelConfig = {
  broadcast?: { self?: unknown; ack?: unknown; replay?: unknown };
  presence?: { enabled?: unknown; key?: unknown };
  postgres_changes?: unknown;
  private?: unknown;
};

/** A join's token error, as the join reply's reason (realtime_channel.ex join/3's else branch). */
function joinTokenReason(check: Extract<TokenCheck, { ok: false }>): string {
  if (check.kind === 'expired') return `InvalidJWTToken: ${check.message}`;
  if (check.kind === 'missing_claims') return `InvalidJWTToken: ${check.message}`;
  return check.message;
}

/** A token error after the join (an access_token update, the periodic check), as the channel's last system message. */
function laterTokenReason(check: Extract<TokenCheck, { ok: false }>): string {
  if (check.kind === 'signature') return ':signature_error';
  return check.message;
}

export class Channel implements Subscriber {
  readonly joinTopic: string;
  readonly subTopic: string;
  readonly key: string;
  broadcastRead = true;
  presenceRead = true;
  /** Whether the token may send broadcasts on this private channel; asked of the policies at the first send. */
  broadcastWrite: boolean | undefined;
  presenceWrite: boolean | undefined;
  /** The ids of the stored messages replayed at the join: not delivered again live. */
  replayedIds: ReadonlySet<string> | undefined;
  presenceEnabled: boolean;
  readonly presenceKey: string;
  confirmTimer: NodeJS.Timeout | undefined;
  closed = false;

  readonly conn: Connection;
  readonly joinRef: string | null;
  readonly isPrivate: boolean;
  readonly selfBroadcast: boolean;
  readonly ack: boolean;
  accessToken: string;
  claims: Claims;

  constructor(
    conn: Connection,
    joinRef: string | null,
    joinTopic: string,
    options: {
      isPrivate: boolean;
      selfBroadcast: boolean;
      ack: boolean;
      presenceEnabled: boolean;
      presenceKey?: string;
    },
    accessToken: string,
    claims: Claims,
  ) {
    this.conn = conn;
    this.joinRef = joinRef;
    this.joinTopic = joinTopic;
    this.isPrivate = options.isPrivate;
    this.selfBroadcast = options.selfBroadcast;
    this.ack = options.ack;
    this.accessToken = accessToken;
    this.claims = claims;
    this.subTopic = joinTopic.slice(TOPIC_PREFIX.length);
    this.key = topicKey(this.subTopic, options.isPrivate);
    this.presenceEnabled = options.presenceEnabled;
    this.presenceKey = options.presenceKey || randomUUID();
  }

  get vsn(): Vsn {
    return this.conn.vsn;
  }

  deliver(frame: Frame): void {
    this.conn.sendFrame(frame);
  }

  /** A push from the server to this channel (system, presence_state, presence_diff, phx_close...). */
  push(event: string, payload: unknown, ref: string | null = null): void {
    this.conn.sendText(encodeMessage(this.vsn, { joinRef: this.joinRef, ref, topic: this.joinTopic, event, payload }));
  }

  reply(ref: string | null, status: 'ok' | 'error', response: unknown): void {
    this.conn.sendText(encodeReply(this.vsn, this.joinRef, ref, this.joinTopic, status, response));
  }
}

export class Connection {
  readonly channels = new Map<string, Channel>();
  #queue: Promise<void> = Promise.resolve();
  #open = true;

  readonly ws: WebSocket;
  readonly vsn: Vsn;
  /** The socket's apikey as a JWT: the token of a join that gives none, or an `sb_` key. */
  readonly tenantToken: string;
  readonly env: RealtimeEnv;

  constructor(ws: WebSocket, vsn: Vsn, tenantToken: string, env: RealtimeEnv) {
    this.ws = ws;
    this.vsn = vsn;
    this.tenantToken = tenantToken;
    this.env = env;
    ws.on('message', (data, isBinary) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      this.#queue = this.#queue.then(() => this.#onFrame(buf, isBinary)).catch((err) => this.#crash(err));
    });
    ws.on('close', () => this.#cleanup());
    ws.on('error', () => this.#cleanup());
  }

  get open(): boolean {
    return this.#open;
  }

  sendText(text: string): void {
    if (this.#open && this.ws.readyState === this.ws.OPEN) this.ws.send(text);
  }

  sendFrame(frame: Frame): void {
    if (this.#open && this.ws.readyState === this.ws.OPEN) this.ws.send(frame.data, { binary: frame.binary });
  }

  close(code: number, reason: string): void {
    this.#cleanup();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
  }

  #crash(err: unknown): void {
    if (!(err instanceof ProtocolError)) console.error('realtime: socket error', err);
    // Phoenix's socket process ends on a frame it cannot decode; the client sees the connection close.
    this.close(1011, 'internal error');
  }

  #cleanup(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const channel of this.channels.values()) this.#drop(channel);
    this.channels.clear();
  }

  /** Forgets `channel`: off its topic, its presence untracked, its token timer stopped. */
  #drop(channel: Channel): void {
    channel.closed = true;
    clearTimeout(channel.confirmTimer);
    this.env.hub.unsubscribe(channel.key, channel);
    this.env.presence.untrackChannel(channel);
  }

  /** Ends `channel` from the server's side: phx_close (Phoenix's encode_close: ref = join_ref, payload {}). */
  #closeChannel(channel: Channel): void {
    this.#drop(channel);
    if (this.channels.get(channel.joinTopic) === channel) this.channels.delete(channel.joinTopic);
    channel.push('phx_close', {}, channel.joinRef);
  }

  /** Realtime's shutdown_response: a system message with the reason, then the channel stops. */
  #shutdown(channel: Channel, message: string): void {
    if (channel.closed) return;
    channel.push('system', { extension: 'system', status: 'error', message, channel: channel.subTopic });
    this.#closeChannel(channel);
  }

  async #onFrame(buf: Buffer, isBinary: boolean): Promise<void> {
    if (!this.#open) return;
    let incoming: Incoming;
    if (isBinary) {
      if (this.vsn !== '2.0.0') throw new ProtocolError('binary frame on a 1.0.0 socket');
      incoming = decodeBinary(buf);
    } else {
      incoming = { kind: 'message', message: decodeText(this.vsn, buf.toString('utf8')) };
    }
    if (incoming.kind === 'userBroadcastPush') {
      const p = incoming.push;
      const channel = this.channels.get(p.topic);
      if (!channel) return this.#unmatched(p.topic, p.ref);
      const b: Broadcast = { kind: 'user', userEvent: p.userEvent, encoding: p.encoding, body: Buffer.from(p.body) };
      return this.#guard(channel, () => this.#broadcast(channel, p.ref, b));
    }
    const m = incoming.message;
    if (m.topic === 'phoenix' && m.event === 'heartbeat') {
      this.sendText(encodeReply(this.vsn, null, m.ref, 'phoenix', 'ok', {}));
      return;
    }
    if (m.event === 'phx_join') {
      return this.#join(m).catch((err) => {
        // Realtime's join rescue: "UnknownErrorOnChannel".
        console.error(`realtime: join of ${m.topic} failed`, err);
        this.sendText(
          encodeReply(this.vsn, m.joinRef, m.ref, m.topic, 'error', { reason: 'Unknown Error on Channel' }),
        );
      });
    }
    const channel = this.channels.get(m.topic);
    if (!channel) return this.#unmatched(m.topic, m.ref);
    return this.#guard(channel, () => this.#onChannelMessage(channel, m));
  }

  /**
   * Runs a channel's handling; a channel that fails ends alone, as a crashed channel process: phx_error
   * (ref = join ref), and realtime-js rejoins it.
   */
  async #guard(channel: Channel, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      console.error(`realtime: channel ${channel.joinTopic} failed`, err);
      this.#drop(channel);
      if (this.channels.get(channel.joinTopic) === channel) this.channels.delete(channel.joinTopic);
      channel.push('phx_error', {}, channel.joinRef);
    }
  }

  async #onChannelMessage(channel: Channel, m: PhxMessage): Promise<void> {
    switch (m.event) {
      case 'phx_leave':
        // Channel.Server: {:stop, {:shutdown, :left}, :ok}: the reply, then phx_close.
        channel.reply(m.ref, 'ok', {});
        this.#closeChannel(channel);
        return;
      case 'broadcast':
        return this.#broadcast(channel, m.ref, { kind: 'json', payload: m.payload });
      case 'access_token':
        return this.#accessToken(channel, m.payload);
      case 'presence':
        return this.#presence(channel, m.ref, m.payload);
      default:
        // Realtime ignores any other event (logged at info level).
        return;
    }
  }

  /** Phoenix's answer to a push on a topic the socket has not joined, or a join no channel route matches. */
  #unmatched(topic: string, ref: string | null): void {
    this.sendText(encodeReply(this.vsn, null, ref, topic, 'error', { reason: 'unmatched topic' }));
  }

  #tokenOf(payload: Record<string, unknown>): string {
    const given = payload.access_token ?? payload.user_token;
    if (typeof given !== 'string' || given.startsWith('sb_')) return this.tenantToken;
    return given;
  }

  async #join(m: PhxMessage): Promise<void> {
    const topic = m.topic;
    const replyError = (reason: string) =>
      this.sendText(encodeReply(this.vsn, m.joinRef, m.ref, topic, 'error', { reason }));
    if (!topic.startsWith(TOPIC_PREFIX)) return this.#unmatched(topic, m.ref);
    // A second join of a joined topic replaces the first channel (Phoenix closes the old one).
    const existing = this.channels.get(topic);
    if (existing) this.#closeChannel(existing);
    if (topic === TOPIC_PREFIX) return replyError('You must provide a topic name');

    const payload = (m.payload && typeof m.payload === 'object' ? m.payload : {}) as Record<string, unknown>;
    const config = (payload.config && typeof payload.config === 'object' ? payload.config : {}) as ChannelConfig;
    const isPrivate = config.private === true;
    const token = this.#tokenOf(payload);
    const check = await checkToken(token, this.env.jwtKeys);
    if (!check.ok) return replyError(joinTokenReason(check));

    const subTopic = topic.slice(TOPIC_PREFIX.length);
    const presenceEnabled = config.presence?.enabled === true;
    const channel = new Channel(
      this,
      m.joinRef,
      topic,
      {
        isPrivate,
        selfBroadcast: config.broadcast?.self === true,
        ack: config.broadcast?.ack === true,
        presenceEnabled,
        presenceKey: typeof config.presence?.key === 'string' ? config.presence.key : undefined,
      },
      token,
      check.claims,
    );
    if (isPrivate) {
      const denied = `You do not have permissions to read from this Channel topic: ${subTopic}`;
      try {
        const rights = await readRights(this.env.db, subTopic, check.claims, presenceEnabled);
        if (!rights.broadcastRead && !rights.presenceRead) return replyError(denied);
        channel.broadcastRead = rights.broadcastRead;
        channel.presenceRead = presenceEnabled ? rights.presenceRead : false;
      } catch (err) {
        return replyError(isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE : denied);
      }
    }
    // Replay (private channels only): the last stored broadcasts since a time, before the live ones.
    let replayed: StoredMessage[] = [];
    const replay = config.broadcast?.replay;
    if (replay !== undefined) {
      if (isPrivate && !channel.broadcastRead) {
        return replyError(`You do not have permissions to read from this Channel topic: ${subTopic}`);
      }
      if (!isPrivate) return replyError('Replay is not allowed for public channels');
      const params = (replay && typeof replay === 'object' ? replay : {}) as { since?: unknown; limit?: unknown };
      const limit = params.limit ?? 25;
      if (!Number.isInteger(params.since) || !Number.isInteger(limit)) return replyError('Replay params are not valid');
      try {
        replayed = await replayMessages(this.env.db, subTopic, params.since as number, limit as number);
      } catch {
        return replyError('Realtime was unable to replay messages');
      }
      channel.replayedIds = new Set(replayed.map((r) => r.id));
    }
    if (!this.#open) return;

    const postgresChanges = Array.isArray(config.postgres_changes)
      ? config.postgres_changes
          .filter((p): p is Record<string, unknown> => !!p && typeof p === 'object')
          .map((p, i): Record<string, unknown> => ({ ...p, id: i + 1 }))
      : [];
    this.channels.set(topic, channel);
    this.env.hub.subscribe(channel.key, channel);
    this.#scheduleConfirm(channel, check.exp);
    this.sendText(encodeReply(this.vsn, m.joinRef, m.ref, topic, 'ok', { postgres_changes: postgresChanges }));
    if (postgresChanges.length) {
      // The stack does not stream database changes: the answer hosted Realtime gives when it cannot
      // subscribe to the requested changes.
      const described = postgresChanges
        .map(
          (p) => `[event: ${p.event ?? '*'}, schema: ${p.schema ?? 'public'}, table: ${p.table ?? '*'}, filters: []]`,
        )
        .join(', ');
      channel.push('system', {
        extension: 'postgres_changes',
        status: 'error',
        message: `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: ${described}`,
        channel: subTopic,
      });
    }
    for (const message of replayed) {
      const meta = { replayed: true, id: message.id };
      if (message.binary) {
        // 1.0.0 cannot carry bytes: such a message is not replayed to it.
        if (this.vsn === '2.0.0') {
          this.sendFrame({
            data: encodeUserBroadcast(topic, message.event, meta, 'binary', message.binary),
            binary: true,
          });
        }
      } else {
        channel.push('broadcast', { payload: message.payload, event: message.event, type: 'broadcast', meta });
      }
    }
    if (presenceEnabled) this.env.presence.sendState(channel);
  }

  /** The next token check: when it expires, at most five minutes away. */
  #scheduleConfirm(channel: Channel, exp: number): void {
    clearTimeout(channel.confirmTimer);
    const ms = Math.max(0, Math.min(CONFIRM_TOKEN_MS, exp * 1000 - Date.now()));
    channel.confirmTimer = setTimeout(() => {
      this.#queue = this.#queue.then(() => this.#confirm(channel)).catch((err) => this.#crash(err));
    }, ms);
    channel.confirmTimer.unref();
  }

  async #confirm(channel: Channel): Promise<void> {
    if (channel.closed) return;
    const check = await checkToken(channel.accessToken, this.env.jwtKeys);
    if (!check.ok) return this.#shutdown(channel, laterTokenReason(check));
    this.#scheduleConfirm(channel, check.exp);
  }

  async #accessToken(channel: Channel, payload: unknown): Promise<void> {
    const token = (payload as { access_token?: unknown } | null)?.access_token;
    if (typeof token !== 'string' || token.startsWith('sb_') || token === channel.accessToken) return;
    channel.accessToken = token;
    channel.broadcastWrite = undefined;
    channel.presenceWrite = undefined;
    const check = await checkToken(token, this.env.jwtKeys);
    if (!check.ok) return this.#shutdown(channel, laterTokenReason(check));
    channel.claims = check.claims;
    if (channel.isPrivate) {
      const denied = `You do not have permissions to read from this Channel topic: ${channel.subTopic}`;
      let rights: Awaited<ReturnType<typeof readRights>>;
      try {
        rights = await readRights(this.env.db, channel.subTopic, check.claims, channel.presenceEnabled);
      } catch (err) {
        return this.#shutdown(channel, isDatabaseUnavailable(err) ? DATABASE_UNAVAILABLE : denied);
      }
      if (!rights.broadcastRead && !rights.presenceRead) return this.#shutdown(channel, denied);
      const revoked =
        (channel.broadcastRead && !rights.broadcastRead) || (channel.presenceRead && !rights.presenceRead);
      if (revoked) {
        return this.#shutdown(
          channel,
          `You no longer have permission to read from this Channel topic: ${channel.subTopic}`,
        );
      }
      channel.broadcastRead = rights.broadcastRead;
      channel.presenceRead = channel.presenceEnabled ? rights.presenceRead : false;
    }
    this.#scheduleConfirm(channel, check.exp);
  }

  async #broadcast(channel: Channel, ref: string | null, b: Broadcast): Promise<void> {
    if (channel.isPrivate) {
      if (channel.broadcastWrite === undefined) {
        try {
          channel.broadcastWrite = await broadcastWriteRight(
            this.env.db,
            channel.subTopic,
            channel.claims,
            'broadcast',
          );
        } catch {
          // Realtime logs the policy error and answers nothing.
          return;
        }
      }
      // Without the insert policy the broadcast is dropped and nothing answers (an ack times out).
      if (!channel.broadcastWrite || channel.closed) return;
    }
    this.env.hub.broadcast(channel.subTopic, channel.isPrivate, b, channel.selfBroadcast ? undefined : channel);
    if (channel.ack) channel.reply(ref, 'ok', {});
  }

  async #presence(channel: Channel, ref: string | null, payload: unknown): Promise<void> {
    const p = (payload && typeof payload === 'object' ? payload : {}) as Record<string, unknown>;
    if (p.event !== 'track' && p.event !== 'untrack') return channel.reply(ref, 'error', {});
    if (p.event === 'track' && (p.payload === null || typeof p.payload !== 'object' || Array.isArray(p.payload))) {
      return channel.reply(ref, 'error', { reason: 'Presence track payload must be a map' });
    }
    if (channel.isPrivate) {
      if (channel.presenceWrite === undefined) {
        try {
          channel.presenceWrite = await broadcastWriteRight(this.env.db, channel.subTopic, channel.claims, 'presence');
        } catch {
          return channel.reply(ref, 'error', {});
        }
      }
      if (!channel.presenceWrite || channel.closed) return channel.reply(ref, 'error', {});
    }
    if (p.event === 'track') {
      if (!channel.presenceEnabled) {
        // Tracking turns presence on for the channel (Realtime's PresenceHandler).
        channel.presenceEnabled = true;
        channel.presenceRead = !channel.isPrivate || channel.presenceRead;
        this.env.presence.sendState(channel);
      }
      this.env.presence.track(channel, p.payload as Record<string, unknown>);
    } else {
      this.env.presence.untrackChannel(channel);
    }
    channel.reply(ref, 'ok', {});
  }
}
