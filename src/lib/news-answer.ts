// The news function's answer as the islands use it: anything malformed is left out, links are http(s) only.

export type Sentiment = 'positive' | 'negative' | 'neutral';

export interface NewsArticle {
  title: string;
  description: string;
  link: string;
  pubDate: Date | null;
  source: string;
  sentiment: Sentiment;
  thumbnail?: string;
}

export interface NewsAnswer {
  articles: NewsArticle[];
  updatedAt: Date | null;
  /** How many of the answer's feeds could not be read by the function. */
  failedFeeds: number;
}

/** `value` when it is an absolute http(s) URL, else undefined: a feed never puts another scheme in an href. */
export function safeHttpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t);
}

/** positive and negative as sent; anything else means neutral. */
export function sentimentOf(value: unknown): Sentiment {
  return value === 'positive' || value === 'negative' ? value : 'neutral';
}

function article(value: unknown): NewsArticle | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const a = value as Record<string, unknown>;
  const link = safeHttpUrl(a.link);
  if (typeof a.title !== 'string' || !a.title.trim() || !link) return undefined;
  const thumbnail = safeHttpUrl(a.thumbnail);
  return {
    title: a.title,
    description: typeof a.description === 'string' ? a.description : '',
    link,
    pubDate: date(a.pubDate),
    source: typeof a.source === 'string' ? a.source : '',
    sentiment: sentimentOf(a.ragStatus),
    ...(thumbnail ? { thumbnail } : {}),
  };
}

/** Reads a JSON answer; throws when it is not one (the caller shows its failure state). */
export function readNewsAnswer(json: unknown): NewsAnswer {
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { articles?: unknown }).articles)) {
    throw new Error('not a news answer');
  }
  const { articles, updatedAt, feeds } = json as { articles: unknown[]; updatedAt?: unknown; feeds?: unknown };
  const failed = (feeds as { failed?: unknown } | undefined)?.failed;
  return {
    articles: articles.map(article).filter((a): a is NewsArticle => a !== undefined),
    updatedAt: date(updatedAt),
    failedFeeds: Array.isArray(failed) ? failed.length : 0,
  };
}
