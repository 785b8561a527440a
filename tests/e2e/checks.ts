// Checks several specs share: axe's findings as readable lines, and the POST bodies a page sends somewhere.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * axe's violations on the page as it is now, one line each: `rule: selector, selector`. Legacy mode: one axe.run in
 * the page (same-origin frames included), instead of a partial run in every frame finished in a blank page of its
 * own, which took 2.0-3.2 s a check here against 1.1-1.3 s. Cross-origin frames (the chart widget's, Turnstile's)
 * are left out: their content is not the site's.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Every POST body the page sends to URLs starting with `url`, collected from now on. */
export function postsTo(page: Page, url: string): string[] {
  const seen: string[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith(url) && req.method() === 'POST') seen.push(req.postData() ?? '');
  });
  return seen;
}
