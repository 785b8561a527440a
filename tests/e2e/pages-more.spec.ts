import { expect, type Locator, type Page, test } from '@playwright/test';
import { copy, entries, labels, paragraphs, section } from '../content.ts';
import { axeViolations } from './checks.ts';

interface Route {
  path: string;
  title: string;
  h1: string;
  /** Text a visitor must see in the main content. */
  texts?: string[];
  /** Links in the main content: accessible name -> href. */
  links?: [string, string][];
  noindex?: boolean;
}

// Every text comes from content/ (tests/content.ts), so an edited sentence does not break these tests.
const ctas = (slug: string): [string, string][] => (copy(`pages/${slug}`).ctas ?? []).map((c) => [c.label, c.href]);
const items = (slug: string, id: string) => section(slug, id).items ?? [];
const itemTitles = (slug: string, id: string) => items(slug, id).map((item) => item.title);
const itemTexts = (slug: string, id: string) => items(slug, id).map((item) => item.text ?? '');
const head = (slug: string) => {
  const { title, heading } = copy(`pages/${slug}`);
  return { title, h1: heading };
};
const faqs = entries('faq');
const question = (id: string) => faqs.find((faq) => faq.id === id)?.data.question ?? id;
const answer = (id: string) => paragraphs(`faq/${id}`)[0] ?? id;
const supportOptions = copy('card-groups/support-options');
const supportTopics = copy('card-groups/support-topics');
const authLabels = labels('auth');
const analysisLabels = labels('analysis');
const verified = { email: copy('verification/email'), user: copy('verification/user') };
const site = copy('site/navigation');

const routes: Route[] = [
  {
    path: '/how-it-works',
    ...head('how-it-works'),
    texts: [
      ...itemTitles('how-it-works', 'steps'),
      ...itemTitles('how-it-works', 'ai-process'),
      ...itemTexts('how-it-works', 'ai-process'),
      section('how-it-works', 'key-features').eyebrow ?? '',
    ],
    links: ctas('how-it-works'),
  },
  {
    path: '/vps-hosting',
    ...head('vps-hosting'),
    texts: itemTitles('vps-hosting', 'highlights'),
    links: ctas('vps-hosting'),
  },
  {
    path: '/setup-guide',
    ...head('setup-guide'),
    texts: [
      section('setup-guide', 'steps').heading,
      ...itemTitles('setup-guide', 'signal-components'),
      ...itemTitles('setup-guide', 'best-practices'),
      ...itemTexts('setup-guide', 'best-practices'),
      section('setup-guide', 'risk-disclaimer').heading,
    ],
    links: ctas('setup-guide'),
  },
  {
    path: '/faq',
    ...head('faq'),
    texts: [faqs[0]?.data.question ?? '', faqs.at(-1)?.data.question ?? ''],
    links: ctas('faq'),
  },
  {
    path: '/support',
    ...head('support'),
    texts: [...supportOptions.cards.map((card) => card.title), supportTopics.heading],
  },
  {
    path: '/risk-management',
    ...head('risk-management'),
    texts: [
      section('risk-management', 'policy').heading,
      section('risk-management', 'policy').body ?? '',
      section('risk-management', 'evaluation').heading,
      ...itemTitles('risk-management', 'principles'),
    ],
    links: ctas('risk-management'),
  },
  {
    path: '/privacy',
    ...head('privacy'),
    texts: [
      ...itemTitles('privacy', 'stored'),
      ...itemTitles('privacy', 'rights'),
      ...itemTexts('privacy', 'stored'),
      ...itemTexts('privacy', 'rights'),
    ],
    links: [['contact us', '/contact-us']],
  },
  { path: '/newsletter-verified', title: verified.email.title, h1: verified.email.heading, noindex: true },
  {
    path: '/auth',
    ...head('auth'),
    texts: [authLabels('email'), authLabels('password')],
    links: [[authLabels('backToHome'), '/']],
  },
  {
    path: '/quiz',
    ...head('quiz'),
    texts: [copy('pages/quiz').lead ?? ''],
  },
  { path: '/news', ...head('news') },
  { path: '/investing-news', ...head('investing-news') },
  {
    path: '/trading-ideas',
    ...head('trading-ideas'),
    texts: [...itemTitles('trading-ideas', 'charts'), section('trading-ideas', 'news').heading],
  },
  {
    path: '/contact-us',
    ...head('contact-us'),
    texts: items('contact-us', 'response-times').flatMap((item) => [item.title, item.text ?? '']),
  },
  // /dashboard and /settings send a visitor to /auth: tests/e2e/member.spec.ts covers them.
  {
    path: '/analysis',
    ...head('analysis'),
    noindex: true,
    texts: [analysisLabels('signedOut')],
    links: [[analysisLabels('signIn'), '/auth?tab=signin']],
  },
];

