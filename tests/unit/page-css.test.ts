import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  preloadImports,
  pruneCss,
  prunePage,
  pruneScriptHashes,
  selectorNeeds,
  styleHash,
} from '../../integrations/page-css.ts';

// A stylesheet shaped as Tailwind 4 writes it after the build: layers, the theme's variables, escaped class
// names, variants inside @media, @property and @keyframes, and an Astro-scoped component rule.
const css = [
  '@layer theme{:root,:host{--color-accent:#34d399;--color-gold:#fbbf24;--animate-spin:spin 1s linear infinite;--animate-pulse:pulse 2s infinite}}',
  '@layer base{*,:after,:before{box-sizing:border-box}html{color:#fff}}',
  '@layer utilities{.flex{display:flex}.grid{display:grid}.sm\\:grid-cols-2{x:1}.bg-accent\\/10{background:var(--color-accent)}',
  '.text-gold{color:var(--color-gold)}.z-\\[60\\]{z-index:60}.animate-spin{animation:var(--animate-spin)}',
  '.shadow{--tw-shadow:0 1px red;box-shadow:var(--tw-shadow)}.space-y-3>:not(:last-child){margin:0}',
  '@media (hover:hover){.hover\\:underline:hover{text-decoration:underline}.hover\\:grid:hover{display:grid}}}',
  '.card[data-astro-cid-abc]{padding:0}.quiz[data-astro-cid-def]{padding:0}',
  '@property --tw-shadow{syntax:"*";inherits:false;initial-value:0 0 #0000}',
  '@property --tw-ring{syntax:"*";inherits:false}',
  '@layer properties{@supports (-moz-orient:inline){*,:before{--tw-shadow:0 0 #0000;--tw-ring:0}}}',
  '@keyframes spin{to{transform:rotate(360deg)}}@keyframes pulse{50%{opacity:.5}}',
].join('');

describe('pruneCss', () => {
  const pruned = pruneCss(
    css,
    new Set([
      'flex',
      'sm:grid-cols-2',
      'bg-accent/10',
      'z-[60]',
      'animate-spin',
      'shadow',
      'hover:underline',
      'space-y-3',
      'card',
      'data-astro-cid-abc',
    ]),
  );

  it('keeps the rules of the classes present, escaped names and variants included, and the base', () => {
    for (const rule of [
      '.flex{display:flex}',
      '.sm\\:grid-cols-2{x:1}',
      '.bg-accent\\/10{',
      '.z-\\[60\\]{',
      '@media (hover:hover){.hover\\:underline:hover{text-decoration:underline}}',
      '.space-y-3>:not(:last-child){margin:0}',
      '.card[data-astro-cid-abc]{padding:0}',
      'html{color:#fff}',
    ]) {
      expect(pruned).toContain(rule);
    }
  });

  it('drops the rules of absent classes and components, and what only they used', () => {
    for (const gone of ['.grid{', '.text-gold', '--color-gold', '.hover\\:grid', '.quiz[', 'pulse', '--tw-ring']) {
      expect(pruned).not.toContain(gone);
    }
  });

  it('keeps the theme variables, @property, defaults and keyframes that kept rules read', () => {
    expect(pruned).toContain('--color-accent:#34d399');
    expect(pruned).toContain('--animate-spin:spin 1s linear infinite');
    expect(pruned).toContain('@keyframes spin{');
    expect(pruned).toContain('@property --tw-shadow{');
    expect(pruned).toContain('*,:before{--tw-shadow:0 0 #0000}');
  });

  it('reads what a selector needs: classes and scoping attributes, not what :not() excludes', () => {
    expect(selectorNeeds('.group:hover .group-hover\\:text-x')).toEqual(['group', 'group-hover:text-x']);
    expect(selectorNeeds('.a:not(.b) > .c')).toEqual(['a', 'c']);
    expect(selectorNeeds('.\\32 xl\\:p-4[data-astro-cid-x1][data-state="open"]')).toEqual([
      '2xl:p-4',
      'data-astro-cid-x1',
    ]);
    expect(selectorNeeds('*,:before')).toEqual([]);
  });
});

