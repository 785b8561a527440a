// `npm run audit:a11y`: axe on every page of the built site, signed out and signed in, in the e2e run's desktop
// and mobile viewports, and in the interactive states that matter (the demo dialog, the quiz's result, toasts,
// the mobile menu and the signed-in sheet, news loaded from the fixture feeds, every FAQ answer open, the /auth
// modes and the /newsletter-verified variants). Prints a table page x state -> violations, then the details of
// any; exits 1 on a violation or on a state it could not reach.
//
// It starts what it needs as `npm test -- e2e` does (scripts/lib/e2e-env.ts): dist-test (or AUDIT_DIST) built for the test ports
// (TEST_SITE_PORT, TEST_API_PORT), a fresh stack on PGlite in a temporary DATA_DIR, the fixture feed server and
// the site server. The member is created through the stack's admin API with a confirmed address and signed in
// through the /auth page's form. `npm run audit:a11y -- /quiz /auth` audits only pages starting with those paths.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, devices, type Page } from '@playwright/test';
import { DEMO_SERVICE_ROLE_KEY } from 'local-supabase';
import { sleep } from 'local-supabase/testing';
import { builtPages } from '../integrations/built-pages.ts';
import { copy, labels } from '../tests/content.ts';
import { chromiumArgs, ensureChromium } from './lib/chromium.ts';
import { buildForE2e, e2ePorts, startE2eEnvironment } from './lib/e2e-env.ts';

const viewports = {
  desktop: devices['Desktop Chrome'],
  mobile: devices['Pixel 7'],
} as const;
type Viewport = keyof typeof viewports;
type Who = 'signed out' | 'signed in';
const columns: [Viewport, Who][] = [
  ['desktop', 'signed out'],
  ['mobile', 'signed out'],
  ['desktop', 'signed in'],
  ['mobile', 'signed in'],
];

interface State {
  /** The page as the table names it. */
  page: string;
  state: string;
  path: string;
  /** Brings the page into the state after it loaded; throws when the state cannot be reached. */
  act?: (page: Page, viewport: Viewport) => Promise<void>;
  only?: { viewport?: Viewport; who?: Who };
}

interface Finding {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string; summary: string }[];
}

interface Outcome {
  state: State;
  viewport: Viewport;
  who: Who;
  findings: Finding[];
  error?: string;
}

const filters = process.argv.slice(2).filter((a) => a.startsWith('/'));
const READY_TIMEOUT = 30_000;

// --- Waiting for a page to settle ---

const main = (page: Page) => page.locator('main');

/** Requests in flight per page, so settling can wait for the page's own fetches (news, profile, session). */
const inFlight = new WeakMap<Page, Set<string>>();

function track(page: Page) {
  const pending = new Set<string>();
  inFlight.set(page, pending);
  page.on('request', (req) => pending.add(`${req.method()} ${req.url()}`));
  const finished = (req: { method(): string; url(): string }) => pending.delete(`${req.method()} ${req.url()}`);
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);
}

/** No request in flight for 300 ms (at most 10 s: a page may keep one open). */
async function quiet(page: Page) {
  const pending = inFlight.get(page);
  const until = Date.now() + 10_000;
  let calmSince = Date.now();
  while (pending && Date.now() < until) {
    if (pending.size > 0) calmSince = Date.now();
    else if (Date.now() - calmSince >= 300) return;
    await sleep(50);
  }
}

/** Loaded: every island hydrated, no loading placeholder left in main, the network quiet. */
async function settle(page: Page) {
  // Islands that hydrate when visible (the news feeds) are scrolled to, as a reader would.
  for (const island of await page.locator('astro-island[ssr]').all()) {
    await island.scrollIntoViewIfNeeded().catch(() => {});
  }
  await page.locator('astro-island[ssr]').first().waitFor({ state: 'detached', timeout: READY_TIMEOUT });
  await page.getByTestId('news-skeletons').first().waitFor({ state: 'detached', timeout: READY_TIMEOUT });
  await page.locator('main [aria-busy="true"]').first().waitFor({ state: 'detached', timeout: READY_TIMEOUT });
  await quiet(page);
}

