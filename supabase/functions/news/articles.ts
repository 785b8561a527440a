// Raw feed items to the articles the site shows: clean text, cut descriptions, sentiment, newest first, capped.
import type { FeedItem } from './parse.ts';
import { type RagStatus, sentimentOf } from './sentiment.ts';
import { plainText, truncate } from './text.ts';

export interface Article {
  title: string;
  description: string;
  link: string;
  /** ISO 8601; null when the feed gives no readable date. */
  pubDate: string | null;
  source: string;
  ragStatus: RagStatus;
  thumbnail?: string;
}

export interface ArticleRules {
  /** Characters of description kept before the ellipsis. */
  descriptionLength: number;
  /** Articles in the answer. */
  limit: number;
}

/** Two spellings of one address (host case, a #fragment) count as the same article. */
function linkKey(link: string): string {
  const url = new URL(link);
  url.hash = '';
  return url.href.replace(/\/$/, '');
}

/**
 * Items from every feed of one answer: items without a title or an http(s) link are dropped, one article per
 * link (the newest copy), newest first (undated last), at most `limit`.
 */
export function toArticles(items: FeedItem[], rules: ArticleRules): Article[] {
  const prepared = items
    .map((item) => ({ item, title: plainText(item.title), text: plainText(item.description) }))
    .filter(({ item, title }) => title !== '' && item.link !== '')
    .sort((a, b) => (b.item.published ?? -Infinity) - (a.item.published ?? -Infinity));

  const seen = new Set<string>();
  const articles: Article[] = [];
  for (const { item, title, text } of prepared) {
    const key = linkKey(item.link);
    if (seen.has(key)) continue;
    seen.add(key);
    const article: Article = {
      title,
      description: truncate(text, rules.descriptionLength),
      link: item.link,
      pubDate: item.published === undefined ? null : new Date(item.published).toISOString(),
      source: plainText(item.source),
      ragStatus: sentimentOf(`${title} ${text}`),
    };
    if (item.thumbnail) article.thumbnail = item.thumbnail;
    articles.push(article);
    if (articles.length === rules.limit) break;
  }
  return articles;
}
