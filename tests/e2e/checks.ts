// Checks several specs share: axe's findings as readable lines, the POST bodies a page sends somewhere, a gate that
// holds a page's requests until the test has seen what the page shows meanwhile, and a pause of the page's clock.
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

/**
 * Holds the page's requests to `url` (a page.route pattern) until release(), then lets them through unchanged: what
 * the page shows while a request is under way (a loading or busy state) stays there until the test has seen it,
 * however fast the answer. calls() counts the requests held.
 */
export async function hold(page: Page, url: string) {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  await page.route(url, async (route) => {
    calls += 1;
    await gate;
    await route.continue();
  });
  return {
    calls: () => calls,
    release: () => open(),
  };
}

/**
 * Stops the page's installed clock (page.clock.install) a moment from now; from then on only page.clock.runFor moves
 * it. The installed clock runs in real time from install, so a fixed time to pause at may have passed already on a
 * busy machine, and pauseAt cannot go back: the moment is taken from the page's own clock, a second ahead, and taken
 * again should the pause arrive later than that. Timers due on the way fire once, as pauseAt fires them.
 */
export async function pauseClock(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const now = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(now + 1000);
      return;
    } catch (err) {
      if (attempt === 3 || !String(err).includes('Cannot fast-forward to the past')) throw err;
    }
  }
}
