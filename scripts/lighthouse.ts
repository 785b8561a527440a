// `npm run lighthouse`: Lighthouse (mobile preset) on every public page of the built site, median of three runs
// per category, printed as a table. `npm run lighthouse -- /news /faq` measures only the pages named.
// Every page is measured as a visitor sees it: a fresh local stack (temporary DATA_DIR), the fixture feeds on
// 127.0.0.1 so the news pages show real cards (the investing page a full feed: 20 articles, each with a picture and a
// 300-character description; LIGHTHOUSE_INVESTING_FEED=real-world.xml for the fixture with HTML in long descriptions), and the site built against that stack
// (dist-lighthouse/) and served as `npm start` serves it; those servers run in a child process at a lower priority
// than the browser (scripts/lib/lighthouse-servers.ts). Next to the scores: the median LCP and the median of
// each run's longest main-thread task (Lighthouse's long-tasks audit, 4x CPU throttle), then every run's scores,
// LCP and longest task. RUNS sets the number of runs per page; LIGHTHOUSE_SITE_PORT and
// LIGHTHOUSE_API_PORT move the two ports baked into that build (default 4341 and 55341); LIGHTHOUSE_REPORTS=<folder>
// keeps each run's report and trace. Before /track-record is measured, a closed history of 150 signals
// (scripts/lib/ledger-history.ts; LIGHTHOUSE_LEDGER=n to change) is posted through signals-ingest, so the page is
// measured with its figures, curve and table filled.
// The browser first loads the first page once, not counted (LIGHTHOUSE_WARMUP=0 counts from the first load).
// Exit status: 0 whatever the scores (performance moves with the machine's load); `--strict` exits 1 when a
// median is below 100.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { builtPages } from '../integrations/built-pages.ts';
import { TRADINGVIEW_FRAME_ORIGIN, TRADINGVIEW_SCRIPT } from '../src/lib/chart-widget.ts';
import { signingKey } from '../supabase/functions/signals-ingest/signature.ts';
import { buildIfStale } from './lib/build.ts';
import { chromiumArgs, ensureChromium } from './lib/chromium.ts';
import { ledgerHistory } from './lib/ledger-history.ts';
import type { LighthouseServersMessage, LighthouseServersOptions } from './lib/lighthouse-servers.ts';
import { postSigned } from './signals-demo.ts';

const OUT_DIR = 'dist-lighthouse';
const categories = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const runs = Number(process.env.RUNS ?? 3);
const args = process.argv.slice(2);
const strict = args.includes('--strict');
const named = args.filter((a) => a.startsWith('/'));
/** LIGHTHOUSE_REPORTS=<folder> keeps every run's full report (JSON) there. */
const reportsDir = process.env.LIGHTHOUSE_REPORTS;
const ports = {
  site: Number(process.env.LIGHTHOUSE_SITE_PORT ?? 4341),
  api: Number(process.env.LIGHTHOUSE_API_PORT ?? 55341),
};
const siteUrl = `http://127.0.0.1:${ports.site}`;
const LEDGER_SIGNALS = Number(process.env.LIGHTHOUSE_LEDGER ?? 150);
const INGEST_SECRET = 'lighthouse-signals-ingest-secret-0123456789';
const apiUrl = `http://127.0.0.1:${ports.api}`;
/** The servers' niceness (0 is the default, 19 the lowest priority): the browser's threads go first. */
const SERVERS_NICENESS = 10;

/** Every page of the build by its address, the 404 page left out. */
const builtRoutes = () => builtPages(OUT_DIR, { include404: false }).map((page) => page.route);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The routes the sitemap lists: the public, indexable pages (noindex pages are left out of it by config). */
export function sitemapRoutes(dir: string): Set<string> {
  const routes = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => /^sitemap-\d+\.xml$/.test(f))) {
    for (const [, loc] of readFileSync(join(dir, file), 'utf8').matchAll(/<loc>([^<]+)<\/loc>/g)) {
      const path = new URL(loc).pathname.replace(/\/$/, '');
      routes.add(path || '/');
    }
  }
  return routes;
}