describe('prunePage', () => {
  const root = mkdtempSync(join(tmpdir(), 'page-css-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('keeps the rules of classes the page and its lazily loaded modules use, and swaps the CSP hash', () => {
    mkdirSync(join(root, '_astro'));
    // The island renders `grid` only in a dialog it imports when asked.
    writeFileSync(join(root, '_astro', 'island.js'), 'export default ()=>import("./dialog.js");');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: built code with a template literal in it
    writeFileSync(join(root, '_astro', 'dialog.js'), 'export const c=`grid ${x?"hover:grid":""}`;');
    const sheet = '.flex{display:flex}.grid{display:grid}.hover\\:grid:hover{display:grid}.text-gold{color:gold}';
    const file = join(root, 'index.html');
    writeFileSync(
      file,
      `<html><head><meta http-equiv="content-security-policy" content="style-src 'self' '${styleHash(sheet)}'; script-src 'self'"><style>${sheet}</style></head>` +
        '<body><div class="flex"><astro-island component-url="/_astro/island.js"></astro-island></div></body></html>',
    );
    const result = prunePage(root, file);
    const html = readFileSync(file, 'utf8');
    const kept = '.flex{display:flex}.grid{display:grid}.hover\\:grid:hover{display:grid}';
    expect(html).toContain(`<style>${kept}</style>`);
    expect(html).toContain(`'${styleHash(kept)}'`);
    expect(html).not.toContain(styleHash(sheet));
    expect(result).toMatchObject({ before: sheet.length, after: kept.length });
  });
});

describe('pruneScriptHashes', () => {
  it("keeps in script-src only the hashes of the page's own inline scripts", () => {
    const own = 'console.log(1)';
    const other = 'console.log(2)';
    const html =
      `<head><meta http-equiv="content-security-policy" content="script-src 'self' '${styleHash(own)}' '${styleHash(other)}' https://cdn.example/x.js; style-src 'self' '${styleHash('a{}')}'">` +
      `</head><body><script type="module">${own}</script><script type="module" src="/_astro/a.js"></script></body>`;
    const pruned = pruneScriptHashes(html);
    expect(pruned).toContain(`script-src 'self' '${styleHash(own)}' https://cdn.example/x.js; style-src`);
    expect(pruned).not.toContain(styleHash(other));
    // Other directives' hashes are not script hashes.
    expect(pruned).toContain(`'${styleHash('a{}')}'`);
  });
});

describe('preloadImports', () => {
  it("preloads the page's module scripts and what they import statically, not dynamic imports", () => {
    const root = mkdtempSync(join(tmpdir(), 'page-css-preload-'));
    mkdirSync(join(root, '_astro'));
    writeFileSync(join(root, '_astro', 'card.js'), 'import{a as b}from"./form.js";import"./site.js";b();');
    writeFileSync(
      join(root, '_astro', 'form.js'),
      'import{c}from"./site.js";export const a=()=>import("./dialog.js");',
    );
    writeFileSync(join(root, '_astro', 'site.js'), 'export const c=1;');
    writeFileSync(join(root, '_astro', 'dialog.js'), 'export default 1;');
    const html =
      '<html><head><title>x</title></head><body><script type="module" src="/_astro/site.js"></script>' +
      '<script type="module" src="/_astro/card.js"></script></body></html>';
    const link = (name: string) => `<link rel="modulepreload" href="/_astro/${name}">`;
    const out = preloadImports(root, html);
    expect(out).toContain(`${link('site.js')}${link('card.js')}${link('form.js')}</head>`);
    // Only imported when asked: no preload.
    expect(out).not.toContain('dialog.js"');
    expect(preloadImports(root, '<html><head></head><body><p>no script</p></body></html>')).not.toContain(
      'modulepreload',
    );
    rmSync(root, { recursive: true, force: true });
  });
});
