// The new-format API keys (sb_publishable_… / sb_secret_…) at the gateway, as the CLI's gateway treats them
// (its kong.yml: Authorization is built from the apikey): they are not JWTs, so the gateway swaps a known
// one for the legacy JWT of its role (publishable -> anon, secret -> service_role) in `apikey`, and sets
// `Authorization: Bearer <that JWT>` when the request has no Authorization or one that carries an `sb_` key,
// before auth, REST or a function sees the request. A member's own `Bearer <access token>` is kept.
// An unknown new-format key is refused with 401, as the hosted gateway refuses it.
//
// With the demo JWT secret the keys are the CLI's public demo keys. With a secret of its own the stack
// generates its own pair at first start and keeps it in DATA_DIR/api-keys.json (beside the JWT signing
// key), so the public demo `sb_secret_…` key is worthless there.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MiddlewareHandler } from 'hono';
import { DEMO_JWT_SECRET, DEMO_PUBLISHABLE_KEY, DEMO_SECRET_KEY, type StackConfig } from './config.ts';
import { markHeadersRewritten } from './http.ts';

export const isNewApiKey = (key: string) => key.startsWith('sb_publishable_') || key.startsWith('sb_secret_');

export const API_KEYS_FILE = 'api-keys.json';

interface StoredKeys {
  publishable: string;
  secret: string;
}

const randomKey = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

/**
 * The new-format keys to use: the configured ones, except that with a JWT secret of the stack's own the
 * CLI's public demo keys are replaced by a pair generated once and kept under DATA_DIR (mode 0600).
 */
export function loadApiKeys(
  config: Pick<StackConfig, 'jwtSecret' | 'publishableKey' | 'secretKey' | 'dataDir'>,
): StoredKeys & { generated: boolean } {
  const configured = { publishable: config.publishableKey, secret: config.secretKey, generated: false };
  const demo = config.publishableKey === DEMO_PUBLISHABLE_KEY || config.secretKey === DEMO_SECRET_KEY;
  if (config.jwtSecret === DEMO_JWT_SECRET || !demo) return configured;
  const file = join(config.dataDir, API_KEYS_FILE);
  let stored: StoredKeys;
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as StoredKeys;
    } catch (err) {
      throw new Error(`${file}: not JSON (${(err as Error).message}); delete it to get new keys`);
    }
    if (!stored.publishable?.startsWith('sb_publishable_') || !stored.secret?.startsWith('sb_secret_')) {
      throw new Error(`${file}: expected {"publishable": "sb_publishable_…", "secret": "sb_secret_…"}`);
    }
  } else {
    stored = { publishable: randomKey('sb_publishable_'), secret: randomKey('sb_secret_') };
    mkdirSync(config.dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }
  return {
    // A key given in the environment (not the demo one) is kept.
    publishable: config.publishableKey === DEMO_PUBLISHABLE_KEY ? stored.publishable : config.publishableKey,
    secret: config.secretKey === DEMO_SECRET_KEY ? stored.secret : config.secretKey,
    generated: true,
  };
}

/** The legacy JWT standing for a new-format key; undefined for a key the stack did not issue. */
export function legacyKeyFor(
  key: string,
  config: Pick<StackConfig, 'publishableKey' | 'secretKey' | 'anonKey' | 'serviceRoleKey'>,
) {
  if (key === config.publishableKey) return config.anonKey;
  if (key === config.secretKey) return config.serviceRoleKey;
  return undefined;
}

const invalidKey = {
  message: 'Invalid API key',
  hint: 'Double check your Supabase `anon` or `service_role` API key.',
};

export function translateApiKeys(config: StackConfig): MiddlewareHandler {
  return async (c, next) => {
    const headerKey = c.req.header('apikey');
    const queryKey = headerKey === undefined ? c.req.query('apikey') : undefined;
    const key = headerKey ?? queryKey;
    const authorization = c.req.header('authorization');
    const bearer = /^Bearer\s+(sb_\S+)$/i.exec(authorization ?? '')?.[1];
    const newKey = key !== undefined && isNewApiKey(key);
    if (!newKey && (bearer === undefined || !isNewApiKey(bearer))) return next();

    const keyJwt = newKey ? legacyKeyFor(key, config) : key;
    const bearerJwt = bearer !== undefined && isNewApiKey(bearer) ? legacyKeyFor(bearer, config) : undefined;
    if (keyJwt === undefined || (bearer !== undefined && isNewApiKey(bearer) && bearerJwt === undefined)) {
      return c.json(invalidKey, 401);
    }
    const headers = c.req.raw.headers;
    markHeadersRewritten(c);
    headers.set('apikey', keyJwt);
    // The CLI's gateway: Authorization is the request's own unless missing or `Bearer sb_…`; then the
    // apikey's JWT. A legacy JWT in apikey with a new-format key as bearer: that key's JWT.
    if (newKey && (authorization === undefined || bearer !== undefined)) {
      headers.set('authorization', `Bearer ${keyJwt}`);
    } else if (bearerJwt !== undefined) {
      headers.set('authorization', `Bearer ${bearerJwt}`);
    }
    return next();
  };
}
