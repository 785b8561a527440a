// The one import map of the Edge Functions (supabase/functions/deno.json): Deno (hosted Supabase, `deno
// check`, tests/deno) resolves the functions' bare imports through it, Node (the local stack) through
// node_modules, so both must name the same packages at the same versions.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { FUNCTIONS_DIR, functionNames, IMPORT_MAP } from '../../../scripts/deno.ts';

const importMap = JSON.parse(readFileSync(IMPORT_MAP, 'utf8')) as { imports: Record<string, string> };
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version: string }>;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every bare specifier the functions import (static, side-effect and dynamic), with the files importing it. */
function bareImports(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  for (const file of sources(FUNCTIONS_DIR)) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(specifier)) {
      if (!spec || spec.startsWith('.') || /^(node|npm|jsr|https?):/.test(spec)) continue;
      found.set(spec, [...(found.get(spec) ?? []), relative(FUNCTIONS_DIR, file)]);
    }
  }
  return found;
}

/** `npm:@scope/name@1.2.3` → ['@scope/name', '1.2.3']. */
function npmTarget(target: string): [string, string] {
  const match = /^npm:((?:@[^/@]+\/)?[^@]+)@(.+)$/.exec(target);
  if (!match) throw new Error(`not a pinned npm: specifier: ${target}`);
  return [match[1] as string, match[2] as string];
}

describe('supabase/functions/deno.json', () => {
  test('maps every bare import of the functions and _shared, and nothing they do not import', () => {
    const used = bareImports();
    expect(used.size).toBeGreaterThan(0);
    expect(Object.keys(importMap.imports).sort()).toEqual([...used.keys()].sort());
  });

  test.each(Object.entries(importMap.imports))(
    '%s: the npm version Node runs, as package.json names it',
    (name, target) => {
      const [pkgName, version] = npmTarget(target);
      expect(pkgName).toBe(name);
      // The exact version: a range would let Deno and Node drift apart.
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(lock.packages[`node_modules/${name}`]?.version, 'package-lock.json').toBe(version);
      expect(pkg.dependencies[name]?.replace(/^[\^~]/, ''), 'package.json').toBe(version);
    },
  );

  test('every function deploys with it (config.toml import_map), and no function folder has its own', () => {
    const config = parse(readFileSync('supabase/config.toml', 'utf8')) as {
      functions?: Record<string, { import_map?: string }>;
    };
    const names = functionNames();
    expect(names).toContain('send-contact-email');
    for (const name of names) {
      expect(config.functions?.[name]?.import_map, name).toBe('./functions/deno.json');
      for (const own of ['deno.json', 'deno.jsonc', 'import_map.json']) {
        expect(existsSync(join(FUNCTIONS_DIR, name, own)), `${name}/${own}`).toBe(false);
      }
    }
  });
});
