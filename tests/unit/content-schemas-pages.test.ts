import { describe, expect, it } from 'vitest';
import {
  cardGroupSchema,
  demoSchema,
  faqSchema,
  linkCardSchema,
  quizQuestionSchema,
  quizSchema,
  verificationSchema,
} from '../../src/content/schemas.ts';

type Schema = {
  safeParse: (data: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
};

const options = (scores: unknown[]) => scores.map((score, i) => ({ text: `Option ${i + 1}`, emoji: '🙂', score }));

const question = (id: string, scores: unknown[] = [1, 3, 5]) => ({
  id,
  question: `Question ${id}?`,
  options: options(scores),
});

const results = [
  { tier: 'Foundation One', colour: 'green', style: 'Conservative', description: 'Steady growth.' },
  { tier: 'Growth One', colour: 'blue', style: 'Balanced', description: 'Balanced growth.' },
  { tier: 'Momentum One', colour: 'purple', style: 'Aggressive', description: 'More opportunities.' },
];

const quiz = {
  labels: {
    progress: 'Quiz progress',
    questionCount: '{n} of {total}',
    options: 'Choose one answer',
    resultEyebrow: 'Your signal match',
    averageScore: 'Average score {average} out of 5',
    celebration: 'Quiz complete!',
    bandHeading: 'What you get',
    retake: 'Retake Quiz',
  },
  links: [{ label: 'View Signals', href: '/signals' }],
  questions: ['experience', 'reaction', 'goal', 'frequency', 'drawdown'].map((id) => question(id)),
  results,
};

const card = {
  title: 'Trading Guides',
  text: 'Step-by-step guides.',
  badge: 'Setup',
  href: '/setup-guide',
  linkLabel: 'Read',
};

const verification = {
  variant: 'user',
  title: 'Account Verified | SignalOne',
  description: 'Your account has been verified. Sign in to start your 7-day free trial of AI forex trading signals.',
  heading: 'Account verified',
  links: [{ label: 'Go to Login', href: '/auth', variant: 'primary' }],
};

const demo = {
  title: 'Live Trading Demo',
  intro: 'A scripted session.',
  disclaimer: 'Profits shown in demos are not guaranteed.',
  labels: {
    close: 'Close demo',
    totalProfit: 'Total Profit',
    activeTrades: 'Active Trades',
    avgProfit: 'Avg. Profit',
    trades: 'Live trades',
    pair: 'Pair',
    type: 'Type',
    entry: 'Entry',
    profit: 'Profit',
    result: 'Result',
    win: 'Win',
    loss: 'Loss',
    running: 'Trading live',
    stage1: 'Session complete',
    tradesWon: '{won} of {total} trades won',
    banner: 'High percentage of trades profitable',
  },
  howItWorks: {
    heading: 'How It Works',
    steps: ['Signal Generation', 'Trade Execution', 'Profit Collection'].map((title) => ({ title, text: 'Step.' })),
  },
};

const valid: [string, Schema, unknown][] = [
  ['demo', demoSchema, demo],
  ['faq', faqSchema, { question: 'Is there a free trial?', order: 6 }],
  ['quiz question', quizQuestionSchema, question('goal')],
  ['quiz', quizSchema, quiz],
  ['link card without a link', linkCardSchema, { title: 'Premium Signals', text: 'Soon.', badge: 'Coming Soon' }],
  ['card group', cardGroupSchema, { eyebrow: 'Support options', heading: 'How can we help?', cards: [card] }],
  ['verification', verificationSchema, verification],
];

describe.each(valid)('%s: a valid sample', (_name, schema, sample) => {
  it('is accepted', () => {
    const result = schema.safeParse(sample);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.success).toBe(true);
  });
});

const { order: _order, ...faqWithoutOrder } = { question: 'Is there a free trial?', order: 6 };
const { heading: _heading, ...verificationWithoutHeading } = verification;

