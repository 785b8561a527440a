// PostgREST's error answers: the body {code, details, hint, message} and the HTTP status it picks.
import { isDatabaseUnavailable, UNAVAILABLE_PUBLIC_DETAIL, unavailableDetail } from '../db-unavailable.ts';

export interface ErrorBody {
  code: string;
  details: string | null;
  hint: string | null;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.message);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  static pgrst(
    status: number,
    code: string,
    message: string,
    details: string | null = null,
    hint: string | null = null,
    headers: Record<string, string> = {},
  ): ApiError {
    return new ApiError(status, { code, details, hint, message }, headers);
  }
}

/** What the Postgres drivers (PGlite and postgres.js) put on a server error. */
interface PgErrorLike {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
  hint?: unknown;
}

function isPgError(err: unknown): err is PgErrorLike & { code: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as PgErrorLike).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((err as PgErrorLike).code as string)
  );
}

/** PostgREST's mapSQLtoHTTP (src/PostgREST/Error.hs). `authed` is false for the anon role. */
export function pgStatus(code: string, message: string, authed: boolean): number {
  const two = code.slice(0, 2);
  switch (code) {
    case '23503':
    case '23505':
      return 409;
    case '25006':
      return 405;
    case '21000':
      return message.endsWith('requires a WHERE clause') ? 400 : 500;
    case '22023':
      return message.startsWith('role') && message.endsWith('does not exist') ? 401 : 400;
    case '53400':
      return 500;
    case '57P01':
      return 503;
    case 'P0001':
      return 400;
    case '42883':
      return 404;
    case '42P01':
      return 404;
    case '42P17':
      return 500;
    case '42501':
      return authed ? 403 : 401;
  }
  switch (two) {
    case '08':
      return 503;
    case '09':
      return 500;
    case '0L':
    case '0P':
      return 403;
    case '25':
      return 500;
    case '28':
      return 403;
    case '2D':
    case '38':
    case '39':
    case '3B':
    case '40':
      return 500;
    case '53':
      return 503;
    case '54':
    case '55':
    case '57':
    case '58':
    case 'F0':
    case 'HV':
    case 'P0':
    case 'XX':
      return 500;
  }
  if (code.startsWith('PT')) {
    const n = Number(code.slice(2));
    return Number.isInteger(n) && n >= 100 && n <= 599 ? n : 500;
  }
  return 400;
}

/** Turns anything thrown while answering into the response PostgREST would give. */
export function toApiError(err: unknown, authed: boolean): ApiError {
  if (err instanceof ApiError) return err;
  // The database is down or restarting: PostgREST's 503 for a connection it cannot use. The driver's
  // message (which can name the database's host and port) is logged; the client gets a generic detail.
  if (isDatabaseUnavailable(err)) {
    console.error('[rest] database unavailable:', unavailableDetail(err));
    return ApiError.pgrst(
      503,
      'PGRST001',
      'Database client error. Retrying the connection.',
      UNAVAILABLE_PUBLIC_DETAIL,
    );
  }
  if (isPgError(err)) {
    const message = String(err.message ?? '');
    const status = pgStatus(err.code, message, authed);
    const body: ErrorBody = {
      code: err.code,
      details: typeof err.detail === 'string' && err.detail !== '' ? err.detail : null,
      hint: typeof err.hint === 'string' && err.hint !== '' ? err.hint : null,
      message,
    };
    return new ApiError(status, body, status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
  }
  console.error('[rest] unexpected error:', err);
  return ApiError.pgrst(500, 'PGRSTX00', 'Internal server error');
}

// ---- the fixed PostgREST errors this service answers with ----------------------------------------

export const errors = {
  tableNotFound: (table: string, hint: string | null) =>
    ApiError.pgrst(404, 'PGRST205', `Could not find the table 'public.${table}' in the schema cache`, null, hint),
  /** A select, filter or order on a column the table lacks: the error Postgres itself raises. */
  undefinedColumn: (table: string, column: string) =>
    ApiError.pgrst(400, '42703', `column ${table}.${column} does not exist`),
  /** A payload, `columns` or `on_conflict` name the table lacks. */
  columnNotFound: (table: string, column: string) =>
    ApiError.pgrst(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`),
  noRelationship: (table: string, rel: string) =>
    ApiError.pgrst(
      400,
      'PGRST200',
      `Could not find a relationship between '${table}' and '${rel}' in the schema cache`,
      `Searched for a foreign key relationship between '${table}' and '${rel}' in the schema 'public', but no matches were found.`,
    ),
  notEmbedded: (resource: string) =>
    ApiError.pgrst(
      400,
      'PGRST108',
      `'${resource}' is not an embedded resource in this request`,
      null,
      `Verify that '${resource}' is included in the 'select' query parameter.`,
    ),
  invalidSchema: (schema: string) =>
    ApiError.pgrst(
      406,
      'PGRST106',
      `Invalid schema: ${schema}`,
      null,
      'Only the following schemas are exposed: public',
    ),
  mediaType: (types: string[]) =>
    ApiError.pgrst(406, 'PGRST107', `None of these media types are available: ${types.join(', ')}`),
  contentType: (type: string) => ApiError.pgrst(415, 'PGRST107', `Content-Type not acceptable: ${type}`),
  invalidBody: (message: string) => ApiError.pgrst(400, 'PGRST102', message),
  singular: (rows: number) =>
    ApiError.pgrst(
      406,
      'PGRST116',
      'Cannot coerce the result to a single JSON object',
      `The result contains ${rows} rows`,
    ),
  invalidRange: (details: string) => ApiError.pgrst(416, 'PGRST103', 'Requested range not satisfiable', details),
  unsupportedMethod: (method: string) => ApiError.pgrst(405, 'PGRST117', `Unsupported HTTP method: ${method}`),
  invalidPath: () => ApiError.pgrst(404, 'PGRST125', 'Invalid path specified in request URL'),
  invalidPreferences: (prefs: string[]) =>
    ApiError.pgrst(
      400,
      'PGRST122',
      'Invalid preferences given with handling=strict',
      `Invalid preferences: ${prefs.join(', ')}`,
    ),
  maxAffected: (rows: number) =>
    ApiError.pgrst(
      400,
      'PGRST124',
      'Query result exceeds max-affected preference constraint',
      `The query affects ${rows} rows`,
    ),
  maxAffectedRpc: () =>
    ApiError.pgrst(
      400,
      'PGRST128',
      'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
    ),
  /** pg-safeupdate, which hosted Supabase loads for the API roles. */
  requiresWhere: (command: 'UPDATE' | 'DELETE') => ApiError.pgrst(400, '21000', `${command} requires a WHERE clause`),
  ambiguousFunction: (fn: string, candidates: { params: { name: string; type: string }[] }[]) =>
    ApiError.pgrst(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${candidates
        .map((c) => `public.${fn}(${c.params.map((p) => `${p.name} => ${p.type}`).join(', ')})`)
        .join(', ')}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    ),
};

export function jwtError(code: 'PGRST301' | 'PGRST303', message: string): ApiError {
  return ApiError.pgrst(401, code, message, null, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description=${JSON.stringify(message)}`,
  });
}
