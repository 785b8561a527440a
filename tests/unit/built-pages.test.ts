import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { builtPages } from '../../integrations/built-pages.ts';

// A build as Astro writes it (build.format 'directory'): a folder per page, the 404 page a file of its own, and
// the scripts, styles and anything else under _astro/.
const root = mkdtempSync(join(tmpdir(), 'built-pages-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const file of [
  'index.html',
  '404.html',
  'about-us/index.html',
  'news/first-story/index.html',
  '_astro/island.js',
  '_astro/not-a-page.html',
  'sitemap-0.xml',
]) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), '<!doctype html>');
}

test('lists every page outside _astro/ by the address it is served at, the 404 page by its file name', () => {
  expect(builtPages(root)).toEqual([
    { route: '/', file: join(root, 'index.html') },
    { route: '/404.html', file: join(root, '404.html') },
    { route: '/about-us', file: join(root, 'about-us/index.html') },
    { route: '/news/first-story', file: join(root, 'news/first-story/index.html') },
  ]);
});

test('leaves the 404 page out for what visits the addresses one by one', () => {
  expect(builtPages(root, { include404: false }).map((page) => page.route)).toEqual([
    '/',
    '/about-us',
    '/news/first-story',
  ]);
});
