// `npm test`: unit, integration on PGlite and on PostgreSQL, the build and its size budgets, e2e in Chromium.
// Ends with what failed (each failing test and its message, or a failing step's last lines of output), so the
// tail of a CI log says why, and one line 'Total: N passed, N failed'.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startThrowawayCluster } from 'local-supabase/testing';
import { ensureChromium } from './lib/chromium.ts';
import { buildForE2e, e2ePorts, runsCaptchaSpec, startE2eEnvironment } from './lib/e2e-env.ts';
import { htmlBudget, measure, overBudget } from './size.ts';

// Ports of the test run (TEST_SITE_PORT, TEST_API_PORT; see scripts/lib/e2e-env.ts).
const E2E = e2ePorts();

const work = mkdtempSync(join(tmpdir(), 'signals-test-'));
const totals = { passed: 0, failed: 0 };
const failedSteps: string[] = [];
/** Why each failure happened, printed again at the end. */
const failures: string[] = [];
const TAIL_LINES = 40;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what it removes
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');
/** The first lines of an error, without the stack frames of the test tools themselves. */
const excerpt = (text: string, lines = 12) =>
  plain(text)
    .trim()
    .split('\n')
    .filter((line) => !/^\s+at .*(node_modules\/|<anonymous>|node:internal)/.test(line))
    .slice(0, lines)
    .join('\n');

// Asynchronous on purpose: the e2e run needs this process's stack and site server to keep answering.
// The step's output goes to ours as it comes; its last lines are kept for the summary if it fails.
async function run(step: string, bin: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<boolean> {
  console.log(`\n=== ${step}`);
  const started = Date.now();
  const child = spawn(process.execPath, [resolve(bin), ...args], {
    stdio: ['inherit', 'pipe', 'pipe'],
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env },
  });
  let tail = '';
  const keep = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
    to.write(chunk);
    tail = (tail + chunk.toString()).split('\n').slice(-TAIL_LINES).join('\n');
  };
  child.stdout?.on('data', keep(process.stdout));
  child.stderr?.on('data', keep(process.stderr));
  const status = await new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  console.log(`=== ${step}: ${status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (status !== 0) {
    failedSteps.push(step);
    failures.push(`${step}: exit code ${status}; its last lines:\n${plain(tail).trimEnd()}`);
  }
  return status === 0;
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numFailedTestSuites?: number;
  testResults: {
    name: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

/** The failing tests of a Vitest JSON report, and files that failed outside a test (a hook, an import). */
function vitestFailures(step: string, report: VitestReport): string[] {
  return report.testResults.flatMap((file) => [
    ...(file.message ? [`${step}: ${file.name}\n${excerpt(file.message, 20)}`] : []),
    ...file.assertionResults
      .filter((test) => test.status === 'failed')
      .map((test) => `${step}: ${test.fullName}\n${excerpt(test.failureMessages.join('\n'))}`),
  ]);
}

interface PlaywrightSuite {
  suites?: PlaywrightSuite[];
  specs?: {
    title: string;
    file: string;
    tests: { projectName: string; status: string; results: { error?: { message?: string } }[] }[];
  }[];
}

/** The unexpected results of a Playwright JSON report, with the first error of each. */
function playwrightFailures(suites: PlaywrightSuite[] = []): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((test) => test.status === 'unexpected')
        .map((test) => {
          const error = test.results.find((r) => r.error)?.error?.message ?? '';
          return `e2e [${test.projectName}] ${spec.file}: ${spec.title}\n${excerpt(error)}`;
        }),
    ),
    ...playwrightFailures(suite.suites),
  ]);
}

async function vitest(step: string, projects: string[], env: NodeJS.ProcessEnv = {}) {
  const out = join(work, `${step.replace(/\W+/g, '-')}.json`);
  await run(
    step,
    'node_modules/vitest/vitest.mjs',
    [
      'run',
      ...projects.flatMap((p) => ['--project', p]),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${out}`,
    ],
    env,
  );
  if (!existsSync(out)) {
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(out, 'utf8')) as VitestReport;
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests + (report.numFailedTestSuites ?? 0);
  failures.push(...vitestFailures(step, report));
}

