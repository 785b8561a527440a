import { describe, expect, it } from 'vitest';
import {
  bandSchema,
  cardSchema,
  ctaSchema,
  itemSchema,
  labelsSchema,
  pageSchema,
  resultSchema,
  sectionSchema,
  signalSchema,
  siteSchema,
  tierSchema,
} from '../../src/content/schemas.ts';

type Schema = {
  safeParse: (data: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
};

/** A copy of `sample` without `key`. */
const without = <T extends object>(sample: T, key: keyof T): Partial<T> => {
  const copy = { ...sample };
  delete copy[key];
  return copy;
};

const page = {
  title: 'Signals | SignalOne',
  description: 'Sample live forex signals with entry, stop-loss and three take-profit levels, and the signal bands.',
  heading: 'Live forex signals',
  lead: 'Every signal comes with a precise entry.',
  ctas: [
    { label: 'View All Signals', href: '/signals', variant: 'primary' },
    { label: 'Watch Demo', href: '/how-it-works#demo', variant: 'secondary', action: 'demo' },
  ],
  hero: {
    banner: 'Limited offer: 50% off certain signals',
    stats: ['Live Signals Active', '100+ Active Traders', 'High Win Rate'],
    highlight: { label: 'Daily profit', value: '+£254' },
  },
  sections: [
    {
      id: 'what-you-get',
      eyebrow: 'What you get',
      heading: 'What You Get',
      body: 'Everything in one signal.',
      items: [{ title: 'Entry points', text: 'An exact entry price.', icon: 'crosshair' }],
    },
  ],
};

const link = (label: string, href: string) => ({ label, href });

const site = {
  brand: 'SignalOne',
  tagline: 'Autonomous AI agents delivering forex signals.',
  headerLinks: [link('Home', '/'), link('8 Principles', '/principles')],
  footerLinks: [link('Market News', '/news')],
  labels: {
    skipLink: 'Skip to content',
    primaryNav: 'Main',
    footerNav: 'Footer',
    home: 'SignalOne home',
    openMenu: 'Open menu',
    closeMenu: 'Close menu',
    authLoading: 'Checking your session',
    signIn: 'Sign In',
    signUp: 'Sign Up',
    dashboard: 'Dashboard',
    signOut: 'Sign Out',
    signedInAs: 'Signed in as',
    quickLinks: 'Quick Links',
    notifications: 'Notifications',
    dismissNotification: 'Dismiss notification',
    signedOutTitle: 'Signed out',
    signedOutDescription: 'You have been signed out successfully.',
    signOutFailedTitle: 'Error',
    signOutFailedDescription: 'Failed to sign out. Please try again.',
  },
  auth: { signInHref: '/auth?tab=signin', signUpHref: '/auth?tab=signup', dashboardHref: '/dashboard' },
  disclaimer: 'Profits shown in demos are not guaranteed.',
  copyright: '© {year} SignalOne. All rights reserved.',
};

const card = { title: 'Real-Time Signals', text: 'Signals the instant they appear.', icon: 'zap', order: 1 };

const signal = {
  pair: 'EUR/USD',
  direction: 'BUY',
  entry: '1.08450',
  stopLoss: '1.08250',
  takeProfit: ['1.08650', '1.08850', '1.09050'],
  status: 'TP1 Hit',
  time: 'M30',
  riskReward: '1:3',
  order: 1,
};

const result = { pair: 'AUD/USD', result: 'LOSS', pips: 20, timeframe: 'M5', order: 3 };

const band = {
  name: 'Foundation One',
  style: 'conservative',
  profitFactor: 'Above 10',
  maxDrawdown: 'Under 10%',
  winRate: 'Above 90%',
  stopRules: 'Stop after 3 losses or a 5% equity dip',
  maxTrades: 3,
  frequency: '1-2 per month',
  order: 1,
};

const tier = {
  name: 'Growth One',
  style: 'balanced',
  summary: 'Steady growth with measured risk.',
  profitFactor: 'Above 1.8',
  winRate: 'Above 55%',
  drawdown: 'About 20-25%',
  order: 2,
};

const valid: [string, Schema, unknown][] = [
  ['page with hero, ctas and sections', pageSchema, page],
  [
    'page with only the required fields',
    pageSchema,
    { title: page.title, description: page.description, heading: 'X' },
  ],
  ['section without id or items', sectionSchema, { heading: 'Our story' }],
  ['cta going back in history', ctaSchema, { label: 'Go Back', href: '/', action: 'back' }],
  ['cta to a mail address', ctaSchema, { label: 'Write to us', href: 'mailto:help@example.com' }],
  ['item without icon', itemSchema, { title: 'Entry points' }],
  ['site navigation', siteSchema, site],
  ['labels', labelsSchema, { strings: { stopLoss: 'Stop Loss', tp: 'TP' } }],
  ['feature or value card', cardSchema, card],
  ['signal', signalSchema, signal],
  ['signal on a yen pair', signalSchema, { ...signal, pair: 'USD/JPY', entry: '149.500', status: 'Active' }],
  ['result', resultSchema, result],
  ['band', bandSchema, band],
  ['tier without rule', tierSchema, tier],
  ['tier with rule', tierSchema, { ...tier, rule: 'Trading pauses at 5-10% losses' }],
];

describe.each(valid)('%s: a valid sample', (_name, schema, sample) => {
  it('is accepted', () => {
    const parsed = schema.safeParse(sample);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.success).toBe(true);
  });
});

