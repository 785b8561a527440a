import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'astro/zod';
import { describe, expect, it } from 'vitest';
import {
  adminPolicy,
  editorRules,
  renderEditorHeadersFile,
  renderEditorNginx,
} from '../../integrations/admin-headers.ts';
import { type CmsCollection, type CmsField, cmsConfig, contentCollections } from '../../integrations/cms-config.ts';
import { contentCollections as buildCollections } from '../../src/content/collections.ts';
import { parseFrontmatter } from '../content.ts';

// The CMS form is generated from the build's zod schemas: every field the build reads is in the form, with
// the same kind, required flag and rules, and nothing the build accepts is refused by the form.
const config = cmsConfig({ repo: 'owner/site' }) as { collections: CmsCollection[] };
const byName = new Map(config.collections.map((c) => [c.name, c]));

// biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions are walked generically
const def = (schema: z.ZodType): any => (schema as unknown as { _zod: { def: unknown } })._zod.def;

/** Every field path of a zod object schema: `hero.highlight.label`, `sections.items.title`. */
function schemaPaths(schema: z.ZodType, prefix = ''): string[] {
  let d = def(schema);
  while (d.type === 'optional') d = def(d.innerType);
  if (d.type === 'array') return schemaPaths(d.element, prefix);
  if (d.type === 'tuple') return schemaPaths(d.items[0], prefix);
  if (d.type !== 'object') return [];
  return Object.entries(d.shape as Record<string, z.ZodType>).flatMap(([key, value]) => [
    `${prefix}${key}`,
    ...schemaPaths(value, `${prefix}${key}.`),
  ]);
}

function fieldPaths(fields: CmsField[], prefix = ''): string[] {
  return fields.flatMap((f) => [
    `${prefix}${f.name}`,
    ...fieldPaths(f.fields ?? (f.field?.fields ? f.field.fields : []), `${prefix}${f.name}.`),
  ]);
}

const field = (fields: CmsField[] | undefined, path: string): CmsField | undefined => {
  const [head, ...rest] = path.split('.');
  const found = fields?.find((f) => f.name === head);
  return rest.length ? field(found?.fields, rest.join('.')) : found;
};

const accepts = (f: CmsField | undefined, value: string) => new RegExp(f?.pattern?.[0] ?? '').test(value);

