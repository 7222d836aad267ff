/**
 * A token bucket per connection: `burst` commands at once, refilled at `perSecond`. A
 * flood from one socket is refused with a clear error while everyone else is served.
 */
export function createRateLimiter(options: { burst: number; perSecond: number }, now: () => number = Date.now) {
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
