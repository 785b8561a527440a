// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import InvestingNews, { FAILURE_TOAST_MS } from '../../src/islands/InvestingNews.tsx';
import NewsFeed from '../../src/islands/NewsFeed.tsx';
import { SLICE } from '../../src/islands/news/in-slices.ts';
import type { NewsLabels } from '../../src/islands/news/labels.ts';
import NewsCard from '../../src/islands/news/NewsCard.tsx';
import NewsGrid from '../../src/islands/news/NewsGrid.tsx';
import { $toasts } from '../../src/stores/toasts.ts';

const labels: NewsLabels = {
  empty: 'No news articles available. Please try refreshing.',
  loadFailed: 'Failed to load news. Please try again.',
  loading: 'Loading news...',
  investingHeading: 'Latest Investing News',
  refresh: 'Refresh',
  lastUpdated: 'Last updated:',
  readMore: 'Read More',
  newTab: '(opens in a new tab)',
  positive: 'Positive sentiment',
  negative: 'Negative sentiment',
  neutral: 'Neutral sentiment',
  justNow: 'Just now',
  hoursAgo: '{n}h ago',
  dayAgo: '1 day ago',
};

const now = new Date('2026-11-22T12:00:00Z');
const article = {
  title: 'Stocks rally',
  description: 'Shares rose.',
  link: 'https://a.example/1',
  pubDate: new Date('2026-11-22T09:30:00Z'),
  source: 'Fixture',
  sentiment: 'negative' as const,
  thumbnail: 'https://img.example/1.png',
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  $toasts.set([]);
});

describe('NewsCard', () => {
  test('source, sentiment with its accessible name, relative time, title, description, Read More in a new tab', () => {
    render(
      <ul>
        <NewsCard article={article} labels={labels} now={now} showThumbnail />
      </ul>,
    );
    expect(screen.getByText('Fixture')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Negative sentiment' }).dataset.sentiment).toBe('negative');
    expect(screen.getByText('2h ago').getAttribute('datetime')).toBe('2026-11-22T09:30:00.000Z');
    expect(screen.getByRole('heading', { level: 3 }).textContent).toBe('Stocks rally');
    const link = screen.getByRole('link');
    expect(link.getAttribute('href')).toBe('https://a.example/1');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.textContent).toBe('Read More: Stocks rally (opens in a new tab)');
  });

  test('a picture that fails to load is marked for CSS to hide, inside its reserved box, with no re-render', () => {
    const { container } = render(<NewsGrid articles={[article]} labels={labels} showThumbnail />);
    const img = container.querySelector('img');
    expect(img?.getAttribute('src')).toBe('https://img.example/1.png');
    expect(img?.parentElement?.className).toContain('aspect-video');
    fireEvent.error(img as HTMLImageElement);
    // The same element, still in its frame, marked: `data-failed:invisible` hides it.
    expect(container.querySelector('img')).toBe(img);
    expect(img?.hasAttribute('data-failed')).toBe(true);
    expect(img?.className).toContain('data-failed:invisible');
  });

  test('the cards arrive a slice per task, in order, and a new list starts again from one slice', async () => {
    const stories = (prefix: string) =>
      Array.from({ length: 3 * SLICE + 1 }, (_, i) => ({
        ...article,
        link: `https://a.example/${prefix}${i}`,
        title: `${prefix} ${i}`,
      }));
    const titles = () => screen.queryAllByRole('heading', { level: 3 }).map((heading) => heading.textContent);
    const first = stories('first');
    const { rerender } = render(<NewsGrid articles={first} labels={labels} />);
    expect(titles()).toEqual(first.slice(0, SLICE).map((a) => a.title));
    await waitFor(() => expect(titles()).toEqual(first.map((a) => a.title)));

    const second = stories('second');
    rerender(<NewsGrid articles={second} labels={labels} />);
    expect(titles()).toEqual(second.slice(0, SLICE).map((a) => a.title));
    await waitFor(() => expect(titles()).toEqual(second.map((a) => a.title)));
  });

  test('HTML in a title is shown as text, never inserted as markup', () => {
    const { container } = render(
      <ul>
        <NewsCard article={{ ...article, title: '<img src=x onerror=alert(1)>' }} labels={labels} now={now} />
      </ul>,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('heading').textContent).toBe('<img src=x onerror=alert(1)>');
  });
});

describe('islands', () => {
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  test('InvestingNews: a failed load shows the empty message and a destructive toast for 3 seconds', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('down', { status: 503 })),
    );
    render(<InvestingNews labels={labels} />);
    expect(await screen.findByText(labels.empty)).toBeTruthy();
    expect($toasts.get()).toEqual([
      expect.objectContaining({ title: labels.loadFailed, variant: 'destructive', duration: FAILURE_TOAST_MS }),
    ]);
    expect(FAILURE_TOAST_MS).toBe(3000);
    expect((screen.getByRole('button', { name: 'Refresh' }) as HTMLButtonElement).disabled).toBe(false);
  });

  test('NewsFeed: a failed load shows the empty message without a toast', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    render(<NewsFeed labels={labels} />);
    expect(await screen.findByText(labels.empty)).toBeTruthy();
    expect($toasts.get()).toEqual([]);
  });

  test('InvestingNews: calls the news function with a plain GET (no preflight), then shows the articles and the time', async () => {
    const fetchMock = vi.fn(
      async (_url: string, _init?: RequestInit) =>
        new Response(
          JSON.stringify({
            articles: [{ ...article, pubDate: article.pubDate.toISOString(), ragStatus: 'positive' }],
            updatedAt: '2026-11-22T10:00:00.000Z',
          }),
        ),
    );
    vi.stubGlobal('fetch', fetchMock);
    render(<InvestingNews labels={labels} />);
    expect(await screen.findByText('Stocks rally')).toBeTruthy();
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toMatch(/\/functions\/v1\/news\?feed=investing$/);
    // No header a CORS preflight would be needed for.
    expect([...new Headers(init?.headers).keys()]).toEqual([]);
    expect(screen.getByText('Last updated:', { exact: false })).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    });
    expect(fetchMock.mock.calls[1][1]?.cache).toBe('reload');
  });
});