describe('CMS config generated from the content schemas', () => {
  it('has a collection for every collection of the build and every folder of content/', () => {
    const collections = contentCollections();
    expect(collections.map((c) => c.name)).toEqual([...byName.keys()]);
    expect([...byName.keys()].sort()).toEqual(Object.keys(buildCollections).sort());
    const folders = readdirSync('content').map((f) => `content/${f}`);
    expect(collections.map((c) => c.folder).sort()).toEqual(folders.sort());
  });

  it('has every field of every schema, however deep', () => {
    for (const collection of contentCollections()) {
      const cms = byName.get(collection.name);
      const forms = cms?.files ? cms.files.map((f) => f.fields) : [cms?.fields ?? []];
      for (const fields of forms) {
        const have = new Set(fieldPaths(fields));
        const missing = schemaPaths(collection.schema).filter(
          // A map with free keys (labels' strings) is one group per file with that file's keys.
          (path) => !have.has(path),
        );
        expect(missing, `${collection.name}: fields missing from the CMS`).toEqual([]);
      }
    }
  });

  it('gives each field the widget and rules of its schema', () => {
    const pages = byName.get('pages')?.fields;
    expect(field(pages, 'title')).toMatchObject({ widget: 'string' });
    expect(field(pages, 'title')?.required).toBeUndefined();
    expect(field(pages, 'lead')).toMatchObject({ widget: 'text', required: false });
    const description = field(pages, 'description');
    expect(description?.widget).toBe('text');
    expect(accepts(description, 'x'.repeat(49))).toBe(false);
    expect(accepts(description, 'x'.repeat(50))).toBe(true);
    expect(accepts(description, 'x'.repeat(161))).toBe(false);
    expect(description?.pattern?.[1]).toContain('meta description must be at least 50 characters');
    expect(field(pages, 'ctas')).toMatchObject({ widget: 'list', required: false });
    expect(field(pages, 'ctas.variant')).toMatchObject({
      widget: 'select',
      options: ['primary', 'secondary', 'ghost'],
    });
    expect(accepts(field(pages, 'ctas.href'), '/faq')).toBe(true);
    expect(accepts(field(pages, 'ctas.href'), 'faq')).toBe(false);
    expect(field(pages, 'body')).toMatchObject({ widget: 'markdown', required: false });

    const faq = byName.get('faq')?.fields;
    expect(field(faq, 'body')).toMatchObject({ widget: 'markdown', label: 'Answer' });
    expect(accepts(field(faq, 'question'), 'Why?')).toBe(true);
    expect(accepts(field(faq, 'question'), 'Why')).toBe(false);
    expect(field(faq, 'order')).toMatchObject({ widget: 'number', value_type: 'int', min: 0 });

    const bands = byName.get('bands')?.fields;
    expect(field(bands, 'maxTrades')).toMatchObject({ widget: 'number', value_type: 'int', min: 1 });
    expect(field(bands, 'style')).toMatchObject({ widget: 'select' });

    const signals = byName.get('signals')?.fields;
    expect(field(signals, 'takeProfit')).toMatchObject({ widget: 'list', min: 3, max: 3 });
    const quiz = byName.get('quiz')?.fields;
    expect(field(quiz, 'questions')).toMatchObject({ widget: 'list', min: 5, max: 5 });
    const score = field(quiz, 'questions.options.score');
    expect(score?.widget).toBe('number');
    expect(['1', '3', '5', '2'].map((v) => accepts(score, v))).toEqual([true, true, true, false]);
    expect(accepts(field(quiz, 'labels.questionCount'), 'Question {n} of {total}')).toBe(true);
    expect(accepts(field(quiz, 'labels.questionCount'), 'Question {n}')).toBe(false);
  });

  it('accepts every value the content has today (the build accepts them)', () => {
    const refused: string[] = [];
    const check = (fields: CmsField[], data: Record<string, unknown>, where: string) => {
      for (const f of fields) {
        const value = data?.[f.name];
        if (value === undefined) continue;
        if (f.pattern && !Array.isArray(value) && typeof value !== 'object' && !accepts(f, String(value)))
          refused.push(`${where}: ${f.name}`);
        if (f.widget === 'object' && f.fields) check(f.fields, value as Record<string, unknown>, where);
        if (f.widget === 'list' && Array.isArray(value)) {
          for (const item of value) {
            if (f.fields) check(f.fields, item, where);
            else if (f.field?.pattern && !accepts(f.field, String(item))) refused.push(`${where}: ${f.name}`);
          }
        }
      }
    };
    for (const collection of config.collections) {
      const entries = collection.files
        ? collection.files.map((f) => ({ path: f.file, fields: f.fields }))
        : readdirSync(collection.folder as string).map((f) => ({
            path: join(collection.folder as string, f),
            fields: collection.fields ?? [],
          }));
      for (const entry of entries) {
        check(entry.fields, parseFrontmatter(readFileSync(entry.path, 'utf8')).frontmatter, entry.path);
      }
    }
    expect(refused).toEqual([]);
  });

  it('gives every labels file a form with its own keys', () => {
    const auth = byName.get('labels')?.files?.find((f) => f.name === 'auth');
    expect(auth?.file).toBe('content/labels/auth.md');
    const keys = Object.keys(
      (parseFrontmatter(readFileSync('content/labels/auth.md', 'utf8')).frontmatter as { strings: object }).strings,
    );
    expect(field(auth?.fields, 'strings')?.fields?.map((f) => f.name)).toEqual(keys);
  });

  it('saves through GitHub in production with the narrow scope, and uploads under src/assets', () => {
    expect(cmsConfig({ repo: 'owner/site', authUrl: 'https://auth.example.com' })).toMatchObject({
      backend: {
        name: 'github',
        repo: 'owner/site',
        branch: 'main',
        base_url: 'https://auth.example.com',
        auth_scope: 'public_repo',
      },
      media_folder: 'src/assets/uploads',
    });
    expect(cmsConfig({ repo: 'owner/site', authScope: 'repo' })).toMatchObject({ backend: { auth_scope: 'repo' } });
    expect(config).not.toHaveProperty('local_backend');
  });
});

describe('the editor’s headers', () => {
  it('has its own policy: scripts from its origin only, the GitHub API, no framing, on every path', () => {
    const policy = adminPolicy();
    expect(policy).toMatch(/script-src 'self' 'unsafe-eval';/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).toContain("connect-src 'self' https://api.github.com;");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(editorRules().map((rule) => rule.path)).toEqual(['/*']);
    expect(renderEditorHeadersFile()).toContain(`/*\n  X-Content-Type-Options: nosniff\n`);
    expect(renderEditorHeadersFile()).toContain(
      `  Content-Security-Policy: ${policy}\n  X-Robots-Tag: noindex, nofollow\n`,
    );
    expect(renderEditorNginx()).toContain('location / {\n');
  });
});
