// Which feeds make up each answer, and the rules of each: from NEWS_FEED_URLS and INVESTING_FEED_URL.
import { z } from 'zod';
import type { Env } from '../_shared/env.ts';
import type { ArticleRules } from './articles.ts';

/** The `feed` query parameter: exactly one of the two feed sets. */
export const feedNameSchema = z.enum(['combined', 'investing']);
export type FeedName = z.infer<typeof feedNameSchema>;

export interface FeedSet extends ArticleRules {
  urls: string[];
}

/** Public feeds used when the environment names none: business, market pulse and finance headlines. */
export const DEFAULT_COMBINED_FEEDS = [
  'https://feeds.bbci.co.uk/news/business/rss.xml',
  'https://feeds.content.dowjones.io/public/rss/mw_marketpulse',
  'https://finance.yahoo.com/news/rssindex',
];
/** Public investing feed used when INVESTING_FEED_URL is not set. */
export const DEFAULT_INVESTING_FEED = 'https://www.investing.com/rss/news.rss';

/** Descriptions are cut to 200 characters and 15 articles are shown on the combined feed; 300 and 20 on investing. */
export const RULES: Record<FeedName, ArticleRules> = {
  combined: { descriptionLength: 200, limit: 15 },
  investing: { descriptionLength: 300, limit: 20 },
};

const splitUrls = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);

export function feedSets(env: Env): Record<FeedName, FeedSet> {
  const combined = splitUrls(env.get('NEWS_FEED_URLS'));
  const investing = splitUrls(env.get('INVESTING_FEED_URL'));
  return {
    combined: { ...RULES.combined, urls: combined.length ? combined : DEFAULT_COMBINED_FEEDS },
    investing: { ...RULES.investing, urls: investing.length ? investing : [DEFAULT_INVESTING_FEED] },
  };
}

export function isFeedName(value: string | null): value is FeedName {
  return feedNameSchema.safeParse(value).success;
}
