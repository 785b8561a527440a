// The one way the site calls an Edge Function: the body typed by the function's name (FunctionPayloads), the
// answer read once into data or a refusal with its code (the functions' `{ error, code, field? }`). Plain fetch
// with the public key, as supabase-js's functions.invoke sends it, so the static forms' pages carry no supabase-js;
// an island acting for the signed-in member passes the member's access token.
import { type FunctionError, functionErrorOf } from '../../supabase/functions/_shared/errors.ts';
import type { FunctionName, FunctionPayloads } from '../../supabase/functions/_shared/payloads.ts';
import { SUPABASE_KEY } from '../stores/api-key.ts';
import { SUPABASE_URL } from '../stores/auth.ts';

export type { FunctionError, FunctionName, FunctionPayloads };

/** A function's answer: its JSON on success, else the refusal (status 0: no answer at all). */
export type FunctionAnswer = { ok: true; status: number; data: unknown } | { ok: false; error: FunctionError };

export interface InvokeOptions {
  /** The signed-in member's access token, sent as the bearer (the account function acts for its owner). */
  accessToken?: string;
  /** Stands in for the global fetch (tests). */
  fetch?: typeof fetch;
}

/**
 * The headers supabase-js sends a function: the public key, and as the bearer the member's access token, else
 * the key itself when it is a JWT (new-style sb_ keys are not, so they go as apikey only).
 */
export function functionHeaders(accessToken?: string, key: string = SUPABASE_KEY): Record<string, string> {
  const bearer = accessToken ?? (key.startsWith('sb_') ? undefined : key);
  return { apikey: key, ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) };
}

/** The functions the site also reads with a GET: account's data export. */
type ReadableFunction = 'account';

/**
 * Calls `/functions/v1/<name>`: POST with `body` as JSON, or GET when `body` is null (account's data export).
 * Never throws.
 */
export async function invokeFunction<N extends FunctionName>(
  name: N,
  body: FunctionPayloads[N] | (N extends ReadableFunction ? null : never),
  options: InvokeOptions = {},
): Promise<FunctionAnswer> {
  const doFetch = options.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(`${SUPABASE_URL.replace(/\/+$/, '')}/functions/v1/${name}`, {
      method: body === null ? 'GET' : 'POST',
      headers: {
        ...functionHeaders(options.accessToken),
        ...(body === null ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === null ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    return { ok: false, error: { status: 0 } };
  }
  const data: unknown = await res.json().catch(() => null);
  return res.ok ? { ok: true, status: res.status, data } : { ok: false, error: functionErrorOf(res.status, data) };
}
