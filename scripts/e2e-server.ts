// `node scripts/e2e-server.ts`: what the e2e specs run against, for `npx playwright test` run on its own
// (playwright.config.ts starts it as its webServer, or reuses one already running on the test ports outside CI):
// the build in dist-test for the test ports (made when stale), a fresh stack on PGlite in a temporary folder, the
// fixture feed server and the site served as a CDN would, all from scripts/lib/e2e-env.ts as `npm test -- e2e`
// starts them. TEST_SITE_PORT and TEST_API_PORT move it. Ctrl-C (Playwright sends SIGTERM) stops it all.
//
// The specs read the environment's addresses from E2E_* variables (tests/e2e/env.ts), and the feed server's port
// is chosen when it starts: while it runs, this process keeps them in node_modules/.cache/e2e-server/<site
// port>.json, which playwright.config.ts reads (serverEnv) each time it is loaded, in every worker included.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopOnSignal } from 'local-supabase';
import { buildForE2e, type E2ePorts, e2ePorts, startE2eEnvironment } from './lib/e2e-env.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function serverEnvFile(ports: E2ePorts, root = ROOT): string {
  return join(root, 'node_modules', '.cache', 'e2e-server', `${ports.site}.json`);
}

/** The E2E_* variables of the server running on these ports; none when no server runs there. */
export function serverEnv(ports: E2ePorts, root = ROOT): Record<string, string> {
  try {
    return JSON.parse(readFileSync(serverEnvFile(ports, root), 'utf8'));
  } catch {
    return {};
  }
}

if (import.meta.main) {
  const ports = e2ePorts();
  buildForE2e(ports);
  const data = mkdtempSync(join(tmpdir(), 'signals-e2e-server-'));
  // Every spec may run, the CAPTCHA one included. The file is written before the site (started last) answers
  // Playwright's first request: nothing but synchronous code runs between the two.
  const environment = await startE2eEnvironment(ports, join(data, 'data'), { captcha: true });
  const file = serverEnvFile(ports);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(environment.env, null, 2));
  console.log(`\ne2e environment ready: site ${environment.siteUrl}, stack ${environment.apiUrl}. Ctrl-C stops it.`);
  stopOnSignal(async () => {
    rmSync(file, { force: true });
    await environment.stop();
    rmSync(data, { recursive: true, force: true });
  });
}