const invalid: [string, Schema, unknown, (string | number)[], RegExp?][] = [
  // missing required fields
  ['faq without order', faqSchema, faqWithoutOrder, ['order']],
  ['faq without question', faqSchema, { order: 1 }, ['question']],
  ['verification without heading', verificationSchema, verificationWithoutHeading, ['heading']],
  ['card group without cards', cardGroupSchema, { heading: 'Help' }, ['cards']],
  ['quiz without results', quizSchema, { ...quiz, results: undefined }, ['results']],
  [
    'demo without the banner',
    demoSchema,
    { ...demo, labels: { ...demo.labels, banner: undefined } },
    ['labels', 'banner'],
  ],
  [
    'demo trades-won label without {won}',
    demoSchema,
    { ...demo, labels: { ...demo.labels, tradesWon: 'Trades won' } },
    ['labels', 'tradesWon'],
    /\{won\}/,
  ],
  [
    'demo with two steps',
    demoSchema,
    { ...demo, howItWorks: { ...demo.howItWorks, steps: demo.howItWorks.steps.slice(0, 2) } },
    ['howItWorks', 'steps'],
    /exactly 3 steps/,
  ],
  [
    'quiz count label without {total}',
    quizSchema,
    { ...quiz, labels: { ...quiz.labels, questionCount: '{n} of 5' } },
    ['labels', 'questionCount'],
    /\{total\}/,
  ],
  [
    'option without emoji',
    quizQuestionSchema,
    { ...question('a'), options: [{ text: 'x', score: 1 }, ...options([3, 5])] },
    ['options', 0, 'emoji'],
  ],
  // wrong types
  ['faq order as text', faqSchema, { question: 'Why?', order: 'first' }, ['order']],
  ['faq order not an integer', faqSchema, { question: 'Why?', order: 1.5 }, ['order']],
  ['faq question not a question', faqSchema, { question: 'Free trial', order: 1 }, ['question'], /question mark/],
  ['score as text', quizQuestionSchema, question('a', ['1', 3, 5]), ['options', 0, 'score'], /1, 3 or 5/],
  ['card text as number', linkCardSchema, { ...card, text: 42 }, ['text']],
  ['verification links empty', verificationSchema, { ...verification, links: [] }, ['links']],
  [
    'verification description too short',
    verificationSchema,
    { ...verification, description: 'Verified.' },
    ['description'],
    /at least 50/,
  ],
  ['card href not a path', linkCardSchema, { ...card, href: 'setup-guide' }, ['href']],
  [
    'card link label without href',
    linkCardSchema,
    { title: 'A', text: 'B', linkLabel: 'Go' },
    ['linkLabel'],
    /together/,
  ],
  ['unknown field', faqSchema, { question: 'Why?', order: 1, answer: 'Because.' }, []],
  // wrong enum values
  ['verification variant', verificationSchema, { ...verification, variant: 'newsletter' }, ['variant']],
  [
    'link variant',
    verificationSchema,
    { ...verification, links: [{ label: 'Go', href: '/', variant: 'link' }] },
    ['links', 0, 'variant'],
  ],
  [
    'result tier',
    quizSchema,
    { ...quiz, results: [{ ...results[0], tier: 'Starter One' }, results[1], results[2]] },
    ['results', 0, 'tier'],
  ],
  [
    'result colour',
    quizSchema,
    { ...quiz, results: [results[0], { ...results[1], colour: 'teal' }, results[2]] },
    ['results', 1, 'colour'],
  ],
  // quiz rules
  ['score outside 1, 3, 5', quizQuestionSchema, question('a', [1, 2, 5]), ['options', 1, 'score'], /1, 3 or 5/],
  ['two options', quizQuestionSchema, { ...question('a'), options: options([1, 5]) }, ['options'], /exactly 3/],
  ['four options', quizQuestionSchema, { ...question('a'), options: options([1, 3, 5, 5]) }, ['options'], /exactly 3/],
  [
    'options highest first',
    quizQuestionSchema,
    question('a', [5, 3, 1]),
    ['options', 1, 'score'],
    /lowest score to the highest/,
  ],
  [
    'options with a repeated score',
    quizQuestionSchema,
    question('a', [1, 3, 3]),
    ['options', 2, 'score'],
    /lowest score to the highest/,
  ],
  ['question id not kebab-case', quizQuestionSchema, question('Risk Goal'), ['id'], /kebab-case/],
  ['four questions', quizSchema, { ...quiz, questions: quiz.questions.slice(0, 4) }, ['questions'], /exactly 5/],
  [
    'duplicate question ids',
    quizSchema,
    { ...quiz, questions: [...quiz.questions.slice(0, 4), question('goal')] },
    ['questions', 4, 'id'],
    /duplicate/,
  ],
  [
    'results out of order',
    quizSchema,
    { ...quiz, results: [results[1], results[0], results[2]] },
    ['results', 0, 'tier'],
    /Foundation One/,
  ],
  ['two results', quizSchema, { ...quiz, results: results.slice(0, 2) }, ['results'], /exactly 3/],
];

describe.each(invalid)('%s', (_name, schema, sample, path, message) => {
  it(`is rejected at ${path.join('.') || 'the root'}`, () => {
    const result = schema.safeParse(sample);
    expect(result.success).toBe(false);
    const issues = result.error?.issues ?? [];
    const atPath = issues.filter((issue) => issue.path.join('.') === path.join('.'));
    expect(atPath, JSON.stringify(issues)).not.toHaveLength(0);
    if (message) expect(atPath.map((issue) => issue.message).join(' | ')).toMatch(message);
  });
});
