// A per-key cache in the function's memory: fresh answers served as they are, stale ones served while one
// refresh runs, and concurrent misses share one load, so upstream sees one fetch however many callers wait.
// A caller may ask to revalidate (the Refresh button): it waits for a new load, unless the answer is younger
// than minAgeMs, so a storm of such requests costs upstream at most one fetch per key per minAgeMs.

export interface CacheOptions<V> {
  /** How long an answer is fresh. */
  ttlMs: number;
  /** How long an answer judged poor (e.g. every feed failed) is fresh: it is retried sooner. */
  poorTtlMs?: number;
  isPoor?: (value: V) => boolean;
  now?: () => number;
  log?: (message: string) => void;
  /** Runs a refresh that outlives the request (EdgeRuntime.waitUntil on Supabase). */
  background?: (task: () => Promise<unknown>) => void;
  /** A revalidation is not made for an answer younger than this (default 0). */
  minAgeMs?: number;
}

interface Entry<V> {
  value?: V;
  freshUntil: number;
  /** When `value` was loaded. */
  loadedAt: number;
  refreshing?: Promise<V>;
}

export interface GetOptions {
  /** Wait for a new load instead of answering from the cache (unless the answer is younger than minAgeMs). */
  revalidate?: boolean;
}

export interface StaleWhileRevalidateCache<V> {
  /** The cached answer for `key`: fresh, or stale while a refresh runs, or the one shared first load. */
  get(key: string, options?: GetOptions): Promise<V>;
}

export function createCache<V>(
  load: (key: string) => Promise<V>,
  options: CacheOptions<V>,
): StaleWhileRevalidateCache<V> {
  const { ttlMs, poorTtlMs = ttlMs, isPoor = () => false, now = Date.now, log = console.error, minAgeMs = 0 } = options;
  const background = options.background ?? ((task) => void task().catch(() => {}));
  const entries = new Map<string, Entry<V>>();

  function refresh(key: string, entry: Entry<V>): Promise<V> {
    entry.refreshing ??= load(key)
      .then((value) => {
        entry.value = value;
        entry.loadedAt = now();
        entry.freshUntil = now() + (isPoor(value) ? poorTtlMs : ttlMs);
        return value;
      })
      .finally(() => {
        entry.refreshing = undefined;
      });
    return entry.refreshing;
  }

  return {
    get(key, { revalidate = false } = {}) {
      let entry = entries.get(key);
      if (!entry) {
        entry = { freshUntil: 0, loadedAt: 0 };
        entries.set(key, entry);
      }
      if (entry.value === undefined) return refresh(key, entry);
      // A load already running is as new as it gets; otherwise a load unless the answer is very recent.
      if (revalidate && (entry.refreshing || now() - entry.loadedAt >= minAgeMs)) return refresh(key, entry);
      if (now() >= entry.freshUntil) {
        // Stale: the caller gets the old answer now; a failed refresh is only logged.
        const e = entry;
        background(() => refresh(key, e).catch((err) => log(`cache: refresh of ${key} failed: ${String(err)}`)));
      }
      return Promise.resolve(entry.value);
    },
  };
}
