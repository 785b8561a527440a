import { describe, expect, test } from 'vitest';
import { fetchFeedText } from '../../../supabase/functions/news/fetch-feed.ts';

const limits = { timeoutMs: 200, maxBytes: 1000 };

describe('fetchFeedText', () => {
  test('answers the body of a 2xx', async () => {
    expect(await fetchFeedText('u', limits, async () => new Response('<rss/>'))).toBe('<rss/>');
  });

  test('a non-2xx status rejects with the status', async () => {
    await expect(fetchFeedText('u', limits, async () => new Response('x', { status: 502 }))).rejects.toThrow(
      'HTTP 502',
    );
  });

  test('a body past the cap rejects, declared or streamed', async () => {
    const big = 'x'.repeat(1001);
    await expect(fetchFeedText('u', limits, async () => new Response(big))).rejects.toThrow('larger than 1000 bytes');
    const stream = new ReadableStream({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('y'.repeat(400)));
      },
    });
    await expect(fetchFeedText('u', limits, async () => new Response(stream))).rejects.toThrow(
      'larger than 1000 bytes',
    );
  });

  test('the time limit aborts a slow feed', async () => {
    // A feed that never answers: only the request's signal can end it, and its reason says why.
    const hang = (_url: string, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    await expect(fetchFeedText('u', limits, hang)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
