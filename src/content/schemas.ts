// Frontmatter schemas for everything under content/. Kept free of astro:content so unit tests
// can import them; src/content.config.ts wires them to collections.
import { z } from 'astro/zod';
import { iconNames } from '../lib/icons.ts';

const text = z.string().trim().min(1);
const href = z.string().regex(/^(\/|https?:\/\/|#|mailto:)/, 'must start with /, #, http(s):// or mailto:');
const order = z.number().int().nonnegative();
const icon = z.enum(iconNames);

export const ctaSchema = z.strictObject({
  label: text,
  href,
  variant: z.enum(['primary', 'secondary', 'ghost']).optional(),
  // Progressive enhancement hooks: 'demo' is taken over by the demo modal, 'back' goes back in history.
  action: z.enum(['demo', 'back']).optional(),
});

export const itemSchema = z.strictObject({
  title: text,
  text: text.optional(),
  icon: icon.optional(),
});

export const sectionSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case')
    .optional(),
  eyebrow: text.optional(),
  heading: text,
  body: text.optional(),
  items: z.array(itemSchema).optional(),
});

export const pageSchema = z.strictObject({
  title: text,
  description: z
    .string()
    .trim()
    .min(50, 'meta description must be at least 50 characters')
    .max(160, 'meta description must be at most 160 characters'),
  heading: text,
  lead: text.optional(),
  ctas: z.array(ctaSchema).optional(),
  hero: z
    .strictObject({
      banner: text.optional(),
      stats: z.array(text).optional(),
      // The daily-profit badge: its caption, the figure, and what the figure is (e.g. "Simulation"), shown beside it.
      highlight: z.strictObject({ label: text, value: text, note: text.optional() }).optional(),
    })
    .optional(),
  sections: z.array(sectionSchema).optional(),
});

const linkSchema = z.strictObject({ label: text, href });

export const siteSchema = z.strictObject({
  brand: text,
  tagline: text,
  headerLinks: z.array(linkSchema).min(1),
  footerLinks: z.array(linkSchema).min(1),
  labels: z.strictObject({
    skipLink: text,
    primaryNav: text,
    footerNav: text,
    home: text,
    openMenu: text,
    closeMenu: text,
    authLoading: text,
    signIn: text,
    signUp: text,
    dashboard: text,
    signOut: text,
    signedInAs: text,
    quickLinks: text,
    notifications: text,
    dismissNotification: text,
    signedOutTitle: text,
    signedOutDescription: text,
    signOutFailedTitle: text,
    signOutFailedDescription: text,
  }),
  auth: z.strictObject({ signInHref: href, signUpHref: href, dashboardHref: href }),
  /** Small legal links under the footer's disclaimer (the privacy notice), in a nav named `label`. */
  legal: z.strictObject({ label: text, links: z.array(linkSchema).min(1) }).optional(),
  disclaimer: text,
  copyright: text.regex(/\{year\}/, 'must contain {year}'),
});

/** Short UI strings (field labels, units) grouped per area: content/labels/<area>.md. */
export const labelsSchema = z.strictObject({
  strings: z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9]*$/, 'keys must be camelCase'), text),
});

export const cardSchema = z.strictObject({
  title: text,
  text,
  icon,
  order,
});

const pair = z.string().regex(/^[A-Z]{3}\/[A-Z]{3}$/, 'must look like EUR/USD');
const price = z.string().regex(/^\d+(\.\d+)?$/, 'must be a price such as 1.08450');
export const timeframe = z.enum(['M1', 'M5', 'M15', 'M30', 'H1', 'H4', 'D1', 'W1']);

export const signalSchema = z.strictObject({
  pair,
  direction: z.enum(['BUY', 'SELL']),
  entry: price,
  stopLoss: price,
  takeProfit: z.tuple([price, price, price]),
  status: z.enum(['Active', 'TP1 Hit']),
  time: timeframe,
  riskReward: z.string().regex(/^1:\d+(\.\d+)?$/, 'must look like 1:3'),
  order,
});

export const resultSchema = z.strictObject({
  pair,
  result: z.enum(['WIN', 'LOSS']),
  pips: z.number().int().nonnegative(),
  timeframe,
  order,
});

const style = z.enum(['conservative', 'balanced', 'aggressive']);

export const bandSchema = z.strictObject({
  name: text,
  style,
  profitFactor: text,
  maxDrawdown: text,
  winRate: text,
  stopRules: text,
  maxTrades: z.number().int().positive(),
  frequency: text,
  order,
});

export const tierSchema = z.strictObject({
  name: text,
  style,
  summary: text,
  profitFactor: text,
  winRate: text,
  drawdown: text,
  rule: text.optional(),
  order,
});

/** One question per file, content/faq/<nn>-<slug>.md; the Markdown body is the answer. */
export const faqSchema = z.strictObject({
  question: text.regex(/\?$/, 'must end with a question mark'),
  order,
});

export const quizScore = z.union([z.literal(1), z.literal(3), z.literal(5)], {
  error: 'must be 1, 3 or 5',
});

export const quizOptionSchema = z.strictObject({ text, emoji: text, score: quizScore });

export const quizQuestionSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case'),
  question: text,
  options: z
    .array(quizOptionSchema)
    .length(3, 'must have exactly 3 options')
    .superRefine((options, ctx) => {
      options.forEach((option, index) => {
        const previous = options[index - 1];
        if (previous && option.score <= previous.score) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'score'],
            message: 'options must be listed from the lowest score to the highest (1, 3, 5)',
          });
        }
      });
    }),
});

