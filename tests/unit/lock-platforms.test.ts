import { describe, expect, it } from 'vitest';
import {
  DEVELOPER_PLATFORMS,
  incompleteFamilies,
  type Lock,
  type LockEntry,
  nativeFamilies,
  platformName,
  readLock,
} from '../../scripts/lib/lock-platforms.ts';

// A family as npm writes it: the package that declares the builds, then one entry per build it recorded.
const BUILDS: Record<string, LockEntry> = {
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'], libc: ['glibc'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'win32-x64-msvc': { os: ['win32'], cpu: ['x64'] },
};

function family(name: string, recorded: string[], declared = Object.keys(BUILDS)): Lock['packages'] {
  const packages: Lock['packages'] = {
    [`node_modules/${name}`]: {
      version: '1.0.0',
      optionalDependencies: Object.fromEntries(declared.map((build) => [`${name}-${build}`, '1.0.0'])),
    },
  };
  for (const build of recorded) {
    packages[`node_modules/${name}-${build}`] = { version: '1.0.0', optional: true, ...BUILDS[build] };
  }
  return packages;
}

const lock = (...parts: Lock['packages'][]): Lock => ({
  packages: Object.assign({ '': { version: '0.1.0' } }, ...parts),
});

describe("the project's package-lock.json", () => {
  const real = readLock('package-lock.json');

  it('records a native binding of every family for macOS, Linux (glibc and musl) and Windows', () => {
    expect(incompleteFamilies(real)).toEqual([]);
  });

  it('finds the native families the site and the stack load', () => {
    const names = nativeFamilies(real).map((f) => f.path);
    for (const name of ['@node-rs/bcrypt', 'esbuild', 'rolldown', 'lightningcss', '@tailwindcss/oxide']) {
      expect(names).toContain(`node_modules/${name}`);
    }
  });
});

describe('incompleteFamilies', () => {
  it('names the family and the platform a lock leaves without a binding', () => {
    const recorded = Object.keys(BUILDS).filter((build) => build !== 'darwin-arm64');
    expect(incompleteFamilies(lock(family('fast-hash', recorded), family('fast-zip', Object.keys(BUILDS))))).toEqual([
      'fast-hash@1.0.0 has no platform package for darwin-arm64 (the lock lacks fast-hash-darwin-arm64)',
    ]);
  });

  it('lists every platform of a family whose lock kept one build, as the registry left @node-rs/bcrypt 2.0.0', () => {
    const [line] = incompleteFamilies(lock(family('bcrypt', ['linux-x64-gnu'])));
    expect(line).toMatch(
      /^bcrypt@1\.0\.0 has no platform package for darwin-x64, darwin-arm64, linux-x64-musl, linux-arm64-glibc, linux-arm64-musl, win32-x64 /,
    );
  });

  it('counts one build without a libc field for both glibc and musl, and honours `!` entries', () => {
    const packages = family('pg', []);
    packages['node_modules/pg'].optionalDependencies = { 'pg-linux': '1.0.0', 'pg-other': '1.0.0' };
    packages['node_modules/pg-linux'] = { os: ['linux'], cpu: ['x64', 'arm64'] };
    packages['node_modules/pg-other'] = { os: ['!linux'], cpu: ['x64', 'arm64'] };
    expect(incompleteFamilies(lock(packages))).toEqual([]);
  });

  it('excuses an upstream gap only while the lock records every build the family declares', () => {
    const glibcOnly = Object.keys(BUILDS).filter((build) => !build.endsWith('musl'));
    expect(incompleteFamilies(lock(family('deno', glibcOnly, glibcOnly)))).toEqual([]);
    expect(incompleteFamilies(lock(family('deno', glibcOnly.slice(1), glibcOnly)))).toEqual([
      'deno@1.0.0 has no platform package for darwin-x64, linux-x64-musl, linux-arm64-musl (the lock lacks deno-darwin-x64)',
    ]);
  });

  it('finds a family nested under another package and its builds beside it', () => {
    const nested = Object.fromEntries(
      Object.entries(family('esbuild', ['linux-x64-gnu'])).map(([path, entry]) => [`node_modules/vite/${path}`, entry]),
    );
    const hoisted = family(
      'esbuild',
      Object.keys(BUILDS).filter((build) => build !== 'linux-x64-gnu'),
    );
    delete hoisted['node_modules/esbuild'];
    expect(incompleteFamilies(lock(nested, hoisted))).toEqual([]);
    expect(nativeFamilies(lock(nested, hoisted))[0].members).toContain(
      'node_modules/vite/node_modules/esbuild-linux-x64-gnu',
    );
  });

  it('is not fooled by a lone platform package (fsevents) or a platform build that needs its own library', () => {
    expect(
      nativeFamilies(
        lock({
          'node_modules/vite': { optionalDependencies: { fsevents: '2.3.3' } },
          'node_modules/fsevents': { os: ['darwin'] },
          'node_modules/img-darwin-arm64': {
            ...BUILDS['darwin-arm64'],
            optionalDependencies: { 'a-lib': '1', b: '1' },
          },
          'node_modules/a-lib': BUILDS['darwin-arm64'],
        }),
      ),
    ).toEqual([]);
  });
});

it('checks the seven platforms developers and CI use', () => {
  expect(DEVELOPER_PLATFORMS.map(platformName)).toEqual([
    'darwin-x64',
    'darwin-arm64',
    'linux-x64-glibc',
    'linux-x64-musl',
    'linux-arm64-glibc',
    'linux-arm64-musl',
    'win32-x64',
  ]);
});
