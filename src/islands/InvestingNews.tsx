import { useCallback, useEffect, useState } from 'react';
import type { NewsArticle } from '../lib/news-answer.ts';
import { localTime } from '../lib/relative-time.ts';
import { toast } from '../stores/toasts.ts';
import type { NewsLabels } from './news/labels.ts';
import { loadNews } from './news/load-news.ts';
import NewsGrid from './news/NewsGrid.tsx';

interface Props {
  labels: NewsLabels;
}

/** How long the load-failure toast stays. */
export const FAILURE_TOAST_MS = 3000;

/** The investing feed: headline, Refresh, last-updated time, 9 placeholders while loading, cards with pictures. */
export default function InvestingNews({ labels }: Props) {
  const [articles, setArticles] = useState<NewsArticle[] | null>(null);
  const [loading, setLoading] = useState(true);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  // The icon spins at once for a Refresh the reader pressed; on the page's own first load, only if it takes 1 s.
  const [spin, setSpin] = useState('animate-spin-late');

  const load = useCallback(
    async (reload: boolean) => {
      setLoading(true);
      setSpin(reload ? 'animate-spin' : 'animate-spin-late');
      setArticles(null);
      const failed = () => {
        setArticles([]);
        setLoading(false);
        toast({ title: labels.loadFailed, variant: 'destructive', duration: FAILURE_TOAST_MS });
      };
      try {
        const answer = await loadNews('investing', reload);
        // The function answered, but could not read the investing feed: the same failure for the reader.
        if (answer.articles.length === 0 && answer.failedFeeds > 0) {
          console.warn(`investing news: ${answer.failedFeeds} feed(s) could not be read`);
          failed();
          return;
        }
        setArticles(answer.articles);
        setUpdatedAt(answer.updatedAt);
        setLoading(false);
      } catch (err) {
        console.error('investing news:', err);
        failed();
      }
    },
    [labels.loadFailed],
  );

  useEffect(() => {
    load(false);
  }, [load]);

  return (
    <section aria-labelledby="investing-heading">
      <div className="mb-8 flex flex-wrap items-center justify-between gap-4">
        <div>
          <h2 id="investing-heading" className="text-2xl font-bold sm:text-3xl">
            {labels.investingHeading}
          </h2>
          <p className="mt-1 min-h-6 text-sm text-muted" data-testid="last-updated">
            {updatedAt && (
              <>
                {labels.lastUpdated} <time dateTime={updatedAt.toISOString()}>{localTime(updatedAt)}</time>
              </>
            )}
          </p>
        </div>
        <button
          type="button"
          onClick={() => load(true)}
          disabled={loading}
          className="inline-flex items-center gap-2 rounded-lg border border-accent/60 px-4 py-2 font-semibold text-accent hover:bg-accent/10 disabled:cursor-not-allowed disabled:opacity-60"
        >
          <svg
            viewBox="0 0 24 24"
            className={`size-4 ${loading ? spin : ''}`}
            fill="none"
            stroke="currentColor"
            strokeWidth={2}
            aria-hidden="true"
          >
            <path d="M21 12a9 9 0 1 1-3-6.7L21 8M21 3v5h-5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          {labels.refresh}
        </button>
      </div>
      <NewsGrid articles={articles} labels={labels} showThumbnail placeholders={9} />
    </section>
  );
}
