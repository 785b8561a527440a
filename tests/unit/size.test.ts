import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { HTML_BUDGET, MEMBER_HTML_BUDGET, measure, overBudget } from '../../scripts/size.ts';

// A built page whose island pulls in modules through chains of static imports, as Vite splits them.
const root = mkdtempSync(join(tmpdir(), 'size-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const modules: Record<string, string> = {
  'island.js': `import{a as e}from"./shared.js";import{b}from"./vendor.js";export default e+b;`,
  'shared.js': `import{c}from"./deep.js";export const a=c+"${'s'.repeat(2000)}";`,
  'deep.js': `export const c="${'d'.repeat(3000)}";`,
  'vendor.js': `export const b="${'v'.repeat(1000)}";`,
  'renderer.js': `export default "${'r'.repeat(500)}";`,
  'lazy.js': `export const l="${'l'.repeat(4000)}";`,
};
mkdirSync(join(root, '_astro'));
for (const [name, code] of Object.entries(modules)) writeFileSync(join(root, '_astro', name), code);
mkdirSync(join(root, 'member'));
writeFileSync(
  join(root, 'member', 'index.html'),
  `<html><body><astro-island component-url="/_astro/island.js" renderer-url="/_astro/renderer.js"></astro-island>
  <script type="module">import("/_astro/lazy.js")</script></body></html>`,
);

describe('measure', () => {
  it('counts every module an island reaches through static imports, each once, and no lazy chunk', () => {
    const [page] = measure(root);
    const gz = (name: string) => gzipSync(modules[name]).length;
    const inline = gzipSync('import("/_astro/lazy.js")').length;
    const expected = ['island.js', 'shared.js', 'deep.js', 'vendor.js', 'renderer.js'].reduce(
      (n, m) => n + gz(m),
      inline,
    );
    expect(page).toMatchObject({ route: '/member', islands: true, bytes: expected });
  });
});

describe('HTML budget', () => {
  it('measures each page’s HTML gzip, inline CSS included, and flags a page past 14 KB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-html-'));
    try {
      // Random text does not compress: 15 KB of it is past the budget after gzip, 8 KB is not.
      const noise = (n: number) => Array.from({ length: n }, () => Math.random().toString(36).slice(2, 3)).join('');
      writeFileSync(join(dir, 'index.html'), `<html><head><style>${noise(8 * 1024)}</style></head></html>`);
      mkdirSync(join(dir, 'faq'));
      writeFileSync(join(dir, 'faq', 'index.html'), `<html><head><style>${noise(22 * 1024)}</style></head></html>`);
      const pages = measure(dir);
      const html = (route: string) => pages.find((p) => p.route === route);
      expect(html('/')?.html).toBe(gzipSync(readFileSync(join(dir, 'index.html'))).length);
      expect(pages.filter(overBudget).map((p) => p.route)).toEqual(['/faq']);
      expect(html('/faq')?.html).toBeGreaterThan(HTML_BUDGET);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds the signed-in pages to 16 KB, not 14', () => {
    const dir = mkdtempSync(join(tmpdir(), 'size-member-'));
    // Text that does not compress, the same every run: base64 of a chain of SHA-256 digests (6 bits a character).
    const noise = (n: number) => {
      const parts: string[] = [];
      for (let i = 0; parts.join('').length < n; i++)
        parts.push(createHash('sha256').update(String(i)).digest('base64'));
      return parts.join('').slice(0, n);
    };
    try {
      mkdirSync(join(dir, 'settings'));
      mkdirSync(join(dir, 'faq'));
      const page = (route: string, kb: number) =>
        writeFileSync(join(dir, route, 'index.html'), `<html><head><style>${noise(kb * 1024)}</style></head></html>`);
      page('settings', 20);
      page('faq', 20);
      const pages = measure(dir);
      const settings = pages.find((p) => p.route === '/settings')?.html ?? 0;
      expect(settings).toBeGreaterThan(HTML_BUDGET);
      expect(settings).toBeLessThan(MEMBER_HTML_BUDGET);
      expect(pages.filter(overBudget).map((p) => p.route)).toEqual(['/faq']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