const main = (page: Page): Locator => page.locator('main');

for (const route of routes) {
  test(`${route.path}: title, one h1 and the page's copy`, async ({ page }) => {
    const response = await page.goto(route.path);
    expect(response?.status()).toBe(200);
    await expect(page).toHaveTitle(route.title);
    await expect(page.locator('h1')).toHaveCount(1);
    await expect(page.locator('h1')).toHaveText(route.h1);
    const description = await page.locator('meta[name="description"]').getAttribute('content');
    expect(description?.length ?? 0).toBeGreaterThanOrEqual(50);
    for (const text of route.texts ?? []) {
      await expect(main(page).getByText(text, { exact: false }).first(), text).toBeVisible();
    }
    for (const [name, href] of route.links ?? []) {
      await expect(main(page).getByRole('link', { name, exact: true }).first(), name).toHaveAttribute('href', href);
    }
    const robots = page.locator('meta[name="robots"]');
    if (route.noindex) await expect(robots).toHaveAttribute('content', /noindex/);
    else await expect(robots).not.toHaveAttribute('content', /noindex/);
  });
}

test('/how-it-works explains the live demo near the top', async ({ page }) => {
  await page.goto('/how-it-works');
  const demo = page.locator('#demo');
  await expect(demo).toBeVisible();
  await expect(demo).toContainText(section('how-it-works', 'demo').eyebrow ?? '');
  await expect(demo).toContainText(section('how-it-works', 'demo').body ?? '');
  const sections = main(page).locator(':scope > section');
  await expect(sections.nth(1)).toHaveAttribute('id', 'demo');
});

test('/support: four option cards and four help topics with their links', async ({ page }) => {
  await page.goto('/support');
  const options = page.locator('#options li');
  await expect(options).toHaveCount(supportOptions.cards.length);
  for (const [index, { title, badge, href }] of supportOptions.cards.entries()) {
    const card = options.nth(index);
    await expect(card.getByRole('heading', { level: 3 })).toHaveText(title);
    if (badge) await expect(card.getByText(badge, { exact: true })).toBeVisible();
    if (href) await expect(card.getByRole('link')).toHaveAttribute('href', href);
  }
  const topics = page.locator('#topics li a');
  await expect(topics).toHaveCount(supportTopics.cards.length);
  const hrefs = await topics.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  expect(hrefs).toEqual(supportTopics.cards.map((card) => card.href));
});

test("/risk-management: a 5-step evaluation and the do and don't lists", async ({ page }) => {
  await page.goto('/risk-management');
  await expect(page.locator('#principles li')).toHaveCount(4);
  await expect(page.locator('#evaluation ol > li')).toHaveCount(5);
  for (const id of ['do', 'dont']) {
    const name = section('risk-management', id).heading;
    await expect(page.getByRole('heading', { level: 2, name, exact: true })).toBeVisible();
  }
  await expect(page.locator('#do li')).not.toHaveCount(0);
  await expect(page.locator('#dont li')).not.toHaveCount(0);
});

test('the footer links to /privacy, which names what is stored, why, for how long, and the Settings actions', async ({
  page,
}) => {
  await page.goto('/features');
  const legal = site.legal;
  expect(legal).toBeDefined();
  const link = page.getByRole('contentinfo').getByRole('navigation', { name: legal?.label }).getByRole('link', {
    name: legal?.links[0]?.label,
    exact: true,
  });
  await expect(link).toHaveAttribute('href', '/privacy');
  await link.click();
  await expect(page).toHaveURL(/\/privacy$/);
  await expect(page.locator('h1')).toHaveText(copy('pages/privacy').heading);
  // Each kind of data the site stores has its card, and each says why and for how long.
  const stored = page.locator('#stored li');
  await expect(stored).toHaveCount(itemTitles('privacy', 'stored').length);
  for (const card of await stored.all()) {
    await expect(card).toContainText('Why:');
    await expect(card).toContainText('How long:');
  }
  for (const action of ['Download my data', 'Delete my account']) {
    await expect(page.locator('#rights').getByRole('heading', { name: action, exact: true })).toBeVisible();
  }
});

test('the sign-up form links to /privacy beside Create Account', async ({ page }) => {
  await page.goto('/auth?tab=signup');
  const form = page.locator('form').filter({ has: page.getByRole('button', { name: authLabels('signUp') }) });
  await expect(form.getByText(authLabels('privacyNote'))).toBeVisible();
  await expect(form.getByRole('link', { name: authLabels('privacyLink'), exact: true })).toHaveAttribute(
    'href',
    '/privacy',
  );
});

test('/trading-ideas reserves a 300px box under each chart heading', async ({ page }) => {
  await page.goto('/trading-ideas');
  for (const pair of itemTitles('trading-ideas', 'charts')) {
    await expect(page.getByRole('heading', { level: 3, name: pair })).toBeVisible();
    const box = await page.locator(`[data-symbol="${pair}"]`).boundingBox();
    expect(box?.height).toBe(300);
  }
});

