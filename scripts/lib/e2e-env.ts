// What the e2e tests and the accessibility audit run against: the build in dist-test (made for the test
// ports), a fresh local stack on PGlite with rate limits off, the fixture feed server for the news pages,
// and the site served as a CDN would. scripts/test.ts and scripts/audit-a11y.ts both start it from here.
// Beside it, when the run includes the one spec that checks the forms' CAPTCHA (tests/e2e/captcha.spec.ts),
// dist-captcha: the same site built with a Turnstile test site key, served on the next port; dist-test has no
// key, so no other spec loads Turnstile.
import { join, resolve, sep } from 'node:path';
import { loadConfig, startStack } from 'local-supabase';
import { sleep } from 'local-supabase/testing';
import { buildIfStale } from './build.ts';
import { startFeedServer } from './feed-server.ts';
import { startSiteServer } from './serve.ts';

export interface E2ePorts {
  site: number;
  /** The build with a CAPTCHA site key (dist-captcha): the site's port + 1. */
  captchaSite: number;
  api: number;
  db: number;
  mailWeb: number;
  smtp: number;
}

// Ports of the test run, apart from the ones `npm start` uses, so both can run at once.
// TEST_SITE_PORT and TEST_API_PORT move them (the database and mail ports follow the API's, as 54321 → 54322…).
export function e2ePorts(env: NodeJS.ProcessEnv = process.env): E2ePorts {
  const api = Number(env.TEST_API_PORT ?? 55321);
  const site = Number(env.TEST_SITE_PORT ?? 4331);
  return { site, captchaSite: site + 1, api, db: api + 1, mailWeb: api + 3, smtp: api + 4 };
}

export const e2eSiteUrl = (ports: E2ePorts) => `http://127.0.0.1:${ports.site}`;
export const e2eCaptchaSiteUrl = (ports: E2ePorts) => `http://127.0.0.1:${ports.captchaSite}`;

/**
 * Cloudflare's test site key that always passes (developers.cloudflare.com/turnstile/troubleshooting/testing):
 * baked into dist-captcha, whose spec serves a stand-in for Turnstile's script in its place anyway.
 */
export const E2E_CAPTCHA_SITE_KEY = '1x00000000000000000000AA';
export const E2E_CAPTCHA_DIST = 'dist-captcha';
/** signals-ingest's secret on the e2e stack (tests/e2e/env.ts signs with it): `npm start`'s development value. */
export const E2E_SIGNALS_INGEST_SECRET = 'local-demo-signals-ingest-secret-not-for-production';
/** The spec that runs against dist-captcha. */
export const CAPTCHA_SPEC = 'tests/e2e/captcha.spec.ts';

/**
 * Whether Playwright, given these file filters (none: every spec), runs the CAPTCHA spec. Read as Playwright reads
 * them: `file[:line[:column]]`, the file a regular expression (`/re/flags`, or case-insensitive) tested against
 * the spec's absolute path.
 */
export function runsCaptchaSpec(filters: string[], root = process.cwd()): boolean {
  if (!filters.length) return true;
  const spec = resolve(root, CAPTCHA_SPEC).split(sep).join('/');
  return filters.some((filter) => {
    const file = /^(.*?):(\d+):?(\d+)?$/.exec(filter)?.[1] ?? filter;
    const literal = /^\/(.*)\/([gi]*)$/.exec(file);
    try {
      return (literal ? new RegExp(literal[1], literal[2]) : new RegExp(file, 'i')).test(spec);
    } catch {
      // Not a regular expression: Playwright says so; build as for every spec.
      return true;
    }
  });
}
export const e2eApiUrl = (ports: E2ePorts) => `http://127.0.0.1:${ports.api}`;

/** Builds `outDir` for these ports when sources or settings changed; throws when the build fails. */
export function buildForE2e(ports: E2ePorts, outDir = 'dist-test'): void {
  buildIfStale(outDir, {
    ...process.env,
    PUBLIC_SUPABASE_URL: e2eApiUrl(ports),
    SITE_URL: e2eSiteUrl(ports),
    PORT: String(ports.site),
    // The specs and the size budgets measure the site as it is without a CAPTCHA.
    PUBLIC_TURNSTILE_SITE_KEY: '',
  });
}

/**
 * dist-captcha: the site with a CAPTCHA site key, for the same stack, when sources or settings changed (the key is
 * one of the settings build.ts's stamp counts). Its own folder rather than dist-test's, so every other spec keeps
 * running without Turnstile (no third-party request, no widget).
 */
