import { useEffect, useState } from 'react';
import type { NewsArticle } from '../lib/news-answer.ts';
import type { NewsLabels } from './news/labels.ts';
import { loadNews } from './news/load-news.ts';
import NewsGrid from './news/NewsGrid.tsx';

interface Props {
  labels: NewsLabels;
}

/** The combined market news feed (/news, /trading-ideas): skeleton cards, then articles or the empty message. */
export default function NewsFeed({ labels }: Props) {
  const [articles, setArticles] = useState<NewsArticle[] | null>(null);

  useEffect(() => {
    let current = true;
    loadNews('combined')
      .then((answer) => current && setArticles(answer.articles))
      .catch((err) => {
        // A failed load reads as no news: the empty message invites a refresh.
        console.error('news feed:', err);
        if (current) setArticles([]);
      });
    return () => {
      current = false;
    };
  }, []);

  return <NewsGrid articles={articles} labels={labels} />;
}
