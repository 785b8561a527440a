import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from 'local-supabase/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localBackend, newToken, refusal } from '../../integrations/cms-gateway.ts';

// The local editor's backend (`npm run cms`): Decap's own file-system middleware behind the gate, over a
// throwaway folder, on a plain server (the dev server adds Vite's host check in front of it; this proves the
// gate alone). Each refused request is the one a DNS-rebinding page or another site's page would send.

describe('refusal: only this server’s own address and page', () => {
  it.each([
    ['127.0.0.1:4321', undefined, undefined],
    ['localhost:4321', 'http://localhost:4321', undefined],
    ['127.0.0.1:4321', 'http://localhost:4321', undefined],
    ['attacker.example:4321', 'http://attacker.example:4321', /^Host attacker\.example:4321 is not/],
    ['127.0.0.1:4322', undefined, /^Host 127\.0\.0\.1:4322 is not/],
    ['192.168.1.20:4321', undefined, /^Host 192\.168\.1\.20:4321 is not/],
    ['localhost.attacker.example:4321', undefined, /^Host localhost\.attacker\.example:4321 is not/],
    [undefined, undefined, /^Host \(none\) is not/],
    ['127.0.0.1:4321', 'http://attacker.example', /^Origin http:\/\/attacker\.example is not/],
    ['127.0.0.1:4321', 'http://127.0.0.1:8080', /^Origin http:\/\/127\.0\.0\.1:8080 is not/],
    ['127.0.0.1:4321', 'null', /^Origin null is not/],
  ])('Host %s, Origin %s', (host, origin, refused) => {
    const why = refusal({ host, origin, port: 4321 });
    if (refused) expect(why).toMatch(refused);
    else expect(why).toBeUndefined();
  });
});

describe('the gated file-system backend', () => {
  const root = mkdtempSync(join(tmpdir(), 'cms-gateway-'));
  const token = newToken();
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const gate = await localBackend({ root, token, logLevel: 'error' });
    port = await freePort();
    server = createServer((req, res) => gate(req, res, () => res.writeHead(404).end('not the backend')));
    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  });

  afterAll(async () => {
    if (server) await new Promise((done) => server.close(done));
    rmSync(root, { recursive: true, force: true });
  });

  /** What decap-server's persistEntry action writes: `raw` into `path` under the folder. */
  const persist = (path: string) =>
    JSON.stringify({
      action: 'persistEntry',
      params: {
        branch: 'main',
        entry: { slug: 'x', path, raw: 'console.log("written through the editor backend")' },
        assets: [],
        options: { hasSubfolders: false, commitMessage: 'x', useWorkflow: false, status: 'draft' },
      },
    });

  function send(method: string, path: string, headers: Record<string, string>, body?: string) {
    return new Promise<{ status: number; body: string }>((done, fail) => {
      const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  const own = () => ({ host: `127.0.0.1:${port}`, 'content-type': 'application/json' });

  it.each([
    ['a rebinding page (foreign Host and Origin) with the token', 'attacker', true, 403, /Host attacker\.example/],
    ['another site’s page (own Host, foreign Origin) with the token', 'origin', true, 403, /Origin https:\/\/evil/],
    ['a request of this machine without the token', 'own', false, 403, /this run's token/],
    ['a request of this machine with a wrong token', 'wrong', false, 403, /this run's token/],
  ])('refuses %s and writes nothing', async (_name, shape, withToken, status, message) => {
    const headers: Record<string, string> = own();
    if (shape === 'attacker') Object.assign(headers, { host: 'attacker.example', origin: 'http://attacker.example' });
    if (shape === 'origin') headers.origin = 'https://evil.example';
    const path = withToken
      ? `/admin/api/v1/${token}`
      : shape === 'wrong'
        ? `/admin/api/v1/${newToken()}`
        : '/admin/api/v1';
    const res = await send('POST', path, headers, persist('scripts/postinstall.ts'));
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body).error).toMatch(message);
    expect(existsSync(join(root, 'scripts/postinstall.ts'))).toBe(false);
  });

  it('answers POST only', async () => {
    const res = await send('GET', `/admin/api/v1/${token}`, own());
    expect(res.status).toBe(405);
  });

  it('lets the editor’s own page save, on either loopback name, and keeps writes inside the folder', async () => {
    const fromPage = { ...own(), origin: `http://127.0.0.1:${port}` };
    const saved = await send('POST', `/admin/api/v1/${token}`, fromPage, persist('content/faq/01-x.md'));
    expect(saved).toEqual({ status: 200, body: '{"message":"entry persisted"}' });
    expect(readFileSync(join(root, 'content/faq/01-x.md'), 'utf8')).toContain('written through the editor backend');
    const viaLocalhost = { ...own(), host: `localhost:${port}`, origin: `http://localhost:${port}` };
    const info = await send('POST', `/admin/api/v1/${token}`, viaLocalhost, '{"action":"info"}');
    expect(JSON.parse(info.body)).toMatchObject({ type: 'local_fs' });
    const outside = await send('POST', `/admin/api/v1/${token}`, fromPage, persist('../escape.txt'));
    expect(outside.status).toBe(422);
    expect(existsSync(join(root, '..', 'escape.txt'))).toBe(false);
  });

  it('passes other paths on', async () => {
    expect((await send('GET', '/admin/', own())).status).toBe(404);
  });

  it('needs a token of 256 bits', async () => {
    await expect(localBackend({ root, token: 'short', logLevel: 'error' })).rejects.toThrow(/at least 32 characters/);
  });
});
