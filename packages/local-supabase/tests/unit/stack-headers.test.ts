// The stack's gateway headers: set on the finished response in place, or on a copy when its headers cannot change,
// or written by the route itself into its one Response (completeResponse), with the same result.
import { Hono } from 'hono';
import { describe, expect, test } from 'vitest';
import { completeResponse, cors, securityHeaders } from '../../src/http.ts';

function app() {
  const a = new Hono();
  a.use('*', securityHeaders);
  a.use('*', cors);
  a.get('/complete', (c) => completeResponse(c, '[]', 206, { 'Content-Range': '0-0/2', Vary: 'Accept' }));
  a.get('/complete-own-policy', (c) =>
    completeResponse(c, 'page', 200, { 'Content-Security-Policy': "default-src 'self'" }),
  );
  a.get('/plain', () => new Response('{"ok":true}', { headers: { 'Content-Type': 'application/json', ETag: '"1"' } }));
  a.get('/own-policy', () => new Response('page', { headers: { 'Content-Security-Policy': "default-src 'self'" } }));
  // Response.redirect's headers are immutable, as a fetch() answer passed through would be.
  a.get('/immutable', () => Response.redirect('http://127.0.0.1/elsewhere', 303));
  return a;
}

describe('securityHeaders', () => {
  test.each(['/plain', '/immutable'])('%s: the gateway headers, the answer otherwise unchanged', async (path) => {
    const res = await app().request(path);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    if (path === '/plain') {
      expect(res.headers.get('etag')).toBe('"1"');
      expect(await res.json()).toEqual({ ok: true });
    } else {
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
    }
  });

  test("a response's own Content-Security-Policy is kept", async () => {
    const res = await app().request('/own-policy');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('completeResponse', () => {
  test('the route writes the gateway headers into its answer, as the middlewares would have set them', async () => {
    const [complete, plain] = await Promise.all(
      ['/complete', '/plain'].map((path) => app().request(path, { headers: { Origin: 'http://127.0.0.1:4321' } })),
    );
    expect(complete.status).toBe(206);
    expect(complete.headers.get('content-range')).toBe('0-0/2');
    for (const name of [
      'x-content-type-options',
      'referrer-policy',
      'x-frame-options',
      'content-security-policy',
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'access-control-expose-headers',
    ]) {
      expect(complete.headers.get(name), name).toBe(plain.headers.get(name));
    }
    expect(complete.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4321');
    // CORS answers vary by Origin whatever the route said.
    expect(complete.headers.get('vary')).toBe('Origin');
    expect(await complete.json()).toEqual([]);
  });

  test("the route's own Content-Security-Policy is kept", async () => {
    const res = await app().request('/complete-own-policy');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
