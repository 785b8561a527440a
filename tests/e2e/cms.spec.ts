import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { expect, type Page, test } from '@playwright/test';
import { freePort } from 'local-supabase/testing';
import { adminPolicy } from '../../integrations/admin-headers.ts';
import { buildEditor } from '../../integrations/cms-admin.ts';
import { type CmsProcesses, startCms } from '../../scripts/cms.ts';
import { startSiteServer } from '../../scripts/lib/serve.ts';
import { pageSchema } from '../../src/content/schemas.ts';
import { parseFrontmatter } from '../content.ts';

// The content editor. Local editing runs `npm run cms` (scripts/cms.ts: the Astro dev server with the editor at
// /admin/ and its gated file-system backend) on a throwaway copy of the project, so the edits never touch this
// working copy's content/. The production editor is built apart (dist-cms/) and served here as its own host.
// CMS_SCREENSHOTS=1 also writes the editor's guide's pictures (docs/images/).
const SCREENSHOTS = process.env.CMS_SCREENSHOTS ? resolve('docs/images') : undefined;

async function picture(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

test.describe('local editing (npm run cms)', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  let copy: string;
  let cms: CmsProcesses;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    copy = mkdtempSync(join(tmpdir(), 'signals-cms-'));
    for (const entry of [
      'src',
      'content',
      'public',
      'scripts',
      'integrations',
      // The site's forms import the functions' shared rules (supabase/functions/_shared).
      'supabase',
      'astro.config.mjs',
      'package.json',
      'tsconfig.json',
    ])
      cpSync(entry, join(copy, entry), { recursive: true });
    symlinkSync(resolve('node_modules'), join(copy, 'node_modules'), 'dir');
    cms = await startCms({ root: copy, port: await freePort(), quiet: true });
  });

  test.afterAll(async () => {
    await cms?.stop();
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  /** Opens one entry in the editor (signed in through the local backend: no account needed). */
  async function openEntry(page: Page, collection: string, slug: string) {
    await page.setViewportSize({ width: 960, height: 640 });
    await page.goto(`${cms.siteUrl}/admin/`);
    // Signed in once per browser context: later visits go straight to the collections.
    const login = page.getByRole('button', { name: 'Login' });
    const collections = page.getByRole('heading', { name: 'Collections' });
    await expect(login.or(collections)).toBeVisible({ timeout: 30_000 });
    if (await login.isVisible()) await login.click();
    await expect(collections).toBeVisible();
    await page.goto(`${cms.siteUrl}/admin/#/collections/${collection}/entries/${slug}`);
    await expect(page.getByText(`Writing in ${collection.charAt(0).toUpperCase()}`)).toBeVisible();
  }

  async function publish(page: Page) {
    await page.getByRole('button', { name: 'Publish' }).first().click();
    await page.getByText('Publish now').click();
  }

  const file = (path: string) => readFileSync(join(copy, path), 'utf8');

  test('a FAQ answer and a page heading saved in the editor change the files and the pages', async ({ page }) => {
    const answer = 'A signal is a ready-made trade idea, now written in the content editor.';
    await openEntry(page, 'faq', '01-what-are-signals');
    const editor = page.locator('[data-slate-editor]').first();
    await expect(editor).toContainText('A forex trading signal is a ready-made trade idea');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(answer);
    // The preview shows the entry as the site does: its stylesheet, colours and the FAQ's markup.
    const preview = page.frameLocator('#preview-pane').locator('[data-preview="faq"]');
    await expect(preview.getByRole('heading', { level: 2 })).toHaveText('What are forex trading signals?');
    await expect(preview).toContainText(answer);
    const look = await preview.evaluate((main) => ({
      heading: getComputedStyle(main.querySelector('h2') as Element).fontSize,
      background: getComputedStyle(main.ownerDocument.body).backgroundColor,
    }));
    // text-xl from the site's stylesheet (a bare h2 would be 1.5em), on the site's navy background.
    expect(look.heading).toBe('20px');
    expect(look.background).not.toMatch(/^rgba?\((0, 0, 0, 0|255, 255, 255)\)$/);
    await picture(page, 'faq-answer');
    await publish(page);
    await expect(page.getByText('Changes saved')).toBeVisible();
    await expect.poll(() => file('content/faq/01-what-are-signals.md')).toContain(answer);
    expect(file('content/faq/01-what-are-signals.md')).toContain('question: What are forex trading signals?');

    await openEntry(page, 'pages', 'about-us');
    const heading = page.getByLabel('Heading', { exact: true }).first();
    await expect(heading).toHaveValue('About SignalOne');
    await heading.fill('About the SignalOne team');
    await expect(page.frameLocator('#preview-pane').getByRole('heading', { level: 1 })).toHaveText(
      'About the SignalOne team',
    );
    await picture(page, 'page-heading');
    await publish(page);
    await expect(page.getByText('Changes saved')).toBeVisible();
    await expect.poll(() => file('content/pages/about-us.md')).toMatch(/^heading: About the SignalOne team$/m);
    // Only the heading changed, and the file still passes the build's schema (no empty groups written).
    const data = (path: string) => pageSchema.parse(parseFrontmatter(readFileSync(path, 'utf8')).frontmatter);
    expect(data(join(copy, 'content/pages/about-us.md'))).toEqual({
      ...data('content/pages/about-us.md'),
      heading: 'About the SignalOne team',
    });

    // The dev server renders the saved files: the pages show the new words. Its file watcher syncs the content
    // store after the write lands, so a page loaded in between still has the old words: load it again until then.
    // A minute each: a full e2e run at load 8 once took longer than 30 s; the limit only ends a hang.
    await expect(async () => {
      await page.goto(`${cms.siteUrl}/about-us`);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('About the SignalOne team', { timeout: 1000 });
    }).toPass({ timeout: 60_000 });
    await expect(async () => {
      await page.goto(`${cms.siteUrl}/faq`);
      await page.getByText('What are forex trading signals?').click();
      await expect(page.getByText(answer)).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 60_000 });
  });

  test("a band's figures are numbers and short texts in the form", async ({ page }) => {
    await openEntry(page, 'bands', 'growth-one');
    await expect(page.getByLabel('Win rate', { exact: true })).toHaveValue(/\S/);
    await expect(page.getByLabel('Max trades', { exact: true })).toHaveAttribute('type', 'number');
    await picture(page, 'band-figures');
  });

  test('an edit that breaks a schema rule is refused, naming the field', async ({ page }) => {
    const before = file('content/pages/privacy.md');
    await openEntry(page, 'pages', 'privacy');
    await page.getByLabel('Heading', { exact: true }).first().fill('');
    await page.getByLabel('Description', { exact: true }).fill('Too short for a search result.');
    await publish(page);
    await expect(page.getByText('Heading is required.')).toBeVisible();
    await expect(
      page.getByText(/Description didn't match the pattern: meta description must be at least 50/),
    ).toBeVisible();
    await picture(page, 'required-field');
    // Nothing was written.
    await page.waitForTimeout(1000);
    expect(file('content/pages/privacy.md')).toBe(before);
  });
  /** One raw HTTP request to the dev server, with the Host and Origin a page elsewhere would send. */
  function send(method: string, path: string, headers: Record<string, string>, body?: string) {
    return new Promise<{ status: number; body: string }>((done, fail) => {
      const url = new URL(cms.siteUrl);
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', fail);
      req.end(body);
    });
  }

  test("the backend answers only the editor's own page: a foreign Host or Origin, or no token, writes nothing", async () => {
    const { host } = new URL(cms.siteUrl);
    const config = await send('GET', '/admin/config.yml', { host });
    const backend: string = JSON.parse(config.body.replace(/^#.*\n/, '')).local_backend.url;
    expect(backend).toMatch(new RegExp(`^http://${host}/admin/api/v1/[\\w-]{43}$`));
    const path = new URL(backend).pathname;
    // What a DNS-rebinding page (its name resolving to 127.0.0.1) or another site's page would send.
    const write = (file: string) =>
      JSON.stringify({
        action: 'persistEntry',
        params: {
          branch: 'main',
          entry: { slug: 'x', path: file, raw: 'console.log("code an attacker wrote")' },
          assets: [],
          options: { hasSubfolders: false, commitMessage: 'x', useWorkflow: false, status: 'draft' },
        },
      });
    const json = { 'content-type': 'application/json' };
    const rebinding = { host: `attacker.example:${new URL(cms.siteUrl).port}`, origin: 'http://attacker.example' };
    const refused = [
      await send('POST', path, { ...json, ...rebinding }, write('scripts/rebound.ts')),
      await send('GET', '/admin/config.yml', rebinding),
      await send('POST', path, { ...json, host, origin: 'https://evil.example' }, write('scripts/rebound.ts')),
      await send('POST', '/admin/api/v1', { ...json, host }, write('scripts/rebound.ts')),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(refused[1].body).not.toContain(path);
    expect(refused[2].body).toContain('Origin https://evil.example is not this editor');
    expect(refused[3].body).toContain("this run's token");
    expect(existsSync(join(copy, 'scripts/rebound.ts'))).toBe(false);
    // The same request from the editor's own page is saved: the refusals are the gate's.
    const own = await send('POST', path, { ...json, host, origin: cms.siteUrl }, write('notes/own.txt'));
    expect(own.status).toBe(200);
    expect(file('notes/own.txt')).toContain('code an attacker wrote');
  });
});

test.describe('the editor built for its own origin (node scripts/cms.ts build)', () => {
  let dir: string;
  let server: ServerType;
  let origin: string;

  test.beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signals-dist-cms-'));
    await buildEditor(dir, { CMS_GITHUB_REPO: 'owner/site', CMS_AUTH_URL: 'https://auth.example.com' });
    const port = await freePort();
    server = await startSiteServer({ dir, port });
    origin = `http://127.0.0.1:${port}`;
  });

  test.afterAll(async () => {
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('every path has its policy, it stays out of search engines, and loads under it', async ({ page, request }) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    // allHeaders(): a navigation's headers() may be the browser's provisional ones, without the CSP.
    const headers = (await response?.allHeaders()) ?? {};
    expect(headers['content-security-policy']).toBe(adminPolicy());
    expect(headers['x-robots-tag']).toBe('noindex, nofollow');
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex, nofollow');
    // The production sign-in: through GitHub.
    await expect(page.getByRole('button', { name: 'Login with GitHub' })).toBeVisible({ timeout: 20_000 });
    expect(violations).toEqual([]);
    // The same policy wherever a host serves the page or its files from.
    for (const path of ['/index.html', '/config.yml', '/preview.css']) {
      const res = await request.get(`${origin}${path}`);
      expect(res.status(), path).toBe(200);
      expect(res.headers()['content-security-policy'], path).toBe(adminPolicy());
    }
    // The preview's stylesheet is the site's.
    expect(await (await request.get(`${origin}/preview.css`)).text()).toContain('--color-navy-950');
  });

  test("the site holds no editor, and no page's policy allows 'unsafe-eval'", async ({ request }) => {
    for (const path of ['/admin/', '/admin/index.html', '/admin/config.yml', '/admin/decap-cms.js']) {
      expect((await request.get(path)).status(), path).toBe(404);
    }
    const sitemap = await (await request.get('/sitemap-0.xml')).text();
    expect(sitemap).toContain('/faq');
    expect(sitemap).not.toContain('/admin');
    // Every page: the listed ones and the signed-in ones the sitemap leaves out.
    const listed = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
    const paths = [...listed, '/dashboard', '/analysis', '/settings', '/newsletter-verified'];
    expect(listed.length).toBeGreaterThan(10);
    for (const path of paths) {
      const policy = (await request.get(path)).headers()['content-security-policy'];
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).not.toContain('unsafe-eval');
    }
  });
});
