import { defineConfig, devices } from '@playwright/test';
import { serverEnv } from './scripts/e2e-server.ts';
import { chromiumArgs, installedChromium } from './scripts/lib/chromium.ts';
import { e2eCaptchaSiteUrl, e2ePorts, e2eSiteUrl } from './scripts/lib/e2e-env.ts';

// `npm test -- e2e` (scripts/test.ts) serves the build and the stack itself and sets E2E_BASE_URL and the other
// E2E_* variables (tests/e2e/env.ts). Without E2E_BASE_URL, `npx playwright test` starts that same environment
// on the test ports (scripts/e2e-server.ts), or outside CI reuses one already running there, and the specs take
// its addresses from it: this file is loaded again by each worker, once the server is up.
const ownServer = !process.env.E2E_BASE_URL;
const ports = e2ePorts();
if (ownServer) {
  const { E2E_BASE_URL: _site, ...addresses } = serverEnv(ports);
  Object.assign(process.env, addresses);
  // Known before the server starts, so that the CAPTCHA spec, which skips itself without it, is collected.
  process.env.E2E_CAPTCHA_URL ??= e2eCaptchaSiteUrl(ports);
}

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  workers: 2,
  retries: 0,
  reporter: process.env.CI ? 'line' : 'list',
  timeout: 30_000,
  use: {
    baseURL: process.env.E2E_BASE_URL ?? e2eSiteUrl(ports),
    launchOptions: { executablePath: installedChromium(), args: chromiumArgs },
  },
  webServer: ownServer
    ? {
        name: 'e2e',
        // The Node running Playwright (24, as the project's scripts need), not whichever `node` a shell finds.
        command: `${JSON.stringify(process.execPath)} scripts/e2e-server.ts`,
        url: e2eSiteUrl(ports),
        reuseExistingServer: !process.env.CI,
        // A stale build is made first (one astro build, more on a loaded machine).
        timeout: 600_000,
        stdout: 'pipe',
        // SIGTERM lets it stop the stack and remove its temporary data.
        gracefulShutdown: { signal: 'SIGTERM', timeout: 15_000 },
      }
    : undefined,
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'] } },
    { name: 'mobile', use: { ...devices['Pixel 7'] }, grep: /@mobile/ },
  ],
});
