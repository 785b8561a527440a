// Storage is not part of this stack, and Realtime runs unless REALTIME=off (realtime/index.ts). Switched off,
// they answer as the Supabase CLI's gateway does when `[storage]` / `[realtime]` are disabled: the CLI still routes /storage/v1/ and /realtime/v1/ (supabase/cli
// internal/start/templates/kong.yml) but starts no container behind them, so Kong's DNS lookup of the
// upstream fails and it answers 503 {"message":"name resolution failed"} (supabase/cli issue #2065),
// with its cors plugin's headers. A WebSocket upgrade (realtime-js) gets the same 503 instead of a socket.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'hono';

export const SERVICE_OFF_STATUS = 503;
export const SERVICE_OFF_BODY = { message: 'name resolution failed' };
export const SERVICES_OFF = ['/storage/v1/', '/realtime/v1/'];
/** What stays off while Realtime runs. */
export const STORAGE_OFF = ['/storage/v1/'];

export const isServiceOff = (path: string, off: readonly string[] = SERVICES_OFF) =>
  off.some((prefix) => path.startsWith(prefix));

export const serviceOff = (c: Context) => c.json(SERVICE_OFF_BODY, SERVICE_OFF_STATUS);

/** The HTTP answer to a WebSocket upgrade: 503 for a switched-off service, Kong's 404 for any other path. */
export function refuseUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  servicesOff: readonly string[] = SERVICES_OFF,
): void {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const off = isServiceOff(path, servicesOff);
  const body = JSON.stringify(off ? SERVICE_OFF_BODY : { message: 'no Route matched with those values' });
  const status = off ? '503 Service Unavailable' : '404 Not Found';
  const origin = req.headers.origin ?? '*';
  socket.end(
    [
      `HTTP/1.1 ${status}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `Access-Control-Allow-Origin: ${origin}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
