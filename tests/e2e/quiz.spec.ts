import { expect, type Page, test } from '@playwright/test';
import { copy, entries, fill, literal } from '../content.ts';
import { axeViolations, pauseClock } from './checks.ts';

// The quiz's words come from content/quiz/risk-profile.md and content/bands/ (tests/content.ts).
const quiz = copy('quiz/risk-profile');
const { labels } = quiz;
const total = quiz.questions.length;
const count = (n: number) => fill(labels.questionCount, { n, total });
const tierResult = (tier: string) => quiz.results.find((result) => result.tier === tier);
const band = (name: string) => entries('bands').find((entry) => entry.data.name === name)?.data;

const main = (page: Page) => page.locator('main');
const progress = (page: Page) => main(page).getByRole('progressbar', { name: labels.progress });

test.describe.configure({ timeout: 60_000 });

/** Opens /quiz and waits until the island is hydrated (Astro drops the ssr attribute), so presses count. */
async function openQuiz(page: Page) {
  await page.goto('/quiz');
  await expect(page.locator('astro-island')).toHaveCount(1);
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
}

const questions = quiz.questions.map((question) => question.question);

/** Answers each question with the option at that position (0 = lowest score, 2 = highest). */
async function answer(page: Page, choices: number[]) {
  for (const [index, choice] of choices.entries()) {
    await expect(main(page).getByRole('heading', { level: 2, name: questions[index] })).toBeVisible();
    await main(page).getByRole('list', { name: labels.options }).getByRole('button').nth(choice).click();
  }
}

test('one question at a time with its progress, options lowest score first', async ({ page }) => {
  await openQuiz(page);
  await expect(progress(page)).toHaveAttribute('aria-valuenow', '1');
  await expect(progress(page)).toHaveAttribute('aria-valuemax', String(total));
  await expect(main(page).getByText(count(1), { exact: true })).toBeVisible();
  await expect(main(page).getByRole('heading', { level: 2 })).toHaveText(questions[0]);
  const first = quiz.questions[0]?.options ?? [];
  await expect(main(page).getByRole('list', { name: labels.options }).getByRole('button')).toHaveText(
    first.map((option) => new RegExp(`${literal(option.emoji)}\\s*${literal(option.text)}`)),
  );

  const bar = progress(page).locator('div');
  const track = await progress(page).boundingBox();
  expect(((await bar.boundingBox())?.width ?? 0) / (track?.width ?? 1)).toBeCloseTo(0.2, 2);

  await main(page).getByRole('button', { name: first[0]?.text }).click();
  await expect(main(page).getByText(count(2), { exact: true })).toBeVisible();
  await expect(progress(page)).toHaveAttribute('aria-valuenow', '2');
  await expect.poll(async () => ((await bar.boundingBox())?.width ?? 0) / (track?.width ?? 1)).toBeCloseTo(0.4, 2);
  const heading = main(page).getByRole('heading', { level: 2, name: questions[1] });
  await expect(heading).toBeFocused();
});

// The tier names and thresholds are the scoring rules' (src/lib/quiz-score.ts); style, colour and words are content.
for (const [choices, tier] of [
  // 1,1,3,1,5: average 2.2
  [[0, 0, 1, 0, 2], 'Foundation One'],
  // 3,3,3,3,1: average 2.6
  [[1, 1, 1, 1, 0], 'Growth One'],
  // 5,5,3,3,3: average 3.8
  [[2, 2, 1, 1, 1], 'Momentum One'],
] as const) {
  test(`answers ${choices.join(',')} lead to ${tier}`, async ({ page }) => {
    const { style, colour, description } = tierResult(tier) ?? { style: '', colour: '', description: '' };
    await openQuiz(page);
    await answer(page, [...choices]);
    const result = main(page).getByRole('heading', { level: 2, name: tier });
    await expect(result).toBeVisible();
    await expect(result).toBeFocused();
    await expect(main(page).locator('[data-tier-colour]')).toHaveAttribute('data-tier-colour', colour);
    await expect(main(page).getByText(style, { exact: true })).toBeVisible();
    await expect(main(page).getByText(description)).toBeVisible();
    await expect(progress(page)).toHaveCount(0);
  });
}

test('the result shows the band, the flag for 3 s, the links, and Retake Quiz resets everything', async ({ page }) => {
  await page.clock.install({ time: new Date('2026-01-05T09:00:00Z') });
  await openQuiz(page);
  // Time stands still from here, so the flag's 3 s are the runFor calls' below.
  await pauseClock(page);
  await answer(page, [1, 1, 1, 1, 1]);
  await expect(main(page).getByRole('heading', { level: 2, name: 'Growth One' })).toBeFocused();
  await expect(main(page).getByText(fill(labels.averageScore, { average: '3.0' }))).toBeVisible();
  const growth = band('Growth One');
  if (!growth) throw new Error('content/bands/ has no Growth One');
  for (const figure of [growth.profitFactor, growth.maxDrawdown, growth.winRate, growth.stopRules, growth.frequency]) {
    await expect(main(page).getByText(figure, { exact: true })).toBeVisible();
  }
  const flag = main(page).getByText(labels.celebration);
  await expect(flag).toBeVisible();
  await page.clock.runFor(2900);
  await expect(flag).toBeVisible();
  await page.clock.runFor(200);
  await expect(flag).toHaveCount(0);

  for (const { label, href } of quiz.links) {
    await expect(main(page).getByRole('link', { name: label })).toHaveAttribute('href', href);
  }

  await main(page).getByRole('button', { name: labels.retake }).click();
  const first = main(page).getByRole('heading', { level: 2, name: questions[0] });
  await expect(first).toBeFocused();
  await expect(main(page).getByText(count(1), { exact: true })).toBeVisible();
  await expect(progress(page)).toHaveAttribute('aria-valuenow', '1');
  // Fresh scores: answering low now gives Foundation One, not a mix with the earlier answers.
  await answer(page, [0, 0, 0, 0, 0]);
  await expect(main(page).getByRole('heading', { level: 2, name: 'Foundation One' })).toBeVisible();
  await expect(main(page).getByText(fill(labels.averageScore, { average: '1.0' }))).toBeVisible();
});

test('the quiz works from the keyboard alone @mobile', async ({ page }) => {
  await openQuiz(page);
  await main(page).getByRole('button', { name: quiz.questions[0]?.options[2]?.text }).focus();
  await page.keyboard.press('Enter');
  for (let i = 1; i < 5; i += 1) {
    await expect(main(page).getByRole('heading', { level: 2, name: questions[i] })).toBeFocused();
    // Tab from the heading: the first option (lowest score), then the next two.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
  }
  await expect(main(page).getByRole('heading', { level: 2, name: 'Momentum One' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(main(page).getByRole('link', { name: quiz.links[0]?.label })).toBeFocused();
});

test('/quiz has no axe violations, on a question and on the result', async ({ browser }) => {
  // Two full axe runs (one over the 68-row log): slow on a busy machine.
  test.setTimeout(90_000);
  const context = await browser.newContext();
  const page = await context.newPage();
  await openQuiz(page);
  await expect(progress(page)).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await answer(page, [2, 2, 2, 2, 2]);
  await expect(main(page).getByRole('heading', { level: 2, name: 'Momentum One' })).toBeVisible();
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
});