const toastRegion = (page: Page) => page.getByRole('region', { name: copy('site/navigation').labels.notifications });

async function toastShown(page: Page, title: string) {
  await toastRegion(page).locator('li').filter({ hasText: title }).first().waitFor({ timeout: READY_TIMEOUT });
}

// --- The states ---

function states(routes: string[]): State[] {
  const site = copy('site/navigation');
  const auth = labels('auth');
  const contact = labels('contact');
  const newsletter = labels('newsletter');
  const demo = copy('demo/live-trading');
  const quiz = copy('quiz/risk-profile');
  const sidebar = copy('member/sidebar');
  const home = copy('pages/index');
  const watchDemo = home.ctas?.find((cta) => cta.action === 'demo')?.label ?? 'Watch Demo';

  const list: State[] = routes.map((path) => ({ page: path, state: 'loaded', path }));
  list.push({ page: '404', state: 'unknown address', path: '/no-such-page-here' });

  // Chrome: the mobile menu open.
  list.push({
    page: '/',
    state: 'mobile menu open',
    path: '/',
    only: { viewport: 'mobile' },
    act: async (page) => {
      await page.getByRole('button', { name: site.labels.openMenu }).click();
      await page.locator('#mobile-menu-panel').waitFor({ state: 'visible' });
    },
  });

  // Home: the demo dialog while it plays and at the end of its session (real time: axe's own timers would
  // never fire under a fake clock), the newsletter card's toasts.
  list.push({
    page: '/',
    state: 'demo dialog open',
    path: '/',
    act: async (page) => {
      await main(page).getByRole('link', { name: watchDemo }).click();
      await page.getByRole('dialog', { name: demo.title }).locator('tbody tr').first().waitFor();
    },
  });
  list.push({
    page: '/',
    state: 'demo session complete',
    path: '/',
    only: { who: 'signed out' },
    act: async (page) => {
      await main(page).getByRole('link', { name: watchDemo }).click();
      await page.getByRole('dialog', { name: demo.title }).getByText(demo.labels.banner).waitFor({ timeout: 150_000 });
    },
  });
  list.push({
    page: '/',
    state: 'newsletter: success toast',
    path: '/',
    only: { who: 'signed out' },
    act: async (page, viewport) => {
      const card = page.locator('#newsletter');
      await card.getByLabel(newsletter('emailLabel')).fill(`audit-${viewport}-${Date.now()}@example.com`);
      await card.getByRole('button', { name: newsletter('submit') }).click();
      await toastShown(page, newsletter('successTitle'));
    },
  });

  // Contact form: a destructive toast (missing fields) and the success toast.
  list.push({
    page: '/contact-us',
    state: 'toast: missing information',
    path: '/contact-us',
    only: { who: 'signed out' },
    act: async (page) => {
      await main(page)
        .getByRole('button', { name: contact('submit') })
        .click();
      await toastShown(page, contact('missingTitle'));
    },
  });
  list.push({
    page: '/contact-us',
    state: 'toast: message sent',
    path: '/contact-us',
    only: { who: 'signed out' },
    act: async (page) => {
      const form = main(page).locator('form');
      await form.getByLabel(contact('nameLabel')).fill('Audit Visitor');
      await form.getByLabel(contact('emailLabel')).fill('audit.visitor@example.com');
      await form.getByLabel(contact('subjectLabel')).fill('Accessibility audit');
      await form.getByLabel(contact('messageLabel')).fill('A message sent by the accessibility audit.');
      await form.getByRole('button', { name: contact('submit') }).click();
      await toastShown(page, contact('successTitle'));
    },
  });

  // The quiz: the second question, and the result.
  const answerQuiz = async (page: Page, count: number) => {
    const options = main(page).getByRole('list', { name: quiz.labels.options });
    for (let i = 0; i < count; i += 1) {
      await main(page).getByRole('heading', { level: 2, name: quiz.questions[i]?.question }).waitFor();
      await options.getByRole('button').nth(2).click();
    }
  };
  list.push({ page: '/quiz', state: 'question 2', path: '/quiz', act: (page) => answerQuiz(page, 1) });
  list.push({
    page: '/quiz',
    state: 'result',
    path: '/quiz',
    act: async (page) => {
      await answerQuiz(page, quiz.questions.length);
      await main(page).getByRole('button', { name: quiz.labels.retake }).waitFor();
    },
  });

  // FAQ: every answer open.
  list.push({
    page: '/faq',
    state: 'every answer open',
    path: '/faq',
    act: async (page) => {
      for (const summary of await main(page).locator('summary').all()) await summary.click();
    },
  });

  // /auth in its modes, with the password checklist open and the toasts it shows.
  const who = { who: 'signed out' as const };
  list.push(
    { page: '/auth', state: 'sign in', path: '/auth?tab=signin', only: who },
    {
      page: '/auth',
      state: 'sign up, checklist open',
      path: '/auth?tab=signup',
      only: who,
      act: async (page) => {
        await page.getByLabel(auth('password'), { exact: true }).fill('weak');
        await page.getByText(labels('password')('heading'), { exact: false }).first().waitFor();
      },
    },
    {
      page: '/auth',
      state: 'forgot password: toast',
      path: '/auth?tab=signin',
      only: who,
      act: async (page) => {
        await page.getByRole('button', { name: auth('forgotPassword') }).click();
        await toastShown(page, auth('emailRequiredTitle'));
      },
    },
    {
      page: '/auth',
      state: 'reset form',
      path: '/auth?tab=reset',
      only: who,
      act: async (page) => {
        await page.getByLabel(auth('newPassword'), { exact: true }).fill('weak');
      },
    },
    {
      page: '/auth',
      state: 'reset link expired: toast',
      path: '/auth?code=used-or-foreign',
      only: who,
      act: (page) => toastShown(page, auth('linkExpiredTitle')),
    },
  );

  // /newsletter-verified in its variants (no query is the plain route above).
  for (const query of [
    '?type=user',
    '?type=user#error=access_denied&error_code=otp_expired',
    '?status=expired',
    '?status=invalid',
    '?status=unsubscribed',
    '?status=unsubscribe-invalid',
  ]) {
    list.push({ page: '/newsletter-verified', state: query, path: `/newsletter-verified${query}` });
  }

  // Signed in: the sidebar sheet on mobile, the collapsed rail on desktop.
  list.push(
    {
      page: '/dashboard',
      state: 'sidebar sheet open',
      path: '/dashboard',
      only: { viewport: 'mobile', who: 'signed in' },
      act: async (page) => {
        await main(page).getByRole('button', { name: sidebar.labels.open }).click();
        await page.getByRole('dialog', { name: sidebar.labels.sheetTitle }).waitFor();
      },
    },
    {
      page: '/dashboard',
      state: 'sidebar collapsed',
      path: '/dashboard',
      only: { viewport: 'desktop', who: 'signed in' },
      act: async (page) => {
        await page.locator('#member-sidebar').getByRole('button', { name: sidebar.labels.collapse }).click();
        await page.locator('#member-sidebar').getByRole('button', { name: sidebar.labels.expand }).waitFor();
      },
    },
    {
      page: '/settings',
      state: 'toast: passwords do not match',
      path: '/settings',
      only: { who: 'signed in' },
      act: async (page) => {
        const settings = labels('settings');
        const security = main(page).getByRole('region', { name: settings('securityHeading') });
        await security.getByLabel(settings('newPassword'), { exact: true }).fill('N3w-password!');
        await security.getByLabel(settings('confirmPassword'), { exact: true }).fill('N3w-password?');
        await security.getByRole('button', { name: settings('updatePassword') }).click();
        await page
          .getByRole('alert')
          .filter({ hasText: settings('mismatch') })
          .first()
          .waitFor();
      },
    },
    {
      page: '/',
      state: 'signed out: toast',
      path: '/dashboard',
      only: { who: 'signed in' },
      act: async (page) => {
        const header = page.getByRole('banner');
        const menu = header.getByRole('button', { name: site.labels.openMenu });
        if (await menu.isVisible()) await menu.click();
        await header.getByRole('button', { name: site.labels.signOut }).filter({ visible: true }).first().click();
        await toastShown(page, site.labels.signedOutTitle);
      },
    },
  );

  return list.filter((s) => filters.length === 0 || filters.some((f) => s.path.startsWith(f) || s.page === f));
}

