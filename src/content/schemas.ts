// Frontmatter schemas for everything under content/. Kept free of astro:content so unit tests
// can import them; src/content.config.ts wires them to collections.
import { z } from 'astro/zod';

const text = z.string().trim().min(1);
const href = z.string().regex(/^(\/|https?:\/\/|#|mailto:)/, 'must start with /, #, http(s):// or mailto:');
const order = z.number().int().nonnegative();

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
  icon: text.optional(),
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
      highlight: z.strictObject({ label: text, value: text }).optional(),
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
  }),
  auth: z.strictObject({ signInHref: href, signUpHref: href, dashboardHref: href }),
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
  icon: text,
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

export type PageData = z.infer<typeof pageSchema>;
export type Cta = z.infer<typeof ctaSchema>;
export type Item = z.infer<typeof itemSchema>;
export type SectionData = z.infer<typeof sectionSchema>;
export type SiteData = z.infer<typeof siteSchema>;
