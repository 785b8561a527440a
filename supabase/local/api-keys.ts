// The new-format API keys (sb_publishable_… / sb_secret_…) at the gateway, as hosted Supabase treats them:
// they are not JWTs, so the gateway swaps a known one for the legacy JWT of its role (publishable -> anon,
// secret -> service_role) in `apikey` and in an `Authorization: Bearer` that carries the same key, before
// auth, REST or a function sees the request. An unknown new-format key is refused with 401.
import type { MiddlewareHandler } from 'hono';
import type { StackConfig } from './config.ts';
import { markHeadersRewritten } from './http.ts';

export const isNewApiKey = (key: string) => key.startsWith('sb_publishable_') || key.startsWith('sb_secret_');

/** The legacy JWT standing for a new-format key; undefined for a key the stack did not issue. */
export function legacyKeyFor(
  key: string,
  config: Pick<StackConfig, 'publishableKey' | 'secretKey' | 'anonKey' | 'serviceRoleKey'>,
) {
  if (key === config.publishableKey) return config.anonKey;
  if (key === config.secretKey) return config.serviceRoleKey;
  return undefined;
}

export function translateApiKeys(config: StackConfig): MiddlewareHandler {
  return async (c, next) => {
    const headerKey = c.req.header('apikey');
    const queryKey = headerKey === undefined ? c.req.query('apikey') : undefined;
    const key = headerKey ?? queryKey;
    const bearer = /^Bearer\s+(sb_\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if ((key === undefined || !isNewApiKey(key)) && (bearer === undefined || !isNewApiKey(bearer))) return next();

    const keyJwt = key !== undefined && isNewApiKey(key) ? legacyKeyFor(key, config) : key;
    const bearerJwt = bearer !== undefined ? legacyKeyFor(bearer, config) : undefined;
    if (keyJwt === undefined || (bearer !== undefined && bearerJwt === undefined)) {
      return c.json(
        { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' },
        401,
      );
    }
    const headers = c.req.raw.headers;
    markHeadersRewritten(c);
    headers.set('apikey', keyJwt);
    if (bearerJwt !== undefined) headers.set('authorization', `Bearer ${bearerJwt}`);
    return next();
  };
}
