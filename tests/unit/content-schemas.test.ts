import { describe, expect, it } from 'vitest';
import {
  bandSchema,
  cardSchema,
  labelsSchema,
  pageSchema,
  resultSchema,
  signalSchema,
  siteSchema,
  tierSchema,
} from '../../src/content/schemas.ts';

type Schema = {
  safeParse: (data: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
};

const page = {
  title: 'Features | SignalOne',
  description: 'Real-time signals, advanced analytics and risk management: everything you need to trade.',
  heading: 'Everything you need',
  lead: 'Tools built for traders.',
  ctas: [{ label: 'Start Free Trial', href: '/auth?tab=signup', variant: 'primary' }],
  hero: { banner: '50% off', stats: ['High Win Rate'], highlight: { label: 'Daily profit', value: '+£254' } },
  sections: [{ id: 'features', heading: 'Built for traders', items: [{ title: 'Fast', text: 'Under 1s', icon: 'zap' }] }],
};

const link = (label: string, href: string) => ({ label, href });
const site = {
  brand: 'SignalOne',
  tagline: 'Signals 24/5.',
  headerLinks: [link('Home', '/')],
  footerLinks: [link('FAQ', '/faq')],
  labels: {
    skipLink: 'Skip to content',
    primaryNav: 'Main',
    footerNav: 'Footer',
    home: 'Home',
    openMenu: 'Open menu',
    closeMenu: 'Close menu',
    authLoading: 'Loading',
    signIn: 'Sign In',
    signUp: 'Sign Up',
    dashboard: 'Dashboard',
    signOut: 'Sign Out',
    signedInAs: 'Signed in as',
    quickLinks: 'Quick Links',
  },
  auth: { signInHref: '/auth?tab=signin', signUpHref: '/auth?tab=signup', dashboardHref: '/dashboard' },
  disclaimer: 'Profits shown in demos are not guaranteed.',
  copyright: '© {year} SignalOne.',
};

const signal = {
  pair: 'EUR/USD',
  direction: 'BUY',
  entry: '1.08450',
  stopLoss: '1.08250',
  takeProfit: ['1.08650', '1.08850', '1.09050'],
  status: 'TP1 Hit',
  time: 'H1',
  riskReward: '1:3',
  order: 1,
};

const result = { pair: 'GBP/JPY', result: 'LOSS', pips: 20, timeframe: 'M30', order: 2 };

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
  summary: 'Steady growth.',
  profitFactor: 'Above 1.8',
  winRate: 'Above 55%',
  drawdown: 'About 20-25%',
  order: 2,
};

const card = { title: 'Precision', text: 'Exact levels.', icon: 'crosshair', order: 1 };
const labels = { strings: { entry: 'Entry', stopLoss: 'Stop Loss' } };

const valid: [string, Schema, unknown][] = [
  ['page', pageSchema, page],
  ['page with only the required fields', pageSchema, { title: page.title, description: page.description, heading: 'Hi' }],
  ['site', siteSchema, site],
  ['labels', labelsSchema, labels],
  ['card', cardSchema, card],
  ['signal', signalSchema, signal],
  ['result', resultSchema, result],
  ['band', bandSchema, band],
  ['tier', tierSchema, tier],
  ['tier with a pause rule', tierSchema, { ...tier, rule: 'Trading pauses at 5-10% losses' }],
];

describe.each(valid)('%s: a valid sample', (_name, schema, sample) => {
  it('is accepted', () => {
    const parsed = schema.safeParse(sample);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.success).toBe(true);
  });
});

const without = (data: Record<string, unknown>, key: string) => {
  const copy = { ...data };
  delete copy[key];
  return copy;
};

