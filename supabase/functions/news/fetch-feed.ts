// One upstream feed over HTTP: a time limit, a size cap, and an error that names what went wrong.

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** 10 seconds and 2 MB per feed: a slow or huge feed is skipped, not waited for. */
export const FEED_LIMITS: FetchLimits = { timeoutMs: 10_000, maxBytes: 2 * 1024 * 1024 };

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The feed's text; rejects on a network error, a status other than 2xx, the time limit or the size cap. */
export async function fetchFeedText(
  url: string,
  limits: FetchLimits = FEED_LIMITS,
  fetcher: Fetch = fetch,
): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const res = await fetcher(url, {
    signal,
    redirect: 'follow',
    headers: {
      Accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5',
      'User-Agent': 'SignalOne-News/1.0',
    },
  });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`larger than ${limits.maxBytes} bytes`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let out = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limits.maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`larger than ${limits.maxBytes} bytes`);
    }
    out += decoder.decode(value, { stream: true });
  }
  return out + decoder.decode();
}