export function buildCaptchaForE2e(ports: E2ePorts): void {
  buildIfStale(E2E_CAPTCHA_DIST, {
    ...process.env,
    PUBLIC_SUPABASE_URL: e2eApiUrl(ports),
    SITE_URL: e2eCaptchaSiteUrl(ports),
    PORT: String(ports.captchaSite),
    PUBLIC_TURNSTILE_SITE_KEY: E2E_CAPTCHA_SITE_KEY,
  });
}

export interface E2eEnvironment {
  siteUrl: string;
  apiUrl: string;
  mailApi: string;
  feedsOrigin: string;
  /**
   * The variables the Playwright specs read (tests/e2e/env.ts): E2E_BASE_URL, E2E_SUPABASE_URL, E2E_MAIL_API,
   * E2E_FEEDS_URL, and E2E_CAPTCHA_URL where dist-captcha is served (with `captcha` only).
   */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Runs `start` again while a port it binds is briefly held by another socket (EADDRINUSE): the test ports
 * 55321-55325 lie in Linux's ephemeral range (32768-60999), where an outgoing connection of any process may
 * hold one for a moment. `start` must undo what it started when it fails, as startStack does.
 */
async function whilePortBusy<T>(what: string, start: () => Promise<T>, tries = 15): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= tries) throw err;
      console.warn(`${what}: ${(err as Error).message}; trying again in 1 s`);
      await sleep(1000);
    }
  }
}

export interface E2eOptions {
  /** The build to serve (made by buildForE2e). */
  outDir?: string;
  /** Build (when stale) and serve dist-captcha too: for a run that includes the CAPTCHA spec (runsCaptchaSpec). */
  captcha?: boolean;
}

/** The build served as a CDN would, a fresh stack on PGlite under `dataDir`, and the fixture feeds. */
export async function startE2eEnvironment(
  ports: E2ePorts,
  dataDir: string,
  { outDir = 'dist-test', captcha = false }: E2eOptions = {},
): Promise<E2eEnvironment> {
  // First, while nothing of this process must answer (the build blocks it); nothing to do while sources stay the
  // same. A second astro build: only when a spec needs it.
  if (captcha) buildCaptchaForE2e(ports);
  const siteUrl = e2eSiteUrl(ports);
  const apiUrl = e2eApiUrl(ports);
  // The news function reads fixture feeds from 127.0.0.1, fresh on every request so a test can take them down.
  const feeds = await startFeedServer();
  const stack = await whilePortBusy('e2e stack', () =>
    startStack(
      loadConfig(
        {
          ...process.env,
          DATA_DIR: join(dataDir),
          RATE_LIMITS: 'off',
          SITE_URL: siteUrl,
          PORT: String(ports.site),
          DATABASE_URL: '',
          NEWS_FEED_URLS: ['business.xml', 'markets.atom', 'headlines.xml'].map((f) => feeds.feedUrl(f)).join(','),
          INVESTING_FEED_URL: feeds.feedUrl('investing.xml'),
          NEWS_CACHE_SECONDS: '0',
          // signals-ingest's secret: the development value `npm start` uses, for specs that post signals.
          SIGNALS_INGEST_SECRET: E2E_SIGNALS_INGEST_SECRET,
        },
        { ports: { api: ports.api, db: ports.db, mailWeb: ports.mailWeb, smtp: ports.smtp } },
      ),
    ),
  );
  const captchaSite = captcha
    ? await whilePortBusy('e2e site with a CAPTCHA', () =>
        startSiteServer({ dir: E2E_CAPTCHA_DIST, port: ports.captchaSite, imageOrigins: [feeds.origin] }),
      )
    : undefined;
  // The site last: whoever waits for its address (Playwright's webServer) then finds everything else up, and a
  // caller's code right after this returns runs before the site answers its first request.
  const site = await whilePortBusy('e2e site', () =>
    startSiteServer({ dir: outDir, port: ports.site, imageOrigins: [feeds.origin] }),
  );
  const mailApi = `http://127.0.0.1:${ports.mailWeb}/api/v1`;
  return {
    siteUrl,
    apiUrl,
    mailApi,
    feedsOrigin: feeds.origin,
    env: {
      E2E_BASE_URL: siteUrl,
      E2E_SUPABASE_URL: apiUrl,
      E2E_MAIL_API: mailApi,
      E2E_FEEDS_URL: feeds.origin,
      E2E_SIGNALS_INGEST_SECRET,
      ...(captcha ? { E2E_CAPTCHA_URL: e2eCaptchaSiteUrl(ports) } : {}),
    },
    async stop() {
      await new Promise<void>((done) => site.close(() => done()));
      if (captchaSite) await new Promise<void>((done) => captchaSite.close(() => done()));
      await stack.stop();
      await feeds.close();
    },
  };
}
