import { describe, expect, test } from 'vitest';
import { corsHeaders, options } from '../../../supabase/functions/_shared/cors.ts';
import { json, MAX_BODY_BYTES, methodNotAllowed, readJsonObject } from '../../../supabase/functions/_shared/http.ts';

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request('http://fn.local/x', { method: 'POST', body, headers });

/** A JSON object body of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => {
  const frame = JSON.stringify({ message: '' });
  return JSON.stringify({ message: 'x'.repeat(bytes - frame.length) });
};

/** A streamed body: no Content-Length, so the limit is enforced while reading. */
const streamed = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
      controller.close();
    },
  });
};
const postStream = (text: string) =>
  new Request('http://fn.local/x', { method: 'POST', body: streamed(text), duplex: 'half' } as RequestInit);

describe('readJsonObject', () => {
  test('a body of exactly 64 KB is read', async () => {
    const body = bodyOf(MAX_BODY_BYTES);
    expect(new TextEncoder().encode(body).length).toBe(65536);
    const result = await readJsonObject(post(body));
    expect(result.ok && (result.value.message as string).length).toBe(MAX_BODY_BYTES - 14);
  });

  test.each([
    ['with Content-Length', () => post(bodyOf(MAX_BODY_BYTES + 1))],
    ['streamed without Content-Length', () => postStream(bodyOf(MAX_BODY_BYTES + 1))],
  ])('one byte more answers 413 (%s)', async (_label, req) => {
    const result = await readJsonObject(req());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(413);
    expect(await result.response.json()).toEqual({
      error: 'Request body is larger than 64 KB.',
      code: 'payload_too_large',
    });
    expect(result.response.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('a streamed body under the limit is read', async () => {
    const result = await readJsonObject(postStream(JSON.stringify({ a: 1 })));
    expect(result).toEqual({ ok: true, value: { a: 1 } });
  });

  test.each([
    ['{"name": "Ann",', 'Request body is not valid JSON.'],
    ['', 'Request body is empty: send a JSON object.'],
    ['  ', 'Request body is empty: send a JSON object.'],
    ['[1,2]', 'Request body must be a JSON object.'],
    ['"text"', 'Request body must be a JSON object.'],
    ['null', 'Request body must be a JSON object.'],
  ])('%j answers 400: %s', async (body, error) => {
    const result = await readJsonObject(post(body));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(400);
    expect(await result.response.json()).toEqual({ error, code: 'bad_json' });
  });

  test('a JSON body sent as text/plain (supabase-js sends strings so) is read', async () => {
    const result = await readJsonObject(post('{"a":"b"}', { 'content-type': 'text/plain' }));
    expect(result).toEqual({ ok: true, value: { a: 'b' } });
  });
});

describe('responses', () => {
  test('json carries CORS and the content type', async () => {
    const res = json({ success: true }, 202);
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toBe('application/json');
    for (const [k, v] of Object.entries(corsHeaders)) expect(res.headers.get(k)).toBe(v);
    expect(await res.json()).toEqual({ success: true });
  });

  test('preflight answers ok with the supabase-js CORS headers', async () => {
    const res = options();
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'authorization, x-client-info, apikey, content-type, x-retry-count, traceparent, tracestate, baggage',
    );
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, OPTIONS');
  });

  test('405 names the allowed method', async () => {
    const res = methodNotAllowed(['POST']);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await res.json()).toEqual({ error: 'Method not allowed: use POST.', code: 'method_not_allowed' });
  });
});
