// Entries only the project's own schedules may call (the contact mail retry, the alert sender): the request must
// carry a service-role key, the legacy JWT or a new-format secret key, as its bearer token or apikey header.
import type { Env } from './env.ts';

/** The service-role keys the function accepts: the legacy JWT and the new-format secret keys. */
function serviceKeys(env: Env): string[] {
  const keys = [env.get('SUPABASE_SERVICE_ROLE_KEY') ?? ''];
  try {
    const secret = JSON.parse(env.get('SUPABASE_SECRET_KEYS') ?? '{}') as Record<string, unknown>;
    for (const value of Object.values(secret)) if (typeof value === 'string') keys.push(value);
  } catch {
    // Not JSON: no secret keys beside the legacy one.
  }
  return keys.filter((k) => k.length > 0);
}

/** Compares without stopping at the first difference, so timing does not tell how much of a key was right. */
function sameKey(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** The bearer token or apikey header carries one of the service-role keys. */
export function hasServiceRole(req: Request, env: Env): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.get('authorization') ?? '')?.[1]?.trim();
  const presented = [bearer, req.headers.get('apikey')?.trim()].filter((k): k is string => Boolean(k));
  const keys = serviceKeys(env);
  return presented.some((p) => keys.some((k) => sameKey(p, k)));
}
