// Auth hooks that are Postgres functions (GoTrue internal/hooks: v0hooks, hookspgfunc, hookserrors), from
// config.toml's [auth.hook.<name>] enabled + uri = "pg-functions://<database>/<schema>/<function>".
// The stack runs the one hook the project uses, mfa_verification_attempt, as GoTrue does: in a
// transaction of its own, as supabase_auth_admin (GoTrue's database login), with a 2-second statement
// timeout, `select "<schema>"."<function>"(<input>)`. An answer {"error": {"http_code", "message"}} becomes
// that HTTP error; anything else is the hook's output.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/types.ts';
import { isDatabaseUnavailable } from '../db-unavailable.ts';
import { type TomlTable, tomlTable } from '../project.ts';
import { AuthError } from './errors.ts';

export interface PgFunctionHook {
  uri: string;
  /** `"schema"."function"`, quoted as GoTrue's PopulateExtensibilityPoint does. */
  name: string;
}

export interface HookSettings {
  mfaVerificationAttempt: PgFunctionHook | null;
}

// The CLI's hook names; the stack runs only the first.
const SUPPORTED = 'mfa_verification_attempt';
const KNOWN = [SUPPORTED, 'password_verification_attempt', 'custom_access_token', 'send_sms', 'send_email'];
const POSTGRES_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/;
const TIMEOUT_MS = 2000;

/** [auth.hook.*] of config.toml: the enabled hooks, checked as the CLI and GoTrue check them, or a start error. */
export function loadHooks(toml: TomlTable): HookSettings {
  const hooks = tomlTable(tomlTable(toml.auth).hook);
  const out: HookSettings = { mfaVerificationAttempt: null };
  for (const [key, value] of Object.entries(hooks)) {
    const entry = tomlTable(value);
    if (entry.enabled !== true) continue;
    const where = `config.toml [auth.hook.${key}]`;
    if (!KNOWN.includes(key)) throw new Error(`${where}: the Supabase CLI knows no such hook`);
    if (key !== SUPPORTED) throw new Error(`${where} is enabled, but the local stack runs only ${SUPPORTED}`);
    const uri = typeof entry.uri === 'string' ? entry.uri : '';
    if (!uri) throw new Error(`${where}: enabled without a uri`);
    const url = URL.canParse(uri) ? new URL(uri) : null;
    if (url?.protocol !== 'pg-functions:') {
      throw new Error(`${where}: the local stack runs pg-functions://<database>/<schema>/<function> hooks only`);
    }
    const [schema, fn] = url.pathname.split('/').slice(1);
    if (!schema || !fn || !POSTGRES_NAME.test(schema) || !POSTGRES_NAME.test(fn)) {
      throw new Error(`${where}: uri ${uri} does not name a schema and a function`);
    }
    out.mfaVerificationAttempt = { uri, name: `"${schema}"."${fn}"` };
  }
  return out;
}

/** v0hooks.Metadata: sent with every hook input. */
function metadata(name: string, ip: string | null) {
  return { uuid: randomUUID(), time: new Date().toISOString(), name, ...(ip ? { ip_address: ip } : {}) };
}

/** What the MFA verification attempt hook answers: continue (or nothing) lets GoTrue go on; reject stops. */
export interface MfaHookOutput {
  decision?: string;
  message?: string;
}

/** Runs the hook's function and returns its output, or throws the HTTP error GoTrue would answer. */
async function runPgHook(db: Db, hook: PgFunctionHook, input: unknown): Promise<Record<string, unknown> | null> {
  let text: string | null;
  try {
    text = await db.transaction(async (tx) => {
      // PGlite has no timer signals, so the time limit holds on PostgreSQL only.
      if (db.kind === 'postgres') await tx.query(`set local statement_timeout to '${TIMEOUT_MS}'`);
      await tx.query('set local role supabase_auth_admin');
      const rows = await tx.query<{ out: string | null }>(`select ${hook.name}($1::jsonb)::text as out`, [
        JSON.stringify(input),
      ]);
      return rows[0]?.out ?? null;
    });
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    console.error(`auth: hook ${hook.uri} failed:`, (err as Error).message);
    throw new AuthError(500, '', `Error running hook URI: ${hook.uri}`);
  }
  if (text === null) return null;
  let output: unknown;
  try {
    output = JSON.parse(text);
  } catch {
    throw new AuthError(500, '', 'Error unmarshaling JSON output.');
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    throw new AuthError(500, '', 'Error unmarshaling JSON output.');
  }
  // hookserrors.Check: an error with a message is the answer; its http_code, else 500.
  const error = (output as { error?: unknown }).error;
  if (error && typeof error === 'object') {
    const { http_code: code, message } = error as { http_code?: unknown; message?: unknown };
    if (typeof message === 'string' && message !== '') {
      throw new AuthError(typeof code === 'number' && code > 0 ? code : 500, '', message);
    }
  }
  return output as Record<string, unknown>;
}

/** The MFA verification attempt hook's decision on one code (GoTrue calls it for wrong and right codes). */
export async function mfaVerificationAttempt(
  db: Db,
  hook: PgFunctionHook,
  attempt: { userId: string; factorId: string; factorType: string; valid: boolean; ip: string | null },
): Promise<MfaHookOutput> {
  const output = await runPgHook(db, hook, {
    metadata: metadata('mfa-verification', attempt.ip),
    user_id: attempt.userId,
    factor_id: attempt.factorId,
    factor_type: attempt.factorType,
    valid: attempt.valid,
  });
  return {
    decision: typeof output?.decision === 'string' ? output.decision : undefined,
    message: typeof output?.message === 'string' ? output.message : undefined,
  };
}
