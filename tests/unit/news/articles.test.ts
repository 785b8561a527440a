import { describe, expect, test } from 'vitest';
import { toArticles } from '../../../supabase/functions/news/articles.ts';
import { RULES } from '../../../supabase/functions/news/feeds.ts';
import { type FeedItem, parseFeed } from '../../../supabase/functions/news/parse.ts';
import { fixture } from './fixtures.ts';

const combinedItems = [
  ...parseFeed(fixture('business.xml'), 'https://business.example.com/rss'),
  ...parseFeed(fixture('markets.atom'), 'https://markets.example.com/feed.atom'),
  ...parseFeed(fixture('headlines.xml'), 'https://headlines.example.com/rss'),
];

const item = (n: number, extra: Partial<FeedItem> = {}): FeedItem => ({
  title: `Item ${n}`,
  link: `https://a.example/${n}`,
  published: Date.UTC(2026, 0, n),
  description: `Description ${n}`,
  source: 'A',
  ...extra,
});

describe('combined feed', () => {
  const articles = toArticles(combinedItems, RULES.combined);

  test('capped at 15, newest first', () => {
    expect(articles).toHaveLength(15);
    const times = articles.map((a) => Date.parse(a.pubDate ?? ''));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(articles[0].title).toBe('Stocks rally as markets gain & profits surge');
  });

  test('items without a title or an http(s) link are dropped', () => {
    expect(articles.map((a) => a.link)).not.toContain('https://business.example.com/untitled');
    expect(articles.map((a) => a.title)).not.toContain('Script link is dropped');
  });

  test('one article per link: the newer copy of a story in two feeds is kept', () => {
    const shared = articles.filter((a) => a.link.startsWith('https://shared.example.com/story'));
    expect(shared).toHaveLength(1);
    expect(shared[0].description).toBe('Told by the business feed.');
  });

  test('descriptions: tags stripped, entities decoded, scripts gone', () => {
    const rally = articles[0];
    expect(rally.description).toBe('Shares rose sharply on Wall Street & in Europe.');
    const pound = articles.find((a) => a.link.endsWith('/pound-slide'));
    expect(pound?.title).toBe('Pound & euro slide as recession fears deepen');
    expect(pound?.description).toBe('Sterling fell — again … on weak data.');
    const dollar = articles.find((a) => a.link.endsWith('/dollar-climbs'));
    expect(dollar?.title).toBe('Dollar climbs to a record high');
    expect(dollar?.description).toBe('The summary wins over the content – always.');
  });

  test('a long description is cut to 200 characters plus an ellipsis; a short one has none', () => {
    const oil = articles.find((a) => a.link.endsWith('/oil-steady'));
    expect(oil?.description.endsWith('...')).toBe(true);
    expect(oil?.description.length).toBeLessThanOrEqual(203);
    expect(oil?.description.length).toBeGreaterThan(190);
    expect(articles[0].description.endsWith('...')).toBe(false);
  });

  test('sentiment, source and thumbnail per article', () => {
    expect(articles[0]).toMatchObject({ ragStatus: 'positive', source: 'Fixture Business' });
    expect(articles[0].thumbnail).toMatch(/thumb-thumbnail\.png$/);
    expect(articles.find((a) => a.link.endsWith('/pound-slide'))?.ragStatus).toBe('negative');
    expect(articles.find((a) => a.link.endsWith('/gold-steady'))?.ragStatus).toBe('neutral');
    expect(articles.find((a) => a.link.endsWith('/no-picture'))).not.toHaveProperty('thumbnail');
  });
});

describe('investing feed', () => {
  const articles = toArticles(
    parseFeed(fixture('investing.xml'), 'https://investing.example.com/rss'),
    RULES.investing,
  );

  test('capped at 20, descriptions cut at 300', () => {
    expect(articles).toHaveLength(20);
    const cut = articles.filter((a) => a.description.endsWith('...'));
    expect(cut).toHaveLength(3);
    for (const a of cut) expect(a.description.length).toBeLessThanOrEqual(303);
    for (const a of cut) expect(a.description.length).toBeGreaterThan(290);
  });
});

describe('ordering and edge cases', () => {
  test('undated items come after dated ones', () => {
    const out = toArticles([item(1, { published: undefined }), item(2), item(3)], {
      descriptionLength: 200,
      limit: 10,
    });
    expect(out.map((a) => a.title)).toEqual(['Item 3', 'Item 2', 'Item 1']);
    expect(out[2].pubDate).toBeNull();
  });

  test('links differing only by #fragment, trailing slash or host case are one article', () => {
    const out = toArticles(
      [
        item(1, { link: 'https://A.example/story/' }),
        item(2, { link: 'https://a.example/story#x' }),
        item(3, { link: 'https://a.example/story' }),
      ],
      { descriptionLength: 200, limit: 10 },
    );
    expect(out.map((a) => a.title)).toEqual(['Item 3']);
  });

  test('a title made only of tags is no title', () => {
    expect(toArticles([item(1, { title: '<b> </b>' })], { descriptionLength: 200, limit: 10 })).toEqual([]);
  });

  test('ISO dates in the answer', () => {
    expect(toArticles([item(5)], { descriptionLength: 200, limit: 10 })[0].pubDate).toBe('2026-01-05T00:00:00.000Z');
  });
});
