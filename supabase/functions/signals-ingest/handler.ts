// signals-ingest over HTTP: the signal engine's door to the ledger (docs/ledger.md). POST only, signed with
// SIGNALS_INGEST_SECRET (signature.ts), a JSON body of at most 16 KB: `signal.opened` or `signal.event`
// (payload.ts). Answers 201 stored, 200 the same id and content again (nothing stored), 409 ledger_conflict
// the same id with other content, 400 invalid_input naming the field, 401 invalid_signature, 413 over 16 KB.
// Nothing is stored unless the answer is 201. No rate limit: an unsigned request costs one HMAC.
import { createClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { errorResponse, json, methodNotAllowed, readRawBody } from '../_shared/http.ts';
import { type IngestDeps, ingest } from './ingest.ts';
import { validatePayload } from './payload.ts';
import { checkSignature, signingKey } from './signature.ts';

export const FUNCTION_NAME = 'signals-ingest';
/** The largest body taken: a signal or an event is a few hundred bytes. */
export const MAX_INGEST_BYTES = 16 * 1024;
export const FAILURE_MESSAGE = 'The ledger could not be written right now. Try again later.';

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export interface HandlerOptions {
  /** The clock the timestamp is checked against (tests move it). */
  now?: () => number;
  /** The ledger; by default its functions through supabase-js as service_role. */
  deps?: IngestDeps;
}

export function createHandler(env: Env = runtimeEnv(), opts: HandlerOptions = {}): (req: Request) => Promise<Response> {
  const now = opts.now ?? Date.now;
  let key: Promise<CryptoKey> | undefined;
  // Made once per isolate; a failure (no secret) is not kept, so a later request tries again.
  const getKey = (): Promise<CryptoKey> => {
    key ??= signingKey(env.get('SIGNALS_INGEST_SECRET')).catch((err) => {
      key = undefined;
      throw err;
    });
    return key;
  };
  let deps = opts.deps;
  const getDeps = (): IngestDeps => {
    if (!deps) {
      const db = createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      });
      deps = {
        async call(fn, args) {
          const { data, error } =
            fn === 'ingest_signal'
              ? await db.rpc('ingest_signal', { signal: args.signal as never })
              : await db.rpc('ingest_signal_event', { event: args.event as never });
          if (error) throw new Error(`${fn}: ${error.code} ${error.message}`);
          return data;
        },
      };
    }
    return deps;
  };

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (req.method !== 'POST') return methodNotAllowed(['POST']);
    const body = await readRawBody(req, MAX_INGEST_BYTES);
    if (!body.ok) return body.response;

    let signingKeyOfEnv: CryptoKey;
    try {
      signingKeyOfEnv = await getKey();
    } catch (err) {
      console.error(`${FUNCTION_NAME}:`, err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
    const signed = await checkSignature(
      signingKeyOfEnv,
      req.headers.get('x-signal-timestamp'),
      req.headers.get('x-signal-signature'),
      body.bytes,
      now(),
    );
    if (!signed.ok) return errorResponse(401, 'invalid_signature', signed.reason);

    const input = parseObject(body.bytes);
    if (!input) return errorResponse(400, 'bad_json', 'Request body must be a JSON object.');
    const checked = validatePayload(input);
    if (!checked.ok) return errorResponse(400, 'invalid_input', checked.error, { field: checked.field });
    const { payload } = checked;
    const what = payload.type === 'signal.opened' ? 'Signal' : 'Event';

    let result: Awaited<ReturnType<typeof ingest>>;
    try {
      result = await ingest(payload, getDeps());
    } catch (err) {
      console.error(`${FUNCTION_NAME}:`, err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', FAILURE_MESSAGE);
    }
    switch (result.outcome) {
      case 'stored':
        return json({ id: payload.id, outcome: 'stored' }, 201);
      case 'duplicate':
        return json({ id: payload.id, outcome: 'duplicate' }, 200);
      case 'conflict':
        return errorResponse(
          409,
          'ledger_conflict',
          `${what} ${payload.id} is already in the ledger with other content.`,
          {
            field: 'id',
          },
        );
      case 'invalid':
        return errorResponse(400, 'invalid_input', result.message, { field: result.field });
    }
  };
}
