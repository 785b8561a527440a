import type { NewsArticle } from '../../lib/news-answer.ts';
import { relativeTime } from '../../lib/relative-time.ts';
import type { NewsLabels } from './labels.ts';
import SentimentBadge from './SentimentBadge.tsx';

interface Props {
  article: NewsArticle;
  labels: NewsLabels;
  /** The investing feed shows each article's picture. */
  showThumbnail?: boolean;
  now: Date;
}

/**
 * One article: picture, source, sentiment, age, title, description and Read More in a new tab. The picture's
 * box is reserved by its frame; a picture that fails to load is hidden by CSS (NewsGrid marks it), so the card
 * neither moves nor re-renders.
 */
export default function NewsCard({ article, labels, showThumbnail = false, now }: Props) {
  const picture = showThumbnail && article.thumbnail;
  return (
    <li
      className="flex flex-col overflow-hidden rounded-2xl border border-navy-700 bg-navy-900 [contain-intrinsic-size:auto_30rem] [content-visibility:auto]"
      data-testid="news-card"
    >
      {picture && (
        <div className="aspect-video bg-navy-800">
          <img
            src={article.thumbnail}
            alt=""
            loading="lazy"
            decoding="async"
            referrerPolicy="no-referrer"
            width={640}
            height={360}
            className="size-full object-cover data-failed:invisible"
          />
        </div>
      )}
      <div className="flex flex-1 flex-col gap-3 p-5">
        <div className="flex items-center gap-2">
          {article.source && (
            <span className="truncate rounded-full border border-navy-600 bg-navy-800 px-3 py-0.5 text-xs font-semibold">
              {article.source}
            </span>
          )}
          <SentimentBadge sentiment={article.sentiment} label={labels[article.sentiment]} />
          {article.pubDate && (
            <time dateTime={article.pubDate.toISOString()} className="ml-auto shrink-0 text-sm text-muted">
              {relativeTime(article.pubDate, now, labels)}
            </time>
          )}
        </div>
        <h3 className="text-lg leading-snug font-semibold">{article.title}</h3>
        {article.description && <p className="text-sm text-muted">{article.description}</p>}
        <a
          href={article.link}
          target="_blank"
          rel="noopener noreferrer"
          className="mt-auto self-start rounded-lg font-semibold text-accent underline-offset-4 hover:underline"
        >
          {labels.readMore}
          <span className="sr-only">
            : {article.title} {labels.newTab}
          </span>
        </a>
      </div>
    </li>
  );
}
