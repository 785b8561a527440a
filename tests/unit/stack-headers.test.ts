// The stack's gateway headers: set on the finished response in place, or on a copy when its headers cannot change.
import { Hono } from 'hono';
import { describe, expect, test } from 'vitest';
import { securityHeaders } from '../../supabase/local/http.ts';

function app() {
  const a = new Hono();
  a.use('*', securityHeaders);
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
