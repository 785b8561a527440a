// The steps every form-like function takes before its own logic, in one place: the caller's per-IP limit,
// a JSON body of at most 64 KB, the `website` honeypot, then validation. Bad input changes nothing.
import { errorResponse, readJsonObject } from './http.ts';
import { type RateLimiter, refuseOverLimit } from './rate-limit.ts';
import { honeypotFilled, type Validation } from './schemas.ts';

export interface FormPost<T> {
  limiter: RateLimiter;
  /** What a filled honeypot gets: the usual answer or an error, as each function decides; nothing is done. */
  honeypot: () => Response;
  validate: (body: unknown) => Validation<T>;
}

export type FormPostResult<T> = { ok: true; input: T } | { ok: false; response: Response };

/** Reads and checks a form's POST from `ip`; on failure the response says why (429, 413, 400). */
export async function readFormPost<T>(req: Request, ip: string, form: FormPost<T>): Promise<FormPostResult<T>> {
  const refused = await refuseOverLimit(form.limiter, ip);
  if (refused) return { ok: false, response: refused };

  const body = await readJsonObject(req);
  if (!body.ok) return body;
  if (honeypotFilled(body.value)) return { ok: false, response: form.honeypot() };

  const input = form.validate(body.value);
  if (!input.ok)
    return {
      ok: false,
      response: errorResponse(400, input.field ? 'invalid_input' : 'bad_json', input.error, { field: input.field }),
    };
  return { ok: true, input: input.data };
}
