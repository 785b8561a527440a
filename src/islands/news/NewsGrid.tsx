import type { NewsArticle } from '../../lib/news-answer.ts';
import { useInSlices } from './in-slices.ts';
import type { NewsLabels } from './labels.ts';
import NewsCard from './NewsCard.tsx';

interface Props {
  articles: NewsArticle[] | null;
  labels: NewsLabels;
  showThumbnail?: boolean;
  /** Placeholder cards while loading. */
  placeholders?: number;
}

const grid = 'grid list-none gap-6 p-0 sm:grid-cols-2 lg:grid-cols-3';

/**
 * One listener for every picture of the grid: `error` does not bubble, so it is caught in the capture phase,
 * and the picture is marked `data-failed` (hidden by CSS inside its reserved box). No state per picture,
 * no re-render, no layout shift.
 */
function markFailedPictures(list: HTMLUListElement | null): void {
  list?.addEventListener(
    'error',
    (event) => {
      if (event.target instanceof HTMLImageElement) event.target.dataset.failed = '';
    },
    true,
  );
}

/**
 * Placeholder cards while `articles` is null, then the cards (a slice per task: ./in-slices.ts), or the empty
 * message.
 */
export default function NewsGrid({ articles, labels, showThumbnail = false, placeholders = 9 }: Props) {
  const shown = useInSlices(articles);
  if (articles === null) {
    return (
      <div>
        <p role="status" className="sr-only">
          {labels.loading}
        </p>
        <ul className={grid} aria-hidden="true" data-testid="news-skeletons">
          {Array.from({ length: placeholders }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders never reorder
            <li key={i} className="animate-pulse-late overflow-hidden rounded-2xl border border-navy-700 bg-navy-900">
              {showThumbnail && <div className="aspect-video bg-navy-800" />}
              <div className="space-y-3 p-5">
                <div className="h-5 w-1/3 rounded bg-navy-800" />
                <div className="h-5 w-5/6 rounded bg-navy-800" />
                <div className="h-4 w-full rounded bg-navy-800" />
                <div className="h-4 w-2/3 rounded bg-navy-800" />
              </div>
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (articles.length === 0) {
    return (
      <p role="status" className="rounded-2xl border border-navy-700 bg-navy-900 p-8 text-center text-muted">
        {labels.empty}
      </p>
    );
  }
  const now = new Date();
  return (
    <ul className={grid} ref={markFailedPictures}>
      {shown?.map((article) => (
        <NewsCard key={article.link} article={article} labels={labels} showThumbnail={showThumbnail} now={now} />
      ))}
    </ul>
  );
}
