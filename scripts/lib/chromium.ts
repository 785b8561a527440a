// The browser of the e2e tests, the accessibility audit and Lighthouse: CHROMIUM_PATH when set, else
// Playwright's own Chromium (downloaded on first need where its download server can be reached), else the
// system's (/usr/bin/chromium, as Debian's package installs it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromium } from '@playwright/test';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
/** Marks a failed download, so that a machine without access tries again only after a day. */
const FAILED_MARK = resolve('node_modules/.cache/playwright-download-failed');
const DAY_MS = 24 * 60 * 60 * 1000;

export const INSTALL_HINT =
  'No Chromium found: run `npx playwright install chromium` (Debian without access to its download: ' +
  '`apt-get install chromium`), or set CHROMIUM_PATH.';

function playwrightChromium(): string | undefined {
  const path = chromium.executablePath();
  return path && existsSync(path) ? path : undefined;
}

/** A Chromium already on this machine, in the order above; undefined when there is none. */
export function installedChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named) return existsSync(named) ? named : undefined;
  return playwrightChromium() ?? (existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined);
}

function downloadFailedRecently(): boolean {
  return existsSync(FAILED_MARK) && Date.now() - statSync(FAILED_MARK).mtimeMs < DAY_MS;
}

/**
 * A Chromium for this run: Playwright's, downloading it once when it is missing (and no download failed in the
 * last day), else the system's. Sets CHROMIUM_PATH so that the test runner's children use the same browser.
 * Exits with INSTALL_HINT when there is none.
 */
export function ensureChromium(): string {
  if (!process.env.CHROMIUM_PATH && !playwrightChromium() && !downloadFailedRecently()) {
    console.log('Downloading Playwright’s Chromium (npx playwright install chromium)…');
    const run = spawnSync(process.execPath, [resolve('node_modules/@playwright/test/cli.js'), 'install', 'chromium'], {
      stdio: 'inherit',
      timeout: 300_000,
    });
    if (run.status !== 0 || !playwrightChromium()) {
      mkdirSync(dirname(FAILED_MARK), { recursive: true });
      writeFileSync(FAILED_MARK, new Date().toISOString());
      console.log(`Playwright’s download failed; using ${SYSTEM_CHROMIUM} if present.`);
    }
  }
  const path = installedChromium();
  if (!path) {
    console.error(INSTALL_HINT);
    process.exit(1);
  }
  process.env.CHROMIUM_PATH = path;
  return path;
}

/** The flags every launch uses: no sandbox (CI runs as root), and no calls to Google's services. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
