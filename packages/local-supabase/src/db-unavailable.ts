// Errors that mean "the database cannot be reached right now" (server stopped, restarting, connection cut),
// as opposed to an error in a query. REST answers them as PostgREST does (503 PGRST001) and auth with a
// 503 in GoTrue's shape, so clients see a clean, retryable failure; the driver reconnects on the next query.
// The driver's own message goes to the log, never to the client.

/** postgres.js and Node's socket errors for a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

/**
 * Postgres's own: 57P01 admin_shutdown (the server ended the connection to stop or restart), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), and class 08 connection errors.
 */
const SERVER_CODES = /^(57P0[123]|08[0-9A-Z]{3})$/;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || SERVER_CODES.test(code);
}

/**
 * What went wrong, for the stack's log only: the driver's message, which can name the database's host and
 * port (`connect ECONNREFUSED 10.0.0.5:5432`). Never put it in a response body.
 */
export function unavailableDetail(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The details a client sees instead: libpq's own words for a connection that is gone, which is what
 * PostgREST passes through for PGRST001 when the server went away, and which names no host or port.
 */
export const UNAVAILABLE_PUBLIC_DETAIL = 'no connection to the server';
