// Claims (src/content/claims.ts): references resolve to the claim's words, an unknown claim fails every build
// naming the file and field, a claim without evidence or past its review date fails a production build naming the
// claim's file and field (and only warns elsewhere); and the site's copy refers to its claims rather than stating
// them in its own words.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { type Claim, claimProblems, claimResolver, claimsCheckFor, readClaims } from '../../src/content/claims.ts';

const root = resolve(import.meta.dirname, '../../content');

const complete: Claim = {
  id: 'under-a-second',
  file: 'content/claims/under-a-second.md',
  raw: '',
  text: 'under a second',
  kind: 'measured',
  evidence: { source: 'npm run bench -- delivery', date: '2026-11-27', owner: 'Engineering' },
  reviewBy: '2027-05-27',
};
const bare: Claim = {
  id: 'active-traders',
  file: 'content/claims/active-traders.md',
  raw: '',
  text: '100+',
  kind: 'measured',
};
const claims = new Map([
  [complete.id, complete],
  [bare.id, bare],
]);

describe('resolving references', () => {
  const resolver = (check: 'strict' | 'warn', today = '2026-11-27') => {
    const warnings: string[] = [];
    return { warnings, r: claimResolver(claims, { check, today, warn: (m) => warnings.push(m) }) };
  };

  test("a reference becomes the claim's text, or the words it gives", () => {
    const { r } = resolver('strict');
    expect(r.text('Signals in {claim:under-a-second}.', 'f:')).toBe('Signals in under a second.');
    expect(r.text('{claim:under-a-second|Under 1s delivery}', 'f:')).toBe('Under 1s delivery');
    expect(r.text('No reference {here} or {claim} stays as written.', 'f:')).toBe(
      'No reference {here} or {claim} stays as written.',
    );
  });

  test('every string inside frontmatter is resolved; other values are left alone', () => {
    const { r } = resolver('strict');
    const data = { title: '{claim:under-a-second}', items: [{ text: 'a {claim:under-a-second|1 s}' }], order: 3 };
    expect(r.data(data, 'content/pages/x.md:')).toEqual({
      title: 'under a second',
      items: [{ text: 'a 1 s' }],
      order: 3,
    });
  });

  test('an unknown claim fails in either mode, naming the file and field that refer to it', () => {
    for (const check of ['strict', 'warn'] as const) {
      const { r } = resolver(check);
      expect(() => r.data({ hero: { stats: ['ok', '{claim:nope}'] } }, 'content/pages/index.md:')).toThrow(
        'content/pages/index.md: hero.stats[1]: {claim:nope} names no claim: create content/claims/nope.md',
      );
    }
  });

  test("a production build refuses a claim without evidence, naming the claim's file, fields and its use", () => {
    const { r } = resolver('strict');
    expect(() => r.data({ stats: ['{claim:active-traders}'] }, 'content/pages/index.md:')).toThrow(
      'content/claims/active-traders.md: evidence.source is missing; evidence.date is missing; evidence.owner is ' +
        'missing; reviewBy is missing (used by content/pages/index.md: stats[0])',
    );
  });

  test('a production build refuses a claim past its review date', () => {
    const { r } = resolver('strict', '2027-05-28');
    expect(() => r.text('{claim:under-a-second}', 'content/faq/04.md (body)')).toThrow(
      'content/claims/under-a-second.md: reviewBy 2027-05-27 has passed (used by content/faq/04.md (body))',
    );
    // On its review date it still stands.
    expect(resolver('strict', '2027-05-27').r.text('{claim:under-a-second}', 'f')).toBe('under a second');
  });

  test('any other build warns once per claim and goes on', () => {
    const { r, warnings } = resolver('warn');
    expect(r.text('{claim:active-traders} and {claim:active-traders}', 'content/pages/index.md: hero')).toBe(
      '100+ and 100+',
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('content/claims/active-traders.md: evidence.source is missing');
    expect(warnings[0]).toContain('a production build refuses it');
  });
});

describe('which builds are strict', () => {
  test.each([
    [{ SITE_URL: 'https://signalone.example' }, 'strict'],
    [{ SITE_URL: 'http://127.0.0.1:4321' }, 'warn'],
    [{ SITE_URL: 'https://localhost:4321' }, 'warn'],
    [{}, 'warn'],
    [{ SITE_URL: 'http://127.0.0.1:4321', CLAIMS_CHECK: 'strict' }, 'strict'],
    [{ SITE_URL: 'https://signalone.example', CLAIMS_CHECK: 'warn' }, 'warn'],
  ] as const)('%o: %s', (env, check) => {
    expect(claimsCheckFor(env)).toBe(check);
  });
});

describe('claim files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'claims-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a file that does not match the schema fails naming the file and field', () => {
    writeFileSync(join(dir, 'odd.md'), '---\ntext: "x"\nkind: guess\n---\n');
    expect(() => readClaims(dir)).toThrow(/^content\/claims\/odd\.md: kind /);
    writeFileSync(join(dir, 'odd.md'), '---\ntext: "x"\nkind: measured\nreviewBy: next year\n---\n');
    expect(() => readClaims(dir)).toThrow('content/claims/odd.md: reviewBy must be a date written YYYY-MM-DD');
  });

  test('a date the editor wrote unquoted is read as the same day', () => {
    writeFileSync(
      join(dir, 'odd.md'),
      '---\ntext: "x"\nkind: measured\nevidence:\n  source: a\n  date: 2026-11-27\n  owner: b\nreviewBy: 2027-01-01\n---\n',
    );
    const claim = readClaims(dir).get('odd');
    expect(claim?.evidence?.date).toBe('2026-11-27');
    expect(claim && claimProblems(claim, '2026-12-01')).toEqual([]);
  });
});

describe("the site's copy", () => {
  const site = readClaims(join(root, 'claims'));
  const copyFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? copyFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
    );
  const files = copyFiles(root).filter((f) => !f.includes(`${join(root, 'claims')}`));

  test('every claim it refers to exists, and every claim is referred to', () => {
    const referred = new Set(
      files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\{claim:([^}|]*)/g)].map((m) => m[1])),
    );
    expect([...referred].filter((id) => !site.has(id))).toEqual([]);
    expect([...site.keys()].filter((id) => !referred.has(id))).toEqual([]);
  });

  test('no page states a measured, simulated, contractual or offer claim in its own words', () => {
    const stated = files.flatMap((f) => {
      const text = readFileSync(f, 'utf8').replace(/\{claim:[^}]*\}/g, '');
      return [...site.values()]
        .filter((c) => c.kind !== 'target' && text.toLowerCase().includes(c.text.toLowerCase()))
        .map((c) => `${f.slice(root.length + 1)} states "${c.text}": write {claim:${c.id}}`);
    });
    expect(stated).toEqual([]);
  });
});
