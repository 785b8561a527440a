// Checks several specs share: axe's findings as readable lines, and the POST bodies a page sends somewhere.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** axe's violations on the page as it is now, one line each: `rule: selector, selector`. */
export async function axeViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
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
