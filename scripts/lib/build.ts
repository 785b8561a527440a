// Builds the site with Astro when the build is missing or older than its sources or its settings.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The integrations in astro.config.mjs (integrations/: the page CSS, the header files, the compile hint, the client
// directives, and the editor under `npm run cms` only) shape every build.
const sources = ['src', 'content', 'public', 'astro.config.mjs', 'integrations', 'package.json', 'tsconfig.json'];
const buildEnv = [
  'PUBLIC_SUPABASE_URL',
  'PUBLIC_SUPABASE_PUBLISHABLE_KEY',
  'PUBLIC_SUPABASE_ANON_KEY',
  'SITE_URL',
  'PORT',
  'PUBLIC_TURNSTILE_SITE_KEY',
];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** What the build depends on besides files: the public settings baked into the pages. */
function settingsHash(env: NodeJS.ProcessEnv): string {
  return createHash('sha256')
    .update(JSON.stringify(buildEnv.map((k) => env[k] ?? '')))
    .digest('hex');
}

/** Runs `astro build` into outDir unless it is up to date; returns whether it built. */
export function buildIfStale(outDir = 'dist', env: NodeJS.ProcessEnv = process.env): boolean {
  const stamp = join(resolve(outDir), '.build-stamp');
  const hash = settingsHash(env);
  if (existsSync(stamp)) {
    const fresh = statSync(stamp).mtimeMs >= Math.max(...sources.map(newestMtime));
    if (fresh && readFileSync(stamp, 'utf8') === hash) return false;
  }
  const astro = resolve('node_modules/astro/bin/astro.mjs');
  const result = spawnSync(process.execPath, [astro, 'build', '--outDir', outDir], {
    stdio: 'inherit',
    env: { ...env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) throw new Error(`astro build failed (exit ${result.status})`);
  writeFileSync(stamp, hash);
  return true;
}

if (import.meta.main) {
  buildIfStale(process.argv[2] ?? 'dist');
}