test.describe('/faq', () => {
  test('lists every question, closed at first; two answers can be open at once @mobile', async ({ page }) => {
    await page.goto('/faq');
    const questions = main(page).locator('details');
    await expect(questions).toHaveCount(faqs.length);
    await expect(main(page).locator('details[open]')).toHaveCount(0);

    const first = main(page).getByText(answer('01-what-are-signals'));
    const trial = main(page).getByText(answer('06-free-trial'));
    await expect(first).toBeHidden();
    await expect(trial).toBeHidden();

    await main(page).getByText(question('01-what-are-signals')).click();
    await main(page).getByText(question('06-free-trial')).click();
    await expect(first).toBeVisible();
    await expect(trial).toBeVisible();
    await expect(main(page).locator('details[open]')).toHaveCount(2);

    // Keyboard: a question toggles with Enter.
    const third = main(page).locator('summary').nth(2);
    await third.focus();
    await page.keyboard.press('Enter');
    await expect(main(page).locator('details[open]')).toHaveCount(3);
    await page.keyboard.press('Enter');
    await expect(main(page).locator('details[open]')).toHaveCount(2);
  });

  test('FAQPage JSON-LD carries the same questions, in order', async ({ page }) => {
    await page.goto('/faq');
    const json = await page.locator('script[type="application/ld+json"]').textContent();
    const data = JSON.parse(json ?? '{}');
    expect(data['@type']).toBe('FAQPage');
    const shown = await main(page).locator('summary > span:first-child').allInnerTexts();
    expect(data.mainEntity.map((q: { name: string }) => q.name)).toEqual(shown.map((q) => q.trim()));
    expect(shown.map((q) => q.trim())).toEqual(faqs.map((faq) => faq.data.question));
    expect(data.mainEntity[5].acceptedAnswer.text).toContain(answer('06-free-trial'));
    expect(data.mainEntity[5].acceptedAnswer.text).not.toContain('<');
  });
});

test.describe('/newsletter-verified', () => {
  // Each variant shows its own heading, title, description and links, and none of the other's.
  const variants = [
    ['?type=user', verified.user, verified.email],
    ['', verified.email, verified.user],
    ['?type=newsletter', verified.email, verified.user],
  ] as const;
  for (const [query, shown, other] of variants) {
    test(`${query || 'no query'} shows ${shown.heading} with its links and retitles the page`, async ({ page }) => {
      await page.goto(`/newsletter-verified${query}`);
      await expect(page.locator('h1')).toHaveText(shown.heading);
      await expect(page).toHaveTitle(shown.title);
      await expect(page.locator('meta[name="description"]')).toHaveAttribute('content', shown.description);
      for (const link of shown.links) {
        await expect(main(page).getByRole('link', { name: link.label, exact: true })).toHaveAttribute(
          'href',
          link.href,
        );
      }
      await expect(main(page).getByText(other.heading)).toBeHidden();
      for (const link of other.links.filter((l) => !shown.links.some((s) => s.label === l.label))) {
        await expect(main(page).getByRole('link', { name: link.label, exact: true })).toHaveCount(0);
      }
    });
  }

  test('tokens from a confirmation link are removed from the URL and do not sign the browser in', async ({ page }) => {
    await page.goto('/newsletter-verified?type=user#access_token=abc&refresh_token=def&type=signup');
    await expect(page.locator('h1')).toHaveText(verified.user.heading);
    await expect.poll(() => page.evaluate(() => location.href)).not.toContain('token');
    const href = await page.evaluate(() => location.href);
    expect(href).not.toContain('abc');
    expect(href).not.toContain('def');
    expect(new URL(href).search).toBe('?type=user');
    const stored = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('auth-token')));
    expect(stored).toEqual([]);
  });

  test('query-string tokens and codes are removed too', async ({ page }) => {
    await page.goto('/newsletter-verified?access_token=abc&type=user&code=xyz&refresh_token=def');
    await expect(page.locator('h1')).toHaveText(verified.user.heading);
    await expect.poll(() => page.evaluate(() => new URL(location.href).search)).toBe('?type=user');
  });
});

test.describe('accessibility', () => {
  const paths = [...routes.map((route) => route.path), '/newsletter-verified?type=user'];
  for (const path of paths) {
    test(`${path} has no axe violations`, async ({ browser }) => {
      // A full axe run takes a while on a busy machine.
      test.setTimeout(60_000);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(path);
      // Open every answer so that their content is checked too.
      for (const summary of await main(page).locator('summary').all()) await summary.click();
      expect(await axeViolations(page)).toEqual([]);
      await context.close();
    });
  }
});
