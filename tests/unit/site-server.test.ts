// The site server (`npm start`, e2e, Lighthouse) sends compressible files gzipped, compressing each body once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../scripts/lib/compress-once.ts';
import { startSiteServer } from '../../scripts/lib/serve.ts';

const root = mkdtempSync(join(tmpdir(), 'site-server-'));
const script = `export const words = ${JSON.stringify('signal '.repeat(400))};\n`;
let server: Awaited<ReturnType<typeof startSiteServer>>;
let port = 0;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with the raw bytes of the answer (fetch would decode gzip itself). */
function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

beforeAll(async () => {
  writeFileSync(join(root, '_headers'), '/*\n  X-Content-Type-Options: nosniff\n');
  writeFileSync(join(root, 'app.js'), script);
  writeFileSync(join(root, 'tiny.js'), 'export {};\n');
  writeFileSync(join(root, 'index.html'), `<!doctype html><title>x</title><p>${'news '.repeat(300)}</p>`);
  server = await startSiteServer({ dir: root, port: 0 });
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((done) => server.close(() => done()));
  rmSync(root, { recursive: true, force: true });
});

describe('site server compression', () => {
  it('sends a script gzipped, with its length and the host headers, and the same bytes each time', async () => {
    const first = await get('/app.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers['content-length']).toBe(String(first.body.length));
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(first.body).toString()).toBe(script);
    const second = await get('/app.js', { 'Accept-Encoding': 'gzip' });
    expect(second.body.equals(first.body)).toBe(true);
  });

  it('compresses a file again when it changed on disk (a rebuild)', async () => {
    const path = join(root, 'app.js');
    const changed = `${script}export const more = ${JSON.stringify('pip '.repeat(300))};\n`;
    writeFileSync(path, changed);
    try {
      const answer = await get('/app.js', { 'Accept-Encoding': 'gzip' });
      expect(gunzipSync(answer.body).toString()).toBe(changed);
    } finally {
      writeFileSync(path, script);
    }
  });

  it('serves pages by their address, gzipped', async () => {
    const page = await get('/', { 'Accept-Encoding': 'gzip' });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(page.body).toString()).toContain('<title>x</title>');
  });

  it('sends the plain body to a client that does not take gzip, and small files as they are', async () => {
    const plain = await get('/app.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    const refused = await get('/app.js', { 'Accept-Encoding': 'gzip;q=0, br' });
    expect(refused.body.toString()).toBe(script);
    const tiny = await get('/tiny.js', { 'Accept-Encoding': 'gzip' });
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body.toString()).toBe('export {};\n');
  });

  it('answers HEAD without a body and a missing file with 404', async () => {
    const head = await get('/app.js', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await get('/missing.js', { 'Accept-Encoding': 'gzip' })).status).toBe(404);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['GZIP', true],
    ['*', true],
    ['gzip;q=0', false],
    ['gzip;q=0.000, *', false],
    ['br', false],
    ['*;q=0', false],
    ['', false],
  ])('%j → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
