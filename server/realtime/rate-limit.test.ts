import { describe, expect, it } from "vitest";
import { createKeyedRateLimiter } from "./rate-limit";

describe("a person's command budget", () => {
  it("is spent by every use of the same key and refills with time", () => {
    let t = 0;
    const limiter = createKeyedRateLimiter({ burst: 3, perSecond: 2 }, () => t);
    expect([1, 2, 3, 4].map(() => limiter.take("ann"))).toEqual([true, true, true, false]);
    expect(limiter.take("bob")).toBe(true);
    t = 500;
    expect([limiter.take("ann"), limiter.take("ann")]).toEqual([true, false]);
  });

  it("forgets only buckets that have refilled, so memory stays bounded without handing out a fresh budget", () => {
    let t = 0;
    const limiter = createKeyedRateLimiter({ burst: 2, perSecond: 1 }, () => t, 3);
    limiter.take("flooder");
    limiter.take("flooder");
    for (const key of ["a", "b"]) limiter.take(key);
    t = 1_500; // a and b have refilled (1 token back each), the flooder has not
    limiter.take("c");
    expect(limiter.size).toBe(2);
    expect(limiter.take("flooder")).toBe(true);
    expect(limiter.take("flooder")).toBe(false);
  });
});