// `npm test -- e2e size` runs only the named steps: check, unit, integration, postgres, deno, size, e2e.
// Arguments that name spec files (`npm test -- e2e tests/e2e/auth.spec.ts`) narrow the e2e step to them.
const args = process.argv.slice(2);
const specs = args.filter((a) => a.includes('/') || a.endsWith('.ts'));
const only = new Set(args.filter((a) => !specs.includes(a)));
const want = (step: string) => only.size === 0 || only.has(step);

// Before any step, so that a missing browser fails the run at once with the command that installs one.
if (want('e2e')) ensureChromium();

// Types and lint first: an error there fails the run (Biome's warnings do not).
if (want('check')) {
  (await run('types (astro check)', 'node_modules/astro/bin/astro.mjs', ['check'])) ? totals.passed++ : totals.failed++;
  (await run('lint and format (Biome)', 'node_modules/@biomejs/biome/bin/biome', ['check', '.']))
    ? totals.passed++
    : totals.failed++;
}
// The site's tests and the local stack's own (packages/local-supabase), in one run per step.
const UNIT = ['unit', 'local-supabase (unit)'];
const INTEGRATION = ['integration', 'local-supabase (integration)'];
if (want('unit')) await vitest('unit tests', UNIT);
if (want('integration')) await vitest('integration tests on PGlite', INTEGRATION);
if (want('postgres')) {
  const cluster = await startThrowawayCluster();
  try {
    await vitest('integration tests on PostgreSQL', INTEGRATION, { DATABASE_URL: cluster.url });
  } finally {
    await cluster.stop();
  }
}
// The Edge Functions on Deno, hosted Supabase's runtime: `deno check` of each entry, then each one served by
// Deno beside the stack's Node host, answering alike (tests/deno).
if (want('deno')) {
  (await run('deno check (Edge Functions)', 'scripts/deno.ts', [])) ? totals.passed++ : totals.failed++;
  await vitest('Edge Functions on Deno', ['deno']);
}

let built = false;
if (want('size') || want('e2e')) {
  console.log('\n=== build');
  try {
    buildForE2e(E2E);
    built = true;
  } catch (err) {
    console.error(String(err));
    failedSteps.push('build');
  }
}

if (built && want('size')) {
  console.log('\n=== size budgets (JS gzip a page loads without a user action; the page HTML gzip, CSS inline)');
  for (const p of measure(resolve('dist-test'))) {
    const ok = !overBudget(p);
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${p.route}  JS ${(p.bytes / 1024).toFixed(2)} KB / ${p.budget / 1024} KB  HTML ${(p.html / 1024).toFixed(2)} KB / ${htmlBudget(p.route) / 1024} KB`,
    );
    ok ? totals.passed++ : totals.failed++;
  }
}

if (built && want('e2e')) {
  // A failure to start what the specs need (a port held too long, say) is a failed step, not a crash.
  await e2e().catch((err) => {
    console.error(String(err));
    failedSteps.push('e2e');
    failures.push(`e2e: the environment did not start: ${String(err)}`);
  });
}

/** The build served as a CDN would, a fresh stack on PGlite, and Playwright against both. */
async function e2e() {
  // dist-captcha, a second build, only when the CAPTCHA spec is among those that run.
  const environment = await startE2eEnvironment(E2E, join(work, 'data'), { captcha: runsCaptchaSpec(specs) });
  const report = join(work, 'e2e.json');
  try {
    await run(
      'e2e tests (Chromium)',
      'node_modules/@playwright/test/cli.js',
      ['test', '--reporter=line,json', ...specs],
      { ...environment.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
    );
    if (existsSync(report)) {
      const { stats, suites } = JSON.parse(readFileSync(report, 'utf8'));
      totals.passed += stats.expected + stats.flaky;
      totals.failed += stats.unexpected;
      failures.push(...playwrightFailures(suites));
    } else totals.failed += 1;
  } finally {
    await environment.stop();
  }
}

rmSync(work, { recursive: true, force: true });
if (failures.length) console.log(`\n=== What failed\n\n${failures.join('\n\n')}`);
if (failedSteps.length) console.log(`\nFailed steps: ${failedSteps.join(', ')}`);
console.log(`\nTotal: ${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed || failedSteps.length ? 1 : 0);