/** Third-party origins the pages use that this machine cannot reach (an offline CI box): blocked, and said so. */
async function unreachable(origins: string[]): Promise<string[]> {
  const down: string[] = [];
  for (const origin of origins) {
    try {
      await fetch(origin, { method: 'HEAD', signal: AbortSignal.timeout(3000) });
    } catch {
      down.push(origin);
    }
  }
  return down;
}

let servers: ChildProcess | undefined;
let chrome: chromeLauncher.LaunchedChrome | undefined;
let belowFull = 0;
try {
  buildIfStale(OUT_DIR, { ...process.env, PUBLIC_SUPABASE_URL: apiUrl, SITE_URL: siteUrl, PORT: String(ports.site) });
  servers = await startServers({
    dir: OUT_DIR,
    ports,
    investingFeed: process.env.LIGHTHOUSE_INVESTING_FEED ?? 'investing.xml',
    functionSecrets: { SIGNALS_INGEST_SECRET: INGEST_SECRET },
  });

  const listed = sitemapRoutes(OUT_DIR);
  const paths = named.length ? named : builtRoutes().filter((route) => listed.has(route));
  const unlisted = builtRoutes().filter((route) => !listed.has(route));
  if (paths.includes('/track-record')) await postLedgerHistory();
  const blocked = await unreachable([new URL(TRADINGVIEW_SCRIPT).origin, TRADINGVIEW_FRAME_ORIGIN]);

  chrome = await chromeLauncher.launch({
    chromePath: ensureChromium(),
    chromeFlags: ['--headless=new', ...chromiumArgs],
  });
  // One load of the first page before any is counted (LIGHTHOUSE_WARMUP=0 to count from the first): a browser's
  // first load after it starts runs beside its own start-up work, and on a 2-core machine tasks of 3 ms of CPU took
  // 40 ms of wall time in it (docs/performance.md). A phone's browser is already running.
  const warmup = process.env.LIGHTHOUSE_WARMUP !== '0';
  // A new flags object for each run: Lighthouse is not promised to leave the one it is handed as it was.
  const port = chrome.port;
  const flags = (only: string[]) => ({
    port,
    output: 'json' as const,
    logLevel: 'error' as const,
    onlyCategories: only,
    blockedUrlPatterns: blocked.map((origin) => `${origin}/*`),
  });
  if (warmup && paths.length) await lighthouse(`${siteUrl}${paths[0]}`, flags(['performance']));
  console.log(
    `Lighthouse ${lighthouseVersion()}, mobile preset, median of ${runs} run${runs === 1 ? '' : 's'}` +
      (warmup ? ` (after one load of ${paths[0]} not counted)` : ''),
  );
  if (blocked.length) {
    console.log(`Blocked in the browser (unreachable from this machine): ${blocked.join(', ')}`);
  }
  console.log(
    `\n${'page'.padEnd(22)} perf  a11y  best   seo     LCP  task   runs (perf / a11y / best / seo / LCP s / longest task ms)`,
  );
  for (const path of paths) {
    const scores = Object.fromEntries(categories.map((c) => [c, [] as number[]]));
    const losses = new Set<string>();
    const lcp: number[] = [];
    const longest: number[] = [];
    for (let i = 0; i < runs; i++) {
      const result = await lighthouse(`${siteUrl}${path}`, flags([...categories]));
      for (const c of categories) scores[c].push(Math.round((result?.lhr.categories[c]?.score ?? 0) * 100));
      if (result) for (const loss of pointsLost(result.lhr)) losses.add(loss);
      lcp.push(result?.lhr.audits['largest-contentful-paint']?.numericValue ?? 0);
      longest.push(longestTask(result?.lhr.audits['long-tasks']?.details));
      if (result && reportsDir) {
        mkdirSync(reportsDir, { recursive: true });
        const name = path === '/' ? 'home' : path.slice(1).replaceAll('/', '-');
        writeFileSync(join(reportsDir, `${name}-${i + 1}.json`), JSON.stringify(result.lhr));
        // The run's trace too: which work each long task holds (parse, style, layout, a script) is only in there.
        writeFileSync(join(reportsDir, `${name}-${i + 1}.trace.json`), JSON.stringify(result.artifacts.Trace));
      }
    }
    const medians = categories.map((c) => median(scores[c]));
    if (medians.some((m) => m < 100)) belowFull += 1;
    const row = medians.map((m) => String(m).padStart(4)).join('  ');
    const timing = `${(median(lcp) / 1000).toFixed(2).padStart(5)} s ${String(Math.round(median(longest))).padStart(4)}`;
    const all = [
      ...categories.map((c) => scores[c].join('/')),
      lcp.map((ms) => (ms / 1000).toFixed(2)).join('/'),
      longest.map(Math.round).join('/'),
    ].join('   ');
    console.log(`${path.padEnd(22)} ${row}  ${timing}    ${all}`);
    if (medians.some((m) => m < 100)) for (const loss of losses) console.log(`${''.padEnd(23)}- ${loss}`);
  }
  console.log(
    belowFull
      ? `\n${belowFull} of ${paths.length} pages below 100 in at least one category.`
      : `\nAll ${paths.length} pages 100 in every category.`,
  );
  if (!named.length && unlisted.length) {
    console.log(`Not measured (noindex, left out of the sitemap; name them to measure them): ${unlisted.join(' ')}`);
  }
} finally {
  await chrome?.kill();
  if (servers) await stopServers(servers);
}
process.exit(strict && belowFull ? 1 : 0);

