// JSON in and out for functions: responses carry CORS, request bodies are capped at 64 KB.
import { corsHeaders } from './cors.ts';
import { type ErrorCode, errorBody } from './errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...corsHeaders, 'Content-Type': 'application/json', ...headers },
  });
}

/**
 * `{ error, code, field? }` with the status (errors.ts): the sentence is shown to people, so it says what to
 * fix; the code is what the site decides on.
 */
export function errorResponse(
  status: number,
  code: ErrorCode,
  error: string,
  options: { field?: string; headers?: Record<string, string> } = {},
): Response {
  return json(errorBody(code, error, options.field), status, options.headers);
}

export function methodNotAllowed(allowed: string[]): Response {
  return errorResponse(405, 'method_not_allowed', `Method not allowed: use ${allowed.join(' or ')}.`, {
    headers: { Allow: [...allowed, 'OPTIONS'].join(', ') },
  });
}

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; response: Response };

export type RawBody = { ok: true; bytes: Uint8Array } | { ok: false; response: Response };

/** The body's bytes as sent, or 413 as soon as they pass `maxBytes` (whatever Content-Length claimed). */
export async function readRawBody(req: Request, maxBytes = MAX_BODY_BYTES): Promise<RawBody> {
  const tooLarge = () =>
    errorResponse(413, 'payload_too_large', `Request body is larger than ${Math.round(maxBytes / 1024)} KB.`);
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await req.body?.cancel().catch(() => {});
    return { ok: false, response: tooLarge() };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, response: tooLarge() };
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/** Reads a JSON object body of at most `maxBytes`: 413 past the limit, 400 when it is not a JSON object. */
export async function readJsonObject(req: Request, maxBytes = MAX_BODY_BYTES): Promise<BodyResult> {
  const raw = await readRawBody(req, maxBytes);
  if (!raw.ok) return raw;
  const bytes = raw.bytes;
  const text = new TextDecoder().decode(bytes).trim();
  if (!text)
    return { ok: false, response: errorResponse(400, 'bad_json', 'Request body is empty: send a JSON object.') };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, response: errorResponse(400, 'bad_json', 'Request body is not valid JSON.') };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, response: errorResponse(400, 'bad_json', 'Request body must be a JSON object.') };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
