// In-memory rate limits ([auth.rate_limit] in config.toml): requests per IP per window, emails per hour.
// The stack is one process, so memory is the whole truth; a restart starts the windows afresh.

export class RateLimiter {
  private hits = new Map<string, number[]>();

  /** Records one event for `key` and says whether it stays within `limit` per `windowSeconds`. */
  allow(key: string, limit: number, windowSeconds: number, now = Date.now()): boolean {
    const from = now - windowSeconds * 1000;
    const list = (this.hits.get(key) ?? []).filter((t) => t > from);
    if (list.length >= limit) {
      this.hits.set(key, list);
      return false;
    }
    list.push(now);
    this.hits.set(key, list);
    if (this.hits.size > 10_000) this.sweep(now - 3600_000);
    return true;
  }

  private sweep(olderThan: number) {
    for (const [key, list] of this.hits) {
      if (!list.some((t) => t > olderThan)) this.hits.delete(key);
    }
  }
}
