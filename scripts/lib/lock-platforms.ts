// Which developer platforms the lock file installs every native binding for. A package that ships per-platform
// builds (esbuild, rolldown, sharp, @node-rs/bcrypt…) declares them as optionalDependencies, each with `os`/`cpu`
// (and `libc`) fields; npm records in the lock only the ones the registry served when the lock was made, and
// `npm ci` installs only what the lock records. A family missing one platform leaves that platform without the
// binding, so the tool fails there at run time.
import { readFileSync } from 'node:fs';

export interface Platform {
  os: string;
  cpu: string;
  libc?: 'glibc' | 'musl';
}

/** The machines developers and CI use: macOS on Intel and Apple silicon, Linux (glibc and musl) x64/arm64, Windows. */
export const DEVELOPER_PLATFORMS: Platform[] = [
  { os: 'darwin', cpu: 'x64' },
  { os: 'darwin', cpu: 'arm64' },
  { os: 'linux', cpu: 'x64', libc: 'glibc' },
  { os: 'linux', cpu: 'x64', libc: 'musl' },
  { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  { os: 'linux', cpu: 'arm64', libc: 'musl' },
  { os: 'win32', cpu: 'x64' },
];

/** One entry of package-lock.json's `packages` map (lockfileVersion 2 and 3), as far as this check reads it. */
export interface LockEntry {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  link?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
}

export interface Lock {
  packages: Record<string, LockEntry>;
}

/**
 * Platforms a family's own publisher builds nothing for, so no lock can hold them: honoured only while the lock
 * records every optional dependency the family declares (then the gap is upstream's, not the registry's).
 */
export const NO_UPSTREAM_BUILD: Record<string, { platforms: string[]; why: string }> = {
  deno: {
    platforms: ['linux-x64-musl', 'linux-arm64-musl'],
    why: 'Deno publishes glibc builds only; it runs `check:deno` and tests/deno, not the site or the stack',
  },
};

export interface Family {
  /** The lock path of the package that declares the platform packages, e.g. `node_modules/esbuild`. */
  path: string;
  /** The lock paths of the platform packages the lock records for it. */
  members: string[];
  /** Optional dependencies the family declares that the lock does not record (the registry did not serve them). */
  unrecorded: string[];
  /** The developer platforms none of them installs on, less the upstream gaps of NO_UPSTREAM_BUILD. */
  missing: Platform[];
}

export function platformName(p: Platform): string {
  return `${p.os}-${p.cpu}${p.libc ? `-${p.libc}` : ''}`;
}

/** npm's rule (npm-install-checks): a list allows a value when it names it, or holds only `!other` entries. */
function allows(list: string[] | undefined, value: string | undefined): boolean {
  if (!list || list.length === 0 || value === undefined || (list.length === 1 && list[0] === 'any')) return true;
  if (list.includes(`!${value}`)) return false;
  return list.includes(value) || list.every((item) => item.startsWith('!'));
}

export function installsOn(entry: LockEntry, p: Platform): boolean {
  return allows(entry.os, p.os) && allows(entry.cpu, p.cpu) && allows(entry.libc, p.libc);
}

function isPlatformSpecific(entry: LockEntry): boolean {
  return Boolean(entry.os?.length || entry.cpu?.length || entry.libc?.length);
}

/** Node's lookup from a package at `from`: its own node_modules, then each enclosing one up to the root. */
function resolveIn(packages: Lock['packages'], from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
    const at = dir.lastIndexOf('node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at).replace(/\/$/, '');
  }
}

/**
 * The native families in a lock: packages (not themselves platform-specific) that declare two or more optional
 * dependencies, of which the lock records at least one with `os`/`cpu`/`libc`. A lone optional platform package
 * (vite's `fsevents`, sharp's libvips beside its own platform build) is a feature for one platform, not a family.
 */
export function nativeFamilies(
  lock: Lock,
  platforms: Platform[] = DEVELOPER_PLATFORMS,
  gaps: typeof NO_UPSTREAM_BUILD = NO_UPSTREAM_BUILD,
): Family[] {
  const families: Family[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const optional = Object.keys(entry.optionalDependencies ?? {});
    if (entry.link || isPlatformSpecific(entry) || optional.length < 2) continue;
    const resolved = optional.map((name) => [name, resolveIn(lock.packages, path, name)] as const);
    const members = resolved
      .map(([, member]) => member)
      .filter((member): member is string => member !== undefined && isPlatformSpecific(lock.packages[member]));
    if (members.length === 0) continue;
    const unrecorded = resolved.filter(([, member]) => member === undefined).map(([name]) => name);
    const gap = unrecorded.length === 0 ? (gaps[packageName(path)]?.platforms ?? []) : [];
    const missing = platforms.filter(
      (p) => !gap.includes(platformName(p)) && !members.some((member) => installsOn(lock.packages[member], p)),
    );
    families.push({ path, members, unrecorded, missing });
  }
  return families;
}

function packageName(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** One line per family that leaves a developer platform without its binding; empty when the lock is complete. */
export function incompleteFamilies(lock: Lock, platforms: Platform[] = DEVELOPER_PLATFORMS): string[] {
  return nativeFamilies(lock, platforms)
    .filter((family) => family.missing.length > 0)
    .map((family) => {
      const version = lock.packages[family.path].version;
      const unrecorded = family.unrecorded.length ? ` (the lock lacks ${family.unrecorded.join(', ')})` : '';
      return `${packageName(family.path)}@${version} has no platform package for ${family.missing.map(platformName).join(', ')}${unrecorded}`;
    });
}

export function readLock(file: string): Lock {
  return JSON.parse(readFileSync(file, 'utf8')) as Lock;
}