// --- Running ---

/** Creates a confirmed member through the admin API and signs in through the /auth form; returns the storage. */
async function signedInStorage(
  browser: Browser,
  viewport: Viewport,
  options: Parameters<Browser['newContext']>[0],
  apiUrl: string,
) {
  const auth = labels('auth');
  const email = `audit-${viewport}-${Date.now()}@example.com`;
  const password = 'Audit-Passw0rd!';
  const created = await fetch(`${apiUrl}/auth/v1/admin/users`, {
    method: 'POST',
    headers: {
      apikey: DEMO_SERVICE_ROLE_KEY,
      Authorization: `Bearer ${DEMO_SERVICE_ROLE_KEY}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      email,
      password,
      email_confirm: true,
      user_metadata: { first_name: 'Audit', last_name: 'Member' },
    }),
  });
  if (created.status !== 200) throw new Error(`admin API: ${created.status} ${await created.text()}`);
  const context = await browser.newContext(options);
  const page = await context.newPage();
  track(page);
  await page.goto('/auth?tab=signin');
  await settle(page);
  await page.getByLabel(auth('email')).fill(email);
  await page.getByLabel(auth('password'), { exact: true }).fill(password);
  await page.getByRole('button', { name: auth('signIn'), exact: true }).click();
  await page.waitForURL(/\/dashboard$/, { timeout: READY_TIMEOUT });
  const storage = await context.storageState();
  await context.close();
  return { storage, email };
}

async function audit(
  browser: Browser,
  state: State,
  viewport: Viewport,
  who: Who,
  options: Parameters<Browser['newContext']>[0],
): Promise<Outcome> {
  let context: BrowserContext | undefined;
  // A state that never settles (a hung page, a dialog that never opens) fails its check instead of the run.
  let timedOut = false;
  const limit = setTimeout(
    () => {
      timedOut = true;
      void context?.close();
    },
    state.state.includes('session complete') ? 240_000 : 120_000,
  );
  try {
    context = await browser.newContext(options);
    const page = await context.newPage();
    track(page);
    const response = await page.goto(state.path);
    if (!response) throw new Error('no response');
    await settle(page);
    if (state.act) {
      await state.act(page, viewport);
      await quiet(page);
    }
    const { violations } = await new AxeBuilder({ page }).analyze();
    const findings = violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '' })),
    }));
    return { state, viewport, who, findings };
  } catch (err) {
    const error = timedOut ? 'timed out' : (err as Error).message.split('\n')[0];
    return { state, viewport, who, findings: [], error };
  } finally {
    clearTimeout(limit);
    await context?.close();
  }
}

/** Runs `jobs` with at most `width` at a time. */
async function pool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await (jobs[index] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

function report(outcomes: Outcome[]): boolean {
  const rows = new Map<string, Map<string, Outcome>>();
  for (const o of outcomes) {
    const key = `${o.state.page}\u0000${o.state.state}`;
    if (!rows.has(key)) rows.set(key, new Map());
    rows.get(key)?.set(`${o.viewport} ${o.who}`, o);
  }
  const heads = ['page', 'state', ...columns.map(([v, w]) => `${v}, ${w}`)];
  const body = [...rows].map(([key, cells]) => {
    const [page = '', state = ''] = key.split('\u0000');
    return [
      page,
      state,
      ...columns.map(([v, w]) => {
        const o = cells.get(`${v} ${w}`);
        if (!o) return '-';
        if (o.error) return 'ERROR';
        return String(o.findings.reduce((n, f) => n + f.nodes.length, 0));
      }),
    ];
  });
  const widths = heads.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n${line(heads)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of body) console.log(line(r));
  console.log('\nCells: elements axe found in violation (0 = clean), "-" = state not applicable, ERROR = not reached.');

  const bad = outcomes.filter((o) => o.error || o.findings.length);
  for (const o of bad) {
    console.log(`\n${o.state.page} (${o.state.state}, ${o.state.path}), ${o.viewport}, ${o.who}:`);
    if (o.error) console.log(`  could not reach the state: ${o.error}`);
    for (const f of o.findings) {
      console.log(`  ${f.id} (${f.impact}): ${f.help}`);
      for (const n of f.nodes) console.log(`    ${n.target}\n      ${n.summary.replace(/\n/g, '\n      ')}`);
    }
  }
  const checks = outcomes.length;
  const violations = outcomes.reduce((n, o) => n + o.findings.length, 0);
  const errors = outcomes.filter((o) => o.error).length;
  console.log(`\n${checks} checks: ${violations} violations, ${errors} states not reached.`);
  return bad.length === 0;
}

const ports = e2ePorts();
// Its own build folder, so that it can run beside `npm test -- e2e` on other ports (TEST_SITE_PORT, TEST_API_PORT).
const outDir = process.env.AUDIT_DIST ?? 'dist-test';
console.log(`Building ${outDir} (when stale)...`);
buildForE2e(ports, outDir);
const work = mkdtempSync(join(tmpdir(), 'signals-audit-'));
const environment = await startE2eEnvironment(ports, join(work, 'data'), { outDir });
const browser = await chromium.launch({ executablePath: ensureChromium(), args: chromiumArgs });
let clean = false;
try {
  // Every page of the build; the 404 page is audited as an unknown address (states()).
  const list = states(builtPages(outDir, { include404: false }).map((page) => page.route));
  const base = (viewport: Viewport) => ({ ...viewports[viewport], baseURL: environment.siteUrl });
  const signedIn: Partial<Record<Viewport, Awaited<ReturnType<typeof signedInStorage>>>> = {};
  for (const viewport of Object.keys(viewports) as Viewport[]) {
    signedIn[viewport] = await signedInStorage(browser, viewport, base(viewport), environment.apiUrl);
  }
  const jobs: (() => Promise<Outcome>)[] = [];
  let done = 0;
  for (const state of list) {
    for (const [viewport, who] of columns) {
      if (state.only?.viewport && state.only.viewport !== viewport) continue;
      if (state.only?.who && state.only.who !== who) continue;
      const options =
        who === 'signed in' ? { ...base(viewport), storageState: signedIn[viewport]?.storage } : base(viewport);
      jobs.push(async () => {
        const began = Date.now();
        const outcome = await audit(browser, state, viewport, who, options);
        const result = outcome.error ? 'ERROR' : `${outcome.findings.length} violations`;
        const seconds = ((Date.now() - began) / 1000).toFixed(1);
        console.log(
          `[${++done}/${jobs.length}] ${state.page} (${state.state}), ${viewport}, ${who}: ${result} in ${seconds} s`,
        );
        return outcome;
      });
    }
  }
  console.log(`Auditing ${list.length} page states, ${jobs.length} checks...`);
  const started = Date.now();
  const outcomes = await pool(jobs, 3);
  console.log(`Done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  clean = report(outcomes);
} finally {
  await browser.close();
  await environment.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(clean ? 0 : 1);