const invalid: [string, Schema, unknown, (string | number)[], RegExp?][] = [
  // pages
  ['page without title', pageSchema, without(page, 'title'), ['title']],
  ['page without heading', pageSchema, without(page, 'heading'), ['heading']],
  ['page with a blank heading', pageSchema, { ...page, heading: '   ' }, ['heading']],
  ['page description too short', pageSchema, { ...page, description: 'Signals.' }, ['description'], /at least 50/],
  ['page description too long', pageSchema, { ...page, description: 'x'.repeat(161) }, ['description'], /at most 160/],
  ['page ctas not a list', pageSchema, { ...page, ctas: page.ctas[0] }, ['ctas']],
  ['page stats as text', pageSchema, { ...page, hero: { ...page.hero, stats: 'High Win Rate' } }, ['hero', 'stats']],
  [
    'page highlight without value',
    pageSchema,
    { ...page, hero: { ...page.hero, highlight: { label: 'Daily profit' } } },
    ['hero', 'highlight', 'value'],
  ],
  ['page with an unknown field', pageSchema, { ...page, subtitle: 'x' }, [], /subtitle/],
  ['page title as number', pageSchema, { ...page, title: 42 }, ['title']],
  ['cta without label', ctaSchema, { href: '/signals' }, ['label']],
  ['cta href not a path', ctaSchema, { label: 'Signals', href: 'signals' }, ['href'], /must start with/],
  ['cta variant', ctaSchema, { label: 'Go', href: '/', variant: 'link' }, ['variant']],
  ['cta action', ctaSchema, { label: 'Go', href: '/', action: 'open' }, ['action']],
  [
    'cta inside a page',
    pageSchema,
    { ...page, ctas: [page.ctas[0], { ...page.ctas[1], action: 'modal' }] },
    ['ctas', 1, 'action'],
  ],
  ['section without heading', sectionSchema, { id: 'story' }, ['heading']],
  ['section id not kebab-case', sectionSchema, { id: 'Our Story', heading: 'Story' }, ['id'], /kebab-case/],
  ['section items as text', sectionSchema, { heading: 'Story', items: 'none' }, ['items']],
  ['item without title', itemSchema, { text: 'An exact entry price.' }, ['title']],
  ['item icon unknown', itemSchema, { title: 'Entry points', icon: 'rocket' }, ['icon']],
  ['item with an unknown field', itemSchema, { title: 'Entry points', link: '/signals' }, [], /link/],
  [
    'unknown icon inside a page section',
    pageSchema,
    { ...page, sections: [{ heading: 'A', items: [{ title: 'B', icon: 'rocket' }] }] },
    ['sections', 0, 'items', 0, 'icon'],
  ],
  // site navigation
  ['site without brand', siteSchema, without(site, 'brand'), ['brand']],
  ['site without header links', siteSchema, { ...site, headerLinks: [] }, ['headerLinks']],
  [
    'header link href not a path',
    siteSchema,
    { ...site, headerLinks: [link('Home', 'home')] },
    ['headerLinks', 0, 'href'],
    /must start with/,
  ],
  ['footer link without label', siteSchema, { ...site, footerLinks: [{ href: '/faq' }] }, ['footerLinks', 0, 'label']],
  ['site label missing', siteSchema, { ...site, labels: without(site.labels, 'quickLinks') }, ['labels', 'quickLinks']],
  ['site label as number', siteSchema, { ...site, labels: { ...site.labels, signIn: 1 } }, ['labels', 'signIn']],
  [
    'sign-up href not a path',
    siteSchema,
    { ...site, auth: { ...site.auth, signUpHref: 'auth' } },
    ['auth', 'signUpHref'],
  ],
  ['copyright without year', siteSchema, { ...site, copyright: '© SignalOne' }, ['copyright'], /\{year\}/],
  // labels
  ['labels without strings', labelsSchema, {}, ['strings']],
  ['label value empty', labelsSchema, { strings: { stopLoss: '' } }, ['strings', 'stopLoss']],
  ['label value as number', labelsSchema, { strings: { maxTrades: 3 } }, ['strings', 'maxTrades']],
  ['label key not camelCase', labelsSchema, { strings: { 'stop-loss': 'Stop Loss' } }, ['strings', 'stop-loss']],
  // feature and value cards
  ['card without text', cardSchema, without(card, 'text'), ['text']],
  ['card without order', cardSchema, without(card, 'order'), ['order']],
  ['card without icon', cardSchema, without(card, 'icon'), ['icon']],
  ['card order as text', cardSchema, { ...card, order: 'first' }, ['order']],
  ['card order negative', cardSchema, { ...card, order: -1 }, ['order']],
  ['card icon unknown', cardSchema, { ...card, icon: 'lightning' }, ['icon']],
  // signals
  ['signal without stop loss', signalSchema, without(signal, 'stopLoss'), ['stopLoss']],
  ['signal without pair', signalSchema, without(signal, 'pair'), ['pair']],
  ['signal pair without slash', signalSchema, { ...signal, pair: 'EURUSD' }, ['pair'], /EUR\/USD/],
  ['signal direction', signalSchema, { ...signal, direction: 'HOLD' }, ['direction']],
  ['signal status', signalSchema, { ...signal, status: 'TP2 Hit' }, ['status']],
  ['signal timeframe', signalSchema, { ...signal, time: 'H2' }, ['time']],
  ['signal entry as number', signalSchema, { ...signal, entry: 1.0845 }, ['entry']],
  ['signal entry not a price', signalSchema, { ...signal, entry: 'market' }, ['entry'], /price/],
  [
    'signal with two take-profit levels',
    signalSchema,
    { ...signal, takeProfit: signal.takeProfit.slice(0, 2) },
    ['takeProfit'],
  ],
  [
    'signal take-profit not a price',
    signalSchema,
    { ...signal, takeProfit: ['1.08650', 'soon', '1.09050'] },
    ['takeProfit', 1],
  ],
  ['signal risk-reward', signalSchema, { ...signal, riskReward: '3:1' }, ['riskReward'], /1:3/],
  // results
  ['result without pips', resultSchema, without(result, 'pips'), ['pips']],
  ['result outcome', resultSchema, { ...result, result: 'DRAW' }, ['result']],
  ['result pips as text', resultSchema, { ...result, pips: '20' }, ['pips']],
  ['result pips negative', resultSchema, { ...result, pips: -20 }, ['pips']],
  ['result timeframe', resultSchema, { ...result, timeframe: 'M3' }, ['timeframe']],
  ['result without timeframe', resultSchema, without(result, 'timeframe'), ['timeframe']],
  // bands
  ['band without win rate', bandSchema, without(band, 'winRate'), ['winRate']],
  ['band without stop rules', bandSchema, without(band, 'stopRules'), ['stopRules']],
  ['band without frequency', bandSchema, without(band, 'frequency'), ['frequency']],
  ['band style', bandSchema, { ...band, style: 'cautious' }, ['style']],
  ['band max trades as text', bandSchema, { ...band, maxTrades: 'three' }, ['maxTrades']],
  ['band max trades zero', bandSchema, { ...band, maxTrades: 0 }, ['maxTrades']],
  ['band max trades not a whole number', bandSchema, { ...band, maxTrades: 2.5 }, ['maxTrades']],
  ['band profit factor as number', bandSchema, { ...band, profitFactor: 10 }, ['profitFactor']],
  // tiers
  ['tier without drawdown', tierSchema, without(tier, 'drawdown'), ['drawdown']],
  ['tier without summary', tierSchema, without(tier, 'summary'), ['summary']],
  ['tier style', tierSchema, { ...tier, style: 'moderate' }, ['style']],
  ['tier rule empty', tierSchema, { ...tier, rule: '' }, ['rule']],
  ['tier with a band field', tierSchema, { ...tier, maxTrades: 3 }, []],
];

describe.each(invalid)('%s', (_name, schema, sample, path, message) => {
  it(`is rejected at ${path.join('.') || 'the root'}`, () => {
    const parsed = schema.safeParse(sample);
    expect(parsed.success).toBe(false);
    const issues = parsed.error?.issues ?? [];
    const atPath = issues.filter((issue) => issue.path.join('.') === path.join('.'));
    expect(atPath, JSON.stringify(issues)).not.toHaveLength(0);
    if (message) expect(atPath.map((issue) => issue.message).join(' | ')).toMatch(message);
  });
});
