import { defineConfig, devices } from '@playwright/test';
import { chromiumArgs, installedChromium } from './scripts/lib/chromium.ts';

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: process.env.CI ? 'line' : 'list',
  timeout: 30_000,
  use: {
    // scripts/test.ts serves the build and the stack and sets this; by hand: see docs/testing.md.
    baseURL: process.env.E2E_BASE_URL ?? 'http://127.0.0.1:4321',
    launchOptions: { executablePath: installedChromium(), args: chromiumArgs },
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'] } },
    { name: 'mobile', use: { ...devices['Pixel 7'] }, grep: /@mobile/ },
  ],
});
