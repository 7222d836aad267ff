import { RateLimiterRes } from "rate-limiter-flexible";
import { memoryLimiterStore, type LimiterStore } from "@/server/limiter-store";

/**
 * Token buckets: `burst` commands at once, refilled at `perSecond`. A flood is refused
 * with a clear error while everyone else is served.
 */
export interface RateLimit {
  burst: number;
  perSecond: number;
}

/**
 * One bucket, for one connection. A connection lives on one process, so its bucket is
 * this process's alone, kept in memory and answered at once (no store to ask).
 */
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
 * One budget per key (a person), shared by all of that person's connections, on this
 * process and (with REDIS_URL) on every other: opening more sockets, reconnecting or
 * spreading them over processes does not multiply it. rate-limiter-flexible counts in
 * fixed windows: `burst` commands per window of `burst / perSecond` seconds (at least 1),
 * the same rate as the bucket with a window's worth at once. Counts expire with their
 * window, which bounds what is kept by the number of recent senders.
 */
export function createKeyedRateLimiter(options: RateLimit, store: LimiterStore = memoryLimiterStore()) {
  const limiter = store.limiter({
    name: "person-commands",
    points: options.burst,
    durationS: Math.max(1, Math.round(options.burst / options.perSecond)),
  });
  return {
    /** False when the key has spent its budget for this window. */
    async take(key: string): Promise<boolean> {
      try {
        await limiter.consume(key);
        return true;
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return false;
        throw refusal;
      }
    },
  };
}
