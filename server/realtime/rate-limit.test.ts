import { describe, expect, it } from "vitest";
import { retainedBytes } from "@/test/support/heap";
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

  it("forgets buckets that have refilled once there are many, so memory stays bounded", async () => {
    let t = 0;
    const limiter = createKeyedRateLimiter({ burst: 2, perSecond: 1 }, () => t, 100);
    // A new person every 20 ms, one command each: a bucket has refilled a second later.
    // Kept, every bucket costs about 100 bytes: 10 MB for these.
    const retained = await retainedBytes(() => {
      for (let i = 0; i < 100_000; i++, t += 20) limiter.take(`person-${i}`);
    });
    expect(retained).toBeLessThan(2_000_000);
  });

  it("does not forget a bucket that has not refilled: a flooder gets no fresh budget", () => {
    let t = 0;
    const limiter = createKeyedRateLimiter({ burst: 2, perSecond: 1 }, () => t, 3);
    limiter.take("flooder");
    limiter.take("flooder");
    for (const key of ["a", "b"]) limiter.take(key);
    t = 1_500; // a and b have refilled (1 token back each), the flooder has not
    limiter.take("c"); // the fourth key: the refilled ones are dropped
    expect(limiter.take("flooder")).toBe(true);
    expect(limiter.take("flooder")).toBe(false);
  });
});
