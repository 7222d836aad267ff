import { RateLimiterMemory, RateLimiterRedis, RLWrapperTimeouts, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Logger } from "@/lib/log";
import type { RedisClient } from "@/server/cluster/redis";

/**
 * Where the command budgets and login throttles keep their counts (rate-limiter-flexible):
 * in this process's memory, or with REDIS_URL in Redis, so that a flood or a guesser
 * spread over several processes meets one budget and one throttle.
 *
 * Redis away (refused, not ready, or not answering within REDIS_TIMEOUT_MS): each limiter
 * counts in this process's memory instead until Redis answers again (rate-limiter-flexible's
 * insurance limiter). The limits hold per process meanwhile (N processes: N budgets, as
 * without Redis); nothing is let through unlimited and no request waits on Redis.
 */
export type Limiter = Pick<RateLimiterAbstract, "consume" | "penalty" | "reward" | "get" | "set" | "block" | "delete">;

export interface LimiterSpec {
  /** Distinct per limiter: the prefix of its keys. */
  name: string;
  /** Points a key may spend per window. */
  points: number;
  /** The window, in whole seconds (0: a key never expires). */
  durationS: number;
}

export interface LimiterStore {
  /** Whether the counts are shared with other processes (Redis). */
  readonly shared: boolean;
  limiter(spec: LimiterSpec): Limiter;
}

/** Longest a limit waits on Redis before it counts in memory for that request. */
export const REDIS_TIMEOUT_MS = 500;
const KEY_PREFIX = "dlg:limit";

export function memoryLimiterStore(): LimiterStore {
  return {
    shared: false,
    limiter: (spec) => new RateLimiterMemory({ keyPrefix: `${KEY_PREFIX}:${spec.name}`, points: spec.points, duration: spec.durationS }),
  };
}

export function redisLimiterStore(client: RedisClient, log?: Pick<Logger, "warn">): LimiterStore {
  // One line per outage: the insurance limiter takes over silently otherwise.
  let warned = false;
  return {
    shared: true,
    limiter(spec) {
      const keyPrefix = `${KEY_PREFIX}:${spec.name}`;
      const memory = new RateLimiterMemory({ keyPrefix, points: spec.points, duration: spec.durationS });
      const redis = new RateLimiterRedis({
        storeClient: client,
        useRedisPackage: true,
        // Not ready: straight to memory, instead of queueing behind a reconnect.
        rejectIfRedisNotReady: true,
        keyPrefix,
        points: spec.points,
        duration: spec.durationS,
        insuranceLimiter: memory,
      });
      const timed = new RLWrapperTimeouts({ limiter: redis, timeoutMs: REDIS_TIMEOUT_MS, insuranceLimiter: memory });
      const warnOnce =
        <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
        (...args: A): Promise<R> => {
          if (client.isReady) warned = false;
          else if (!warned) {
            warned = true;
            log?.warn("Redis is unreachable: rate limits and login throttles count per process until it is back");
          }
          return run(...args);
        };
      return {
        consume: warnOnce(timed.consume.bind(timed)),
        penalty: warnOnce(timed.penalty.bind(timed)),
        reward: warnOnce(timed.reward.bind(timed)),
        get: warnOnce(timed.get.bind(timed)),
        set: warnOnce(timed.set.bind(timed)),
        block: warnOnce(timed.block.bind(timed)),
        delete: warnOnce(timed.delete.bind(timed)),
      };
    },
  };
}
