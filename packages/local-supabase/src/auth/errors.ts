// GoTrue's error answers (internal/api/errors.go HandleResponseError): the body shape depends on the
// X-Supabase-Api-Version request header, and the code also travels in x-sb-error-code.
import type { Context } from 'hono';
import { isDatabaseUnavailable, unavailableDetail } from '../db-unavailable.ts';

export const API_VERSION_HEADER = 'X-Supabase-Api-Version';
const API_VERSION_2024 = '2024-01-01';
const API_VERSION_PATTERN = /^2[0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-9]|3[0-1])$/;

/** An HTTP error with GoTrue's error code, e.g. 400 invalid_credentials ('' for none). */
export class AuthError extends Error {
  status: number;
  code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A password that fails the policy: 422 weak_password with the reasons. */
export class WeakPasswordError extends AuthError {
  reasons: string[];
  constructor(message: string, reasons: string[]) {
    super(422, 'weak_password', message);
    this.reasons = reasons;
  }
}

/** OAuth-style error: always 400 with {error, error_description}. */
export class OAuthError extends Error {
  error: string;
  description: string;
  constructor(error: string, description: string) {
    super(`${error}: ${description}`);
    this.error = error;
    this.description = description;
  }
}

export const badRequest = (code: string, message: string) => new AuthError(400, code, message);
export const unprocessable = (code: string, message: string) => new AuthError(422, code, message);
export const forbidden = (code: string, message: string) => new AuthError(403, code, message);
export const notFound = (code: string, message: string) => new AuthError(404, code, message);
export const tooManyRequests = (code: string, message: string) => new AuthError(429, code, message);

/** True when the request asked for the 2024-01-01 shapes (supabase-js always does). */
export function wantsApiVersion2024(c: Context): boolean {
  const v = c.req.header(API_VERSION_HEADER);
  if (!v || !API_VERSION_PATTERN.test(v)) return false;
  return Date.parse(`${v}T00:00:00Z`) >= Date.parse(`${API_VERSION_2024}T00:00:00Z`);
}

function json(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

export function errorResponse(c: Context, err: unknown): Response {
  const v2024 = wantsApiVersion2024(c);
  const headers: Record<string, string> = v2024 ? { [API_VERSION_HEADER]: API_VERSION_2024 } : {};

  if (err instanceof OAuthError) {
    return json(400, { error: err.error, error_description: err.description }, headers);
  }
  if (err instanceof WeakPasswordError) {
    if (v2024) {
      return json(422, { code: err.code, message: err.message, weak_password: { reasons: err.reasons } }, headers);
    }
    headers['x-sb-error-code'] = err.code;
    return json(
      422,
      { code: 422, error_code: err.code, msg: err.message, weak_password: { reasons: err.reasons } },
      headers,
    );
  }
  if (err instanceof AuthError) {
    // An error without a code (a hook's own error) has no header and answers unknown, or unexpected_failure.
    if (err.code) headers['x-sb-error-code'] = err.code;
    const code = err.code || (err.status >= 500 ? 'unexpected_failure' : 'unknown');
    if (v2024) return json(err.status, { code, message: err.message }, headers);
    return json(err.status, { code: err.status, error_code: code, msg: err.message }, headers);
  }

  if (isDatabaseUnavailable(err)) {
    // The database is down or restarting: a 503 that supabase-js reports as retryable.
    console.error('auth: database unavailable:', unavailableDetail(err));
    const message = 'Database unavailable, please try again shortly';
    if (v2024) return json(503, { code: 'unexpected_failure', message }, headers);
    return json(503, { code: 503, error_code: 'unexpected_failure', msg: message }, headers);
  }
  console.error('auth: unexpected failure', err);
  const message = 'Unexpected failure, please check server logs for more information';
  if (v2024) return json(500, { code: 'unexpected_failure', message }, headers);
  return json(500, { code: 500, error_code: 'unexpected_failure', msg: message }, headers);
}