// [case, schema, bad sample, path the first issue must name]
const invalid: [string, Schema, unknown, PropertyKey[]][] = [
  ['page: missing title', pageSchema, without(page, 'title'), ['title']],
  ['page: missing heading', pageSchema, without(page, 'heading'), ['heading']],
  ['page: description too short', pageSchema, { ...page, description: 'Too short.' }, ['description']],
  ['page: description too long', pageSchema, { ...page, description: 'x'.repeat(161) }, ['description']],
  ['page: title of the wrong type', pageSchema, { ...page, title: 42 }, ['title']],
  ['page: unknown key', pageSchema, { ...page, subtitle: 'extra' }, []],
  ['page: cta variant not in the enum', pageSchema, { ...page, ctas: [{ label: 'Go', href: '/', variant: 'loud' }] }, ['ctas', 0, 'variant']],
  ['page: cta href not a path or URL', pageSchema, { ...page, ctas: [{ label: 'Go', href: 'signals' }] }, ['ctas', 0, 'href']],
  ['page: cta action not in the enum', pageSchema, { ...page, ctas: [{ label: 'Go', href: '/', action: 'fly' }] }, ['ctas', 0, 'action']],
  ['page: section without heading', pageSchema, { ...page, sections: [{ id: 'a' }] }, ['sections', 0, 'heading']],
  ['page: section id not kebab-case', pageSchema, { ...page, sections: [{ id: 'My Id', heading: 'H' }] }, ['sections', 0, 'id']],
  ['page: item with an unknown icon', pageSchema, { ...page, sections: [{ heading: 'H', items: [{ title: 'T', icon: 'rocket' }] }] }, ['sections', 0, 'items', 0, 'icon']],
  ['page: unknown key in an item', pageSchema, { ...page, sections: [{ heading: 'H', items: [{ title: 'T', link: '/' }] }] }, ['sections', 0, 'items', 0]],
  ['page: hero highlight without value', pageSchema, { ...page, hero: { highlight: { label: 'Daily profit' } } }, ['hero', 'highlight', 'value']],
  ['site: missing brand', siteSchema, without(site, 'brand'), ['brand']],
  ['site: no header links', siteSchema, { ...site, headerLinks: [] }, ['headerLinks']],
  ['site: missing label', siteSchema, { ...site, labels: without(site.labels, 'openMenu') }, ['labels', 'openMenu']],
  ['site: copyright without {year}', siteSchema, { ...site, copyright: '© SignalOne' }, ['copyright']],
  ['labels: empty string', labelsSchema, { strings: { entry: '' } }, ['strings', 'entry']],
  ['card: missing icon', cardSchema, without(card, 'icon'), ['icon']],
  ['card: order of the wrong type', cardSchema, { ...card, order: 'first' }, ['order']],
  ['signal: direction not BUY or SELL', signalSchema, { ...signal, direction: 'LONG' }, ['direction']],
  ['signal: status not Active or TP1 Hit', signalSchema, { ...signal, status: 'Closed' }, ['status']],
  ['signal: missing stopLoss', signalSchema, without(signal, 'stopLoss'), ['stopLoss']],
  ['signal: two take-profit levels', signalSchema, { ...signal, takeProfit: ['1.1', '1.2'] }, ['takeProfit']],
  ['signal: price that is not a number', signalSchema, { ...signal, entry: 'soon' }, ['entry']],
  ['signal: pair without a slash', signalSchema, { ...signal, pair: 'EURUSD' }, ['pair']],
  ['signal: unknown timeframe', signalSchema, { ...signal, time: 'H2' }, ['time']],
  ['signal: risk-reward not 1:n', signalSchema, { ...signal, riskReward: '3 to 1' }, ['riskReward']],
  ['result: result not WIN or LOSS', resultSchema, { ...result, result: 'DRAW' }, ['result']],
  ['result: pips of the wrong type', resultSchema, { ...result, pips: '20' }, ['pips']],
  ['result: missing timeframe', resultSchema, without(result, 'timeframe'), ['timeframe']],
  ['band: missing winRate', bandSchema, without(band, 'winRate'), ['winRate']],
  ['band: style not in the enum', bandSchema, { ...band, style: 'reckless' }, ['style']],
  ['band: maxTrades not a whole number', bandSchema, { ...band, maxTrades: 2.5 }, ['maxTrades']],
  ['tier: missing drawdown', tierSchema, without(tier, 'drawdown'), ['drawdown']],
  ['tier: unknown key', tierSchema, { ...tier, colour: 'green' }, []],
];

describe.each(invalid)('%s', (_name, schema, sample, path) => {
  it('is rejected with the field named', () => {
    const parsed = schema.safeParse(sample);
    expect(parsed.success).toBe(false);
    const issue = parsed.error?.issues[0];
    expect(issue?.path).toEqual(path);
    expect(issue?.message).toBeTruthy();
  });
});

it('an unknown key is reported by name', () => {
  const parsed = pageSchema.safeParse({ ...page, subtitle: 'extra' });
  expect(parsed.error?.issues[0]?.message).toContain('subtitle');
});
