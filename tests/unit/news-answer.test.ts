import { describe, expect, test } from 'vitest';
import { readNewsAnswer, safeHttpUrl, sentimentOf } from '../../src/lib/news-answer.ts';

const good = {
  title: 'T',
  description: 'D',
  link: 'https://a.example/1',
  pubDate: '2026-11-22T09:00:00.000Z',
  source: 'S',
  ragStatus: 'positive',
  thumbnail: 'https://img.example/1.png',
};

describe('readNewsAnswer', () => {
  test('reads articles and updatedAt', () => {
    const answer = readNewsAnswer({ articles: [good], updatedAt: '2026-11-22T10:00:00.000Z' });
    expect(answer.updatedAt?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(answer.articles).toEqual([
      {
        title: 'T',
        description: 'D',
        link: 'https://a.example/1',
        pubDate: new Date('2026-11-22T09:00:00.000Z'),
        source: 'S',
        sentiment: 'positive',
        thumbnail: 'https://img.example/1.png',
      },
    ]);
  });

  test.each([
    ['a javascript: link', { ...good, link: 'javascript:alert(1)' }],
    ['a data: link', { ...good, link: 'data:text/html,x' }],
    ['a relative link', { ...good, link: '/x' }],
    ['no title', { ...good, title: '' }],
    ['a title that is not text', { ...good, title: 5 }],
    ['not an object', 'article'],
  ])('an article with %s is left out', (_name, bad) => {
    expect(readNewsAnswer({ articles: [bad, good] }).articles.map((a) => a.link)).toEqual(['https://a.example/1']);
  });

  test('a thumbnail that is not http(s) is dropped, the article kept', () => {
    const [a] = readNewsAnswer({ articles: [{ ...good, thumbnail: 'javascript:x' }] }).articles;
    expect(a).not.toHaveProperty('thumbnail');
  });

  test('a bad date is null', () => {
    expect(readNewsAnswer({ articles: [{ ...good, pubDate: 'soon' }] }).articles[0].pubDate).toBeNull();
  });

  test.each([[null], [{}], [{ articles: 'x' }], ['text']])('%j is not an answer', (json) => {
    expect(() => readNewsAnswer(json)).toThrow('not a news answer');
  });
});

describe('sentimentOf', () => {
  test.each([
    ['positive', 'positive'],
    ['negative', 'negative'],
    ['neutral', 'neutral'],
    ['mixed', 'neutral'],
    [undefined, 'neutral'],
  ])('%s -> %s', (value, expected) => {
    expect(sentimentOf(value)).toBe(expected);
  });
});

describe('safeHttpUrl', () => {
  test.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['http://a.example/x', 'http://a.example/x'],
    ['javascript:alert(1)', undefined],
    ['mailto:a@b.c', undefined],
    [42, undefined],
  ])('%s -> %s', (value, expected) => {
    expect(safeHttpUrl(value)).toBe(expected);
  });
});

describe('readNewsAnswer: failed feeds', () => {
  test('counts the feeds the function could not read', () => {
    const failed = { ok: 0, total: 1, failed: ['https://feeds.example/investing.xml'] };
    expect(readNewsAnswer({ articles: [], feeds: failed }).failedFeeds).toBe(1);
    expect(readNewsAnswer({ articles: [] }).failedFeeds).toBe(0);
  });
});
