// Supabase Realtime on the stack's API port (always, unless REALTIME=off): the WebSocket at /realtime/v1/websocket (socket.ts), the broadcast HTTP API (http.ts), and
// broadcast from the database (feed.ts). Broadcast, presence and private channels authorized by the RLS
// policies of realtime.messages; postgres_changes is answered as hosted answers a subscription it cannot make.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import { isNewApiKey, legacyKeyFor } from '../api-keys.ts';
import type { StackContext } from '../context.ts';
import { type TomlTable, tomlTable } from '../project.ts';
import { refuseUpgrade, STORAGE_OFF } from '../services-off.ts';
import { checkToken } from './auth.ts';
import { startDbFeed } from './feed.ts';
import { realtimeApp } from './http.ts';
import { Hub } from './hub.ts';
import { Presence } from './presence.ts';
import { type Vsn, vsnOf } from './serializer.ts';
import { type Channel, Connection, type RealtimeEnv } from './socket.ts';

export const WEBSOCKET_PATH = '/realtime/v1/websocket';

/**
 * The line printed at start when config.toml disables Realtime, which the stack runs all the same (StackConfig's
 * `realtime`, REALTIME=off, is what switches it off): the CLI would start no Realtime container, hosted has it.
 */
export function realtimeConfigNotice(project: TomlTable): string | undefined {
  if (tomlTable(project.realtime).enabled !== false) return undefined;
  return 'realtime: config.toml says [realtime] enabled = false; the stack runs Realtime anyway, as every hosted project does (REALTIME=off switches it off)';
}

export interface Realtime {
  /** The HTTP routes under /realtime/v1. */
  app: Hono;
  /** The server's `upgrade` handler for the API port: the Realtime socket, or the gateway's refusal. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets (for tests and the summary). */
  connections(): number;
  /** Closes every socket (1001, going away) and stops the database feed. */
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal Server Error' };

/** An HTTP answer to an upgrade request, then the connection closes. */
function answer(req: IncomingMessage, socket: Duplex, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(text)}`,
      `Access-Control-Allow-Origin: ${req.headers.origin ?? '*'}`,
      'Connection: close',
      '',
      text,
    ].join('\r\n'),
  );
}

/** The body Realtime's UserSocket.handle_error gives a refused connection, by the token's fault. */
const CONNECT_ERRORS: Record<string, string> = {
  expired: 'Token has expired',
  missing_claims: 'Fields `role` and `exp` are required in JWT',
  malformed: 'The token provided is not a valid JWT',
  signature: 'Failed to validate JWT signature',
};

export async function startRealtime(ctx: StackContext): Promise<Realtime> {
  const hub = new Hub();
  const presence = new Presence((key) => hub.subscribers(key) as ReadonlySet<Channel>);
  const env: RealtimeEnv = { hub, presence, db: ctx.db, jwtKeys: ctx.jwtKeys };
  const stopFeed = await startDbFeed(ctx.db, ctx.config.databaseUrl, (m) =>
    hub.broadcast(m.topic, m.isPrivate, m.broadcast),
  );
  // Realtime's default max payload (3,000 KB) bounds a frame.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 3_000 * 1024 });
  const connections = new Set<Connection>();
  let closing = false;

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    // The gateway: a key is required; a new-format key stands for its legacy JWT.
    const header = req.headers.apikey;
    const key = url.searchParams.get('apikey') ?? (Array.isArray(header) ? header[0] : header);
    if (!key) {
      return answer(req, socket, 401, {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      });
    }
    const token = isNewApiKey(key) ? legacyKeyFor(key, ctx.config) : key;
    if (token === undefined) {
      return answer(req, socket, 401, {
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      });
    }
    // Phoenix: a serializer version the server does not speak is refused.
    const vsn: Vsn | undefined = vsnOf(url.searchParams.get('vsn'));
    if (!vsn) return answer(req, socket, 403, undefined);
    // Realtime's UserSocket.connect: the apikey must be a valid token of the project.
    const check = await checkToken(token, ctx.jwtKeys);
    if (!check.ok) return answer(req, socket, 401, { error: CONNECT_ERRORS[check.kind] ?? check.message });
    if (closing || socket.destroyed) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Connection(ws, vsn, token, env);
      connections.add(conn);
      ws.on('close', () => connections.delete(conn));
      if (closing) conn.close(1001, 'server shutting down');
    });
  }

  return {
    app: realtimeApp(env),
    upgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (closing || url.pathname.replace(/\/$/, '') !== WEBSOCKET_PATH) return refuseUpgrade(req, socket, STORAGE_OFF);
      socket.on('error', () => {});
      accept(req, socket, head, url).catch((err) => {
        console.error('realtime: upgrade failed', err);
        if (!socket.destroyed) answer(req, socket, 500, { error: 'Error connecting to Realtime' });
      });
    },
    connections: () => connections.size,
    async close() {
      closing = true;
      for (const conn of connections) conn.close(1001, 'server shutting down');
      connections.clear();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await stopFeed();
    },
  };
}
