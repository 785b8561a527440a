// The local editor's backend under `npm run cms`: Decap's file-system backend (decap-server's own middleware,
// run inside the Astro dev server, so it has no port of its own) behind a gate. decap-server alone answers any
// request that reaches its port, and a DNS-rebinding page (a foreign name resolving to 127.0.0.1) reaches it
// with same-origin requests CORS never stops. The gate lets through only requests
//   - whose Host is this server's own loopback address (127.0.0.1:<port> or localhost:<port>): a rebinding
//     page sends its own name;
//   - whose Origin, when sent, is this server's own page: another site's page sends its origin;
//   - that carry this run's random token in the path (POST /admin/api/v1/<token>), which only the generated
//     config.yml holds, and which only a page of this server's own address can read.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/** Where the editor's backend answers; this run's token follows. */
export const LOCAL_BACKEND_PATH = '/admin/api/v1/';

export type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** A new token for one run of `npm run cms`: 256 random bits. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The backend's URL for a page opened on `host` (the request's own, already checked). */
export function localBackendUrl(host: string, token: string): string {
  return `http://${host}${LOCAL_BACKEND_PATH}${token}`;
}

export interface GateRequest {
  host: string | undefined;
  origin: string | undefined;
  /** The port the request came in on (the server's, whatever port it was given). */
  port: number;
}

/** Why a request for the editor or its backend is refused; undefined when it comes from this server's own page. */
export function refusal({ host, origin, port }: GateRequest): string | undefined {
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!host || !own.includes(host.toLowerCase())) {
    return `Host ${host ?? '(none)'} is not this editor's address (${own.join(' or ')})`;
  }
  if (origin !== undefined && !own.some((h) => origin.toLowerCase() === `http://${h}`)) {
    return `Origin ${origin} is not this editor's page (http://${own[0]})`;
  }
  return undefined;
}

function tokenMatches(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Answers a refused request and closes the connection (its body, if any, is not read). */
export function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close', ...headers });
  res.end(`${JSON.stringify({ error: message })}\n`);
}

interface DecapMiddlewares {
  registerLocalFs(app: unknown, options: { logLevel?: string }): Promise<void>;
}

/**
 * Decap's file-system backend over `root`: decap-server's own middleware on an Express app of its own
 * dependency, answering POST /api/v1. It reads and writes files under `root` only (its path check).
 */
async function decapFsBackend(root: string, logLevel: string): Promise<Handler> {
  const fromDecap = createRequire(createRequire(import.meta.url).resolve('decap-server/package.json'));
  const express = fromDecap('express') as () => Handler;
  const { registerLocalFs } = fromDecap('./dist/middlewares.js') as DecapMiddlewares;
  const app = express();
  // decap-server takes the folder from GIT_REPO_DIRECTORY, read as it registers its routes.
  const previous = process.env.GIT_REPO_DIRECTORY;
  process.env.GIT_REPO_DIRECTORY = root;
  try {
    await registerLocalFs(app, { logLevel });
  } finally {
    if (previous === undefined) delete process.env.GIT_REPO_DIRECTORY;
    else process.env.GIT_REPO_DIRECTORY = previous;
  }
  return app;
}

export interface LocalBackendOptions {
  /** The project whose files the editor reads and writes. */
  root: string;
  token: string;
  /** decap-server's log level ('info' names the folder it serves; 'error' for tests). */
  logLevel?: string;
}

/**
 * The gated backend: a middleware that answers /admin/api/v1… and passes everything else on. A request from
 * anywhere but this server's own page, or without the token, gets 403 and reaches no file.
 */
export async function localBackend({ root, token, logLevel = 'info' }: LocalBackendOptions): Promise<Handler> {
  if (token.length < 32) throw new Error('the local editor needs a token of at least 32 characters (newToken())');
  const backend = await decapFsBackend(resolve(root), logLevel);
  const base = LOCAL_BACKEND_PATH.slice(0, -1);
  return (req, res, next) => {
    const path = new URL(req.url ?? '/', 'http://gate').pathname;
    if (path !== base && !path.startsWith(LOCAL_BACKEND_PATH)) return next();
    const why = refusal({ host: req.headers.host, origin: req.headers.origin, port: req.socket.localPort ?? 0 });
    if (why) return refuse(res, 403, `Refused: ${why}.`);
    if (req.method !== 'POST') return refuse(res, 405, 'The editor backend answers POST only.', { allow: 'POST' });
    if (!tokenMatches(path.slice(LOCAL_BACKEND_PATH.length), token)) {
      return refuse(res, 403, "Refused: the request does not carry this run's token (the editor's config.yml has it).");
    }
    req.url = '/api/v1';
    backend(req, res, next);
  };
}
