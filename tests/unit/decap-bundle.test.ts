import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFiles, cacheDir, DECAP, decapBundle, readTarball } from '../../integrations/decap-bundle.ts';

// Each test keeps its bundle under a throwaway root, never in this working copy's node_modules/.cache.
const roots: string[] = [];
const freshRoot = () => {
  const root = mkdtempSync(join(tmpdir(), 'decap-bundle-'));
  roots.push(root);
  return root;
};
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** npm with a registry nothing listens on (port 9, discard), and no retries. */
const unreachable = { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' };

describe('decapBundle', () => {
  it('keeps the published bundle, its chunks and WebAssembly, then serves them with no registry', async () => {
    const root = freshRoot();
    const dir = await decapBundle({ root });
    expect(dir).toBe(cacheDir(DECAP, root));
    const files = bundleFiles(dir);
    expect(files).toContain('decap-cms.js');
    expect(files.filter((file) => file.endsWith('.wasm')).length).toBeGreaterThan(0);
    expect(files.filter((file) => /^\d+\.decap-cms\.js$/.test(file)).length).toBeGreaterThan(50);
    // Only what the editor ships: no source maps, licences, or the React-less cms.js build.
    expect(readdirSync(dir).filter((file) => !files.includes(file))).toEqual(['.integrity']);
    expect(readFileSync(join(dir, 'decap-cms.js'), 'utf8')).toContain('registerPreviewTemplate');

    expect(await decapBundle({ root, env: unreachable })).toBe(dir);
    expect(readdirSync(join(root, 'node_modules', '.cache'))).toEqual([`decap-cms-${DECAP.version}`]);
  }, 120_000);

  it('says what failed and what to do when npm cannot fetch it, and keeps nothing', async () => {
    const root = freshRoot();
    const failure = decapBundle({ root, env: unreachable });
    await expect(failure).rejects.toThrow(
      `The content editor's bundle (decap-cms@${DECAP.version}) is not kept in ${cacheDir(DECAP, root)} yet and npm could not fetch it`,
    );
    await expect(failure).rejects.toThrow(/ECONNREFUSED 127\.0\.0\.1:9.*where the npm registry can be reached/);
    expect(
      existsSync(join(root, 'node_modules', '.cache')) && readdirSync(join(root, 'node_modules', '.cache')),
    ).toEqual([]);
  }, 60_000);

  it('refuses a tarball whose integrity is not the pinned one', async () => {
    const root = freshRoot();
    const pinned = { ...DECAP, integrity: `sha512-${Buffer.alloc(64).toString('base64')}` };
    await expect(decapBundle({ root, source: pinned })).rejects.toThrow(
      new RegExp(
        `decap-cms@${DECAP.version}'s tarball has integrity sha512-\\S+, not the pinned sha512-A+==: nothing was kept`,
      ),
    );
    expect(readdirSync(join(root, 'node_modules', '.cache'))).toEqual([]);
  }, 120_000);
});

describe('readTarball', () => {
  it('reads files under the package folder, long names included (ustar prefix and pax)', () => {
    const root = freshRoot();
    const deep = `dist/${'nested-folder/'.repeat(9)}chunk.decap-cms.js`;
    for (const [path, body] of [
      ['dist/decap-cms.js', 'bundle'],
      ['dist/a.wasm', 'wasm'],
      [deep, 'deep chunk'],
      ['README.md', 'readme'],
    ]) {
      mkdirSync(join(root, 'package', path, '..'), { recursive: true });
      writeFileSync(join(root, 'package', path), body);
    }
    for (const format of ['ustar', 'pax']) {
      const tgz = execFileSync('tar', [`--format=${format}`, '-czf', '-', '-C', root, 'package']);
      const files = readTarball(tgz, (path) => path.startsWith('dist/'));
      expect(Object.fromEntries([...files].map(([path, body]) => [path, body.toString()]))).toEqual({
        'dist/decap-cms.js': 'bundle',
        'dist/a.wasm': 'wasm',
        [deep]: 'deep chunk',
      });
    }
  });
});