/** The audits that cost a category points in one run: `category: audit id (score)`. */
function pointsLost(lhr: {
  categories: Record<string, { auditRefs: { id: string; weight: number }[] } | undefined>;
  audits: Record<string, { score: number | null; displayValue?: string }>;
}): string[] {
  return categories.flatMap((c) =>
    (lhr.categories[c]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => {
        const audit = lhr.audits[ref.id];
        return `${c}: ${ref.id}${audit.displayValue ? ` (${audit.displayValue})` : ''}`;
      }),
  );
}

/** The longest main-thread task of one run, in ms (0 when none is over 50 ms: the audit lists only those). */
function longestTask(details: unknown): number {
  const items = (details as { items?: { duration?: number }[] } | undefined)?.items ?? [];
  return Math.max(0, ...items.map((item) => item.duration ?? 0));
}

/**
 * The feed server, the stack and the site server, in a child process (scripts/lib/lighthouse-servers.ts) at a
 * lower scheduling priority than the browser: on a phone the servers run elsewhere, and here their work during a
 * load would otherwise be charged to the page's main thread.
 */
async function startServers(options: LighthouseServersOptions): Promise<ChildProcess> {
  const child = fork(
    fileURLToPath(new URL('./lib/lighthouse-servers.ts', import.meta.url)),
    [JSON.stringify(options)],
    {
      stdio: 'inherit',
    },
  );
  if (child.pid) setPriority(child.pid, SERVERS_NICENESS);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => [{ failed: `exited with code ${code}` }]),
  ])) as [LighthouseServersMessage];
  if ('failed' in message) throw new Error(`Lighthouse servers did not start: ${message.failed}`);
  return child;
}

async function stopServers(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.send('stop');
  await exited;
}

function lighthouseVersion(): string {
  const pkg = join('node_modules', 'lighthouse', 'package.json');
  return existsSync(pkg) ? JSON.parse(readFileSync(pkg, 'utf8')).version : '';
}

/** Posts the closed history /track-record is measured with; stops the run if the function refuses a post. */
async function postLedgerHistory(): Promise<void> {
  const key = await signingKey(INGEST_SECRET);
  const posts = ledgerHistory(Date.now().toString(36), LEDGER_SIGNALS, Date.now());
  for (const payload of posts) {
    const { status, body } = await postSigned(apiUrl, key, payload);
    if (status !== 201) throw new Error(`signals-ingest answered ${status} to ${JSON.stringify(payload)}: ${body}`);
  }
  console.log(`Ledger: ${LEDGER_SIGNALS} closed signals (${posts.length} posts) for /track-record`);
}
