import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { companyLines } from '../../src/content/company.ts';
import { copy, labels, paragraphs, section } from '../content.ts';
import { axeViolations } from './checks.ts';

// The legal pages: /terms and /complaints from content/, linked from every footer's Legal links beside /privacy,
// listed in the sitemap and free of axe violations.

const legal = copy('site/navigation').legal;
const hrefs = legal?.links.map((link) => link.href) ?? [];
const company = labels('company');
const lines = companyLines(copy('company/company'), {
  registered: company('registered'),
  registeredOffice: company('registeredOffice'),
  vatNumber: company('vatNumber'),
  contact: company('contact'),
  firmReferenceNumber: company('firmReferenceNumber'),
});

test("every page's footer carries the company's details", async ({ page, request }) => {
  test.setTimeout(120_000);
  const sitemap = await (await request.get('/sitemap-0.xml')).text();
  const listed = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]).pathname);
  expect(listed.length).toBeGreaterThan(20);
  // The sitemap's pages, the unlisted ones and the 404 answer.
  for (const path of [...listed, '/newsletter-verified', '/auth', '/no-such-page']) {
    await test.step(path, async () => {
      await page.goto(path);
      const block = page.getByRole('contentinfo').getByRole('group', { name: company('heading') });
      for (const line of lines) await expect(block).toContainText(line);
    });
  }
});

test('the footer Legal links lead to the privacy notice, the terms and the complaints page, all in the sitemap', async ({
  page,
  request,
}) => {
  expect(hrefs.slice(0, 3)).toEqual(['/privacy', '/terms', '/complaints']);
  const sitemap = await (await request.get('/sitemap-0.xml')).text();
  for (const path of ['/terms/', '/complaints/']) expect(sitemap).toContain(`${path}</loc>`);

  for (const [path, slug] of [
    ['/terms', 'terms'],
    ['/complaints', 'complaints'],
  ] as const) {
    await page.goto('/signals');
    const nav = page.getByRole('contentinfo').getByRole('navigation', { name: legal?.label });
    const label = legal?.links.find((link) => link.href === path)?.label ?? path;
    await nav.getByRole('link', { name: label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${path}/?$`));
    await expect(page.locator('h1')).toHaveText(copy(`pages/${slug}`).heading);
    await expect(page).toHaveTitle(copy(`pages/${slug}`).title);
  }
});

test('/complaints says how to complain, how long each step takes and where to escalate', async ({ page }) => {
  await page.goto('/complaints');
  const steps = section('complaints', 'steps').items ?? [];
  const list = page.locator('#steps li');
  await expect(list).toHaveCount(steps.length);
  for (const [index, step] of steps.entries()) {
    await expect(list.nth(index)).toContainText(step.title);
    await expect(list.nth(index)).toContainText(step.text ?? '');
  }
  // The timescale and the escalation, as the page's copy gives them.
  await expect(page.getByRole('main')).toContainText('8 weeks');
  await expect(page.getByRole('link', { name: 'financial-ombudsman.org.uk' })).toHaveAttribute(
    'href',
    'https://www.financial-ombudsman.org.uk',
  );
  await expect(page.getByRole('main')).toContainText(paragraphs('pages/complaints').at(-1) ?? '');
});

for (const path of ['/terms', '/complaints', '/privacy-settings']) {
  test(`${path} has no axe violations`, async ({ page }) => {
    // A full axe run takes a while on a busy machine.
    test.setTimeout(60_000);
    await page.goto(path);
    expect(await axeViolations(page)).toEqual([]);
  });
}

test('/terms carries its whole text @mobile', async ({ page }) => {
  await page.goto('/terms');
  const markdown = readFileSync(new URL('../../content/pages/terms.md', import.meta.url), 'utf8');
  const headings = [...markdown.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  expect(headings.length).toBeGreaterThan(5);
  for (const heading of headings) {
    await expect(page.getByRole('heading', { level: 2, name: heading })).toBeVisible();
  }
  for (const paragraph of paragraphs('pages/terms').filter((p) => !headings.includes(p))) {
    await expect(page.getByRole('main')).toContainText(paragraph);
  }
});

const risk = labels('risk-warning');
for (const viewport of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  for (const path of ['/', '/features', '/signals', '/principles', '/track-record']) {
    test(`${path} at ${viewport.width}×${viewport.height}: the risk warning is in the first screen, in body-size type`, async ({
      page,
    }) => {
      await page.setViewportSize(viewport);
      await page.goto(path);
      const warning = page.getByRole('main').getByText(risk('text'));
      await expect(warning).toHaveCount(1);
      await expect(warning).toContainText(risk('label'));
      await expect(warning).toBeVisible();
      // Wholly inside the first screen, below the fixed header, with nothing scrolled.
      expect(await page.evaluate(() => scrollY)).toBe(0);
      const box = await warning.boundingBox();
      const header = await page.locator('body > header').boundingBox();
      expect(box).not.toBeNull();
      expect(box?.y).toBeGreaterThanOrEqual((header?.y ?? 0) + (header?.height ?? 0));
      expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(viewport.height);
      const [size, body] = await warning.evaluate((el) => [
        Number.parseFloat(getComputedStyle(el).fontSize),
        Number.parseFloat(getComputedStyle(document.body).fontSize),
      ]);
      expect(size).toBeGreaterThanOrEqual(body);
      expect(size).toBeGreaterThanOrEqual(16);
    });
  }
}
