import { describe, expect, test } from 'vitest';
import type { Article } from '../../../supabase/functions/news/articles.ts';
import { withWorkingPictures } from '../../../supabase/functions/news/news.ts';

const article = (n: number, thumbnail?: string): Article => ({
  title: `Story ${n}`,
  description: '',
  link: `https://news.example/${n}`,
  pubDate: null,
  source: 'Fixture',
  ragStatus: 'neutral',
  ...(thumbnail ? { thumbnail } : {}),
});

describe('withWorkingPictures', () => {
  test('leaves out pictures that answer an error or cannot be reached; keeps the rest, checked with HEAD', async () => {
    const methods: string[] = [];
    const fetcher = async (url: string, init?: RequestInit): Promise<Response> => {
      methods.push(init?.method ?? 'GET');
      if (url.endsWith('/gone.png')) return new Response(null, { status: 404 });
      if (url.endsWith('/refused.png')) throw new TypeError('fetch failed');
      if (url.endsWith('/no-head.png')) return new Response(null, { status: 405 });
      if (url.endsWith('/slow.png')) {
        return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
      }
      return new Response(null, { status: 200, headers: { 'Content-Type': 'image/png' } });
    };
    const pics = ['ok.png', 'gone.png', 'refused.png', 'no-head.png', 'slow.png'].map(
      (f) => `https://img.example/${f}`,
    );
    const articles = [...pics.map((p, i) => article(i, p)), article(9)];
    const checked = await withWorkingPictures(articles, fetcher, 50);
    expect(checked.map((a) => a.thumbnail)).toEqual([pics[0], undefined, undefined, pics[3], pics[4], undefined]);
    expect(checked[1]).not.toHaveProperty('thumbnail');
    expect(checked.map((a) => a.title)).toEqual(articles.map((a) => a.title));
    expect(methods).toEqual(['HEAD', 'HEAD', 'HEAD', 'HEAD', 'HEAD']);
  });
});
