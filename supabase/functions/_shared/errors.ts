// The functions' error answers: `{ error, code, field? }`. `error` is the sentence people read; `code` is the
// stable name the site decides on, as the auth service's `error_code` (GoTrue's apierrors/errorcode.go, whose
// names are reused where one fits): a reworded sentence changes no decision. No dependencies, so the site's
// islands and forms import it too.

/** Every code a function answers with, and when (the usual status first). */
export const ERROR_CODES = [
  /** 400: a field broke its rule; `field` names it (the payload's key: `email`, `consentVersion`, ...). */
  'invalid_input',
  /** 400: the body is empty, not JSON, or not a JSON object. */
  'bad_json',
  /** 400: a robot filled the hidden `website` field of a form whose function says so (user-signup). */
  'request_rejected',
  /** 400: the CAPTCHA token is missing, used, expired or forged; 503: Turnstile could not be asked. */
  'captcha_failed',
  /** 400: two-factor is on and the request carries no 6-digit code from the authenticator app. */
  'mfa_code_required',
  /** 400: the auth service refused that code (wrong, used or expired). */
  'mfa_verification_failed',
  /** 401: no member's access token, or the session behind it is gone. */
  'session_expired',
  /** 401: an entry for the schedule only, called without the service-role key. */
  'not_admin',
  /** 401: a signed request (signals-ingest) whose signature is missing, wrong or more than 5 minutes old. */
  'invalid_signature',
  /** 403: the password is not the account's. */
  'invalid_credentials',
  /** 403: two-factor is on and the session has not used it (aal1). */
  'insufficient_aal',
  /** 403: an unsubscribe link whose token is not its row's. */
  'invalid_link',
  /** 405: a method the function does not take; `Allow` lists those it does. */
  'method_not_allowed',
  /** 409: the address already has a confirmed account. */
  'account_exists',
  /** 409: the id is already in the signals ledger with other content (signals-ingest); `field` is `id`. */
  'ledger_conflict',
  /** 413: the body is over the function's limit (64 KB; signals-ingest 16 KB). */
  'payload_too_large',
  /** 4xx: the auth service refused the request for a reason of its own, said in its words. */
  'auth_refused',
  /** 429: too many requests from the address (or the auth service's own limits); `Retry-After` when known. */
  'rate_limited',
  /** 500: something failed that the caller cannot fix; try again later. */
  'unexpected_failure',
  /** 502: the auth service or the database failed. */
  'upstream_failure',
  /** 503: the confirmation mail could not be sent, so nothing was created. */
  'mail_unavailable',
  /** 503: a limit that fails closed could not be checked; `Retry-After: 60`. */
  'temporarily_unavailable',
] as const;

/** The stable name of a refusal: switch on it, never on the sentence. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The JSON body of every error answer. */
export interface ErrorBody {
  /** The sentence people see; it says what to fix. */
  error: string;
  code: ErrorCode;
  /** With `invalid_input`: the payload key the sentence is about. */
  field?: string;
}

/** The body of an error answer: `field` only when there is one. */
export function errorBody(code: ErrorCode, error: string, field?: string): ErrorBody {
  return field ? { error, code, field } : { error, code };
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return (ERROR_CODES as readonly unknown[]).includes(value);
}

/** A refusal as the site reads it from an answer's body: each part only when the body has it. */
export interface FunctionError {
  /** The answer's status; 0 when no answer came at all. */
  status: number;
  message?: string;
  code?: ErrorCode;
  field?: string;
}

/** Reads `{ error | message, code, field }` from a function's JSON body (anything else gives just the status). */
export function functionErrorOf(status: number, body: unknown): FunctionError {
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const sentence = typeof b.error === 'string' ? b.error : b.message;
  const message = typeof sentence === 'string' && sentence.trim() ? sentence.trim() : undefined;
  return {
    status,
    ...(message ? { message } : {}),
    ...(isErrorCode(b.code) ? { code: b.code } : {}),
    ...(typeof b.field === 'string' && b.field ? { field: b.field } : {}),
  };
}