export const quizTierNames = ['Foundation One', 'Growth One', 'Momentum One'] as const;

export const quizResultSchema = z.strictObject({
  tier: z.enum(quizTierNames),
  colour: z.enum(['green', 'blue', 'purple', 'gold', 'red']),
  style: text,
  description: text,
});

/** The quiz screen's own words: progress, result headings, the flag and Retake Quiz. */
export const quizLabelsSchema = z.strictObject({
  progress: text,
  questionCount: text.regex(/\{n\}/, 'must contain {n}').regex(/\{total\}/, 'must contain {total}'),
  options: text,
  resultEyebrow: text,
  averageScore: text.regex(/\{average\}/, 'must contain {average}'),
  celebration: text,
  bandHeading: text,
  retake: text,
});

/** The risk-profile quiz: content/quiz/risk-profile.md. */
export const quizSchema = z.strictObject({
  labels: quizLabelsSchema,
  links: z.array(ctaSchema).min(1),
  questions: z
    .array(quizQuestionSchema)
    .length(5, 'must have exactly 5 questions')
    .superRefine((questions, ctx) => {
      const seen = new Set<string>();
      questions.forEach((question, index) => {
        if (seen.has(question.id)) {
          ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate question id "${question.id}"` });
        }
        seen.add(question.id);
      });
    }),
  results: z
    .array(quizResultSchema)
    .length(3, 'must have exactly 3 tier results')
    .superRefine((results, ctx) => {
      results.forEach((result, index) => {
        if (result.tier !== quizTierNames[index]) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'tier'],
            message: `results must be listed ${quizTierNames.join(', ')}; expected "${quizTierNames[index]}"`,
          });
        }
      });
    }),
});

// --- Live Trading Demo modal (content/demo/live-trading.md) ---

const templated = (...keys: string[]) =>
  keys.reduce((schema, key) => schema.regex(new RegExp(`\\{${key}\\}`), `must contain {${key}}`), text);

export const demoSchema = z.strictObject({
  title: text,
  intro: text,
  disclaimer: text,
  labels: z.strictObject({
    close: text,
    totalProfit: text,
    activeTrades: text,
    avgProfit: text,
    trades: text,
    pair: text,
    type: text,
    entry: text,
    profit: text,
    result: text,
    win: text,
    loss: text,
    running: text,
    stage1: text,
    tradesWon: templated('won', 'total'),
    banner: text,
  }),
  howItWorks: z.strictObject({
    heading: text,
    steps: z.array(z.strictObject({ title: text, text })).length(3, 'must have exactly 3 steps'),
  }),
});

export type DemoCopy = z.infer<typeof demoSchema>;

export const linkCardSchema = z
  .strictObject({
    title: text,
    text,
    badge: text.optional(),
    href: href.optional(),
    linkLabel: text.optional(),
  })
  .refine((card) => (card.href === undefined) === (card.linkLabel === undefined), {
    path: ['linkLabel'],
    message: 'href and linkLabel go together: give both or neither',
  });

/** A titled group of cards, optionally linking somewhere: content/card-groups/<name>.md. */
export const cardGroupSchema = z.strictObject({
  eyebrow: text.optional(),
  heading: text,
  lead: text.optional(),
  cards: z.array(linkCardSchema).min(1),
});

/**
 * The /newsletter-verified variants: content/verification/{email,user,user-expired,expired,invalid,unsubscribed,
 * unsubscribe-invalid}.md; the body is the message. `symbol` is the mark above the heading (a tick unless given).
 * `?status=` picks any variant but the first three; `?type=user` picks `user`; an auth error in the fragment
 * picks `user-expired`.
 */
export const verificationVariants = [
  'email',
  'user',
  'user-expired',
  'expired',
  'invalid',
  'unsubscribed',
  'unsubscribe-invalid',
] as const;
export const verificationSchema = z.strictObject({
  variant: z.enum(verificationVariants),
  symbol: z.string().trim().min(1).max(2).optional(),
  title: text,
  description: pageSchema.shape.description,
  heading: text,
  links: z.array(ctaSchema).min(1),
});

export type PageData = z.infer<typeof pageSchema>;
export type Cta = z.infer<typeof ctaSchema>;
export type Item = z.infer<typeof itemSchema>;
export type SectionData = z.infer<typeof sectionSchema>;
export type SiteData = z.infer<typeof siteSchema>;
export type FaqData = z.infer<typeof faqSchema>;
export type QuizData = z.infer<typeof quizSchema>;
export type CardGroupData = z.infer<typeof cardGroupSchema>;
export type VerificationData = z.infer<typeof verificationSchema>;

// --- Signed-in area ---

/** The signed-in pages' sidebar: content/member/sidebar.md. */
export const memberSidebarSchema = z.strictObject({
  heading: text,
  navLabel: text,
  links: z.array(z.strictObject({ label: text, href, icon })).min(1),
  /** Where the gate sends a visitor without a session. */
  signInHref: href,
  labels: z.strictObject({
    name: text,
    email: text,
    emailStatus: text,
    verified: text,
    unverified: text,
    memberSince: text,
    signOut: text,
    collapse: text,
    expand: text,
    open: text,
    close: text,
    sheetTitle: text,
    shortcut: text,
  }),
});

export type MemberSidebarData = z.infer<typeof memberSidebarSchema>;
