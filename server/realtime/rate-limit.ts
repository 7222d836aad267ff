/**
 * Token buckets: `burst` commands at once, refilled at `perSecond`. A flood is refused
 * with a clear error while everyone else is served.
 */
export interface RateLimit {
  burst: number;
  perSecond: number;
}

/** One bucket, for one connection. */
export function createRateLimiter(options: RateLimit, now: () => number = Date.now) {
  let tokens = options.burst;
  let last = now();
  return {
    take(): boolean {
      const t = now();
      tokens = Math.min(options.burst, tokens + ((t - last) / 1000) * options.perSecond);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

/**
 * One bucket per key (a person): shared by all of that person's connections, so opening
 * more sockets does not multiply the budget, and it outlives them, so reconnecting does
 * not refill it. Buckets that have refilled completely hold no information and are
 * dropped once there are many, which bounds the map by the number of recent flooders.
 */
export function createKeyedRateLimiter(options: RateLimit, now: () => number = Date.now, keep = 1_000) {
  const buckets = new Map<string, { tokens: number; last: number }>();
  const refilled = (bucket: { tokens: number; last: number }, t: number) =>
    Math.min(options.burst, bucket.tokens + ((t - bucket.last) / 1000) * options.perSecond);
  const prune = (t: number) => {
    for (const [key, bucket] of buckets) if (refilled(bucket, t) >= options.burst) buckets.delete(key);
  };
  return {
    take(key: string): boolean {
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: options.burst, last: t };
      bucket.tokens = refilled(bucket, t);
      bucket.last = t;
      if (!buckets.has(key)) {
        if (buckets.size >= keep) prune(t);
        buckets.set(key, bucket);
      }
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}
