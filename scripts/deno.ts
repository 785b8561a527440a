// The Edge Functions on Deno, the runtime hosted Supabase runs them on: the binary the `deno` package ships,
// a download cache inside node_modules, the one import map, and `deno check` of every function's entry.
// `npm run check:deno` type-checks them; tests/deno serves each one with Deno beside the Node host.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);

export const FUNCTIONS_DIR = resolve('supabase/functions');
/** The import map every function deploys with (`[functions.<name>] import_map` in config.toml). */
export const IMPORT_MAP = join(FUNCTIONS_DIR, 'deno.json');

/**
 * Where Deno keeps the npm packages it downloads: under node_modules, so a fresh machine downloads them once
 * and `rm -rf node_modules` clears them with everything else. DENO_DIR overrides it.
 */
export function denoDir(): string {
  return process.env.DENO_DIR || resolve('node_modules/.cache/deno');
}

/** The Deno executable of the `deno` package (its platform package's binary, linked in by its install step). */
export function denoBinary(): string {
  const dir = dirname(require.resolve('deno/package.json'));
  const exe = join(dir, process.platform === 'win32' ? 'deno.exe' : 'deno');
  if (existsSync(exe)) return exe;
  // The package's postinstall did not run (install scripts not allowed): it finds the binary the same way.
  return (require(join(dir, 'install_api.cjs')) as { runInstall(): string }).runInstall();
}

/** The functions: every folder of supabase/functions with an index.ts (`_shared` is not one). */
export function functionNames(): string[] {
  return readdirSync(FUNCTIONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('_') && existsSync(join(FUNCTIONS_DIR, d.name, 'index.ts')))
    .map((d) => d.name)
    .sort();
}

export const entryOf = (name: string) => join(FUNCTIONS_DIR, name, 'index.ts');

/**
 * What Deno needs from the caller's environment to reach the npm registry: the CA bundle and proxy settings
 * (a network that inspects TLS answers with its own CA, which Deno trusts only through SSL_CERT_FILE or
 * DENO_CERT), and the registry itself. Nothing else is passed on.
 */
const NETWORK_VARIABLES = [
  'DENO_CERT',
  'DENO_TLS_CA_STORE',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
  'NPM_CONFIG_REGISTRY',
];

/**
 * The environment Deno itself needs (its cache, the network settings above, no colours in output) and
 * `extra`, without the caller's other variables.
 */
export function denoEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { DENO_DIR: denoDir(), NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' };
  for (const name of NETWORK_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/**
 * `deno check` of every function's index.ts against the import map. The lock file
 * (supabase/functions/deno.lock) must match it: `--frozen` fails on a dependency change that was not locked;
 * `npm run check:deno -- --update-lock` rewrites the lock after deno.json changed.
 */
export function denoCheck(options: { updateLock?: boolean } = {}): Promise<number> {
  const args = [
    'check',
    `--frozen=${options.updateLock ? 'false' : 'true'}`,
    '--config',
    IMPORT_MAP,
    ...functionNames().map(entryOf),
  ];
  const child = spawn(denoBinary(), args, {
    stdio: 'inherit',
    env: { ...process.env, ...denoEnv() },
  });
  return new Promise((done) => child.once('exit', (code) => done(code ?? 1)));
}

if (import.meta.main) {
  const started = Date.now();
  const code = await denoCheck({ updateLock: process.argv.includes('--update-lock') });
  console.log(
    `deno check of ${functionNames().length} functions: ${code === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.exit(code);
}
