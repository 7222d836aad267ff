import { describe, expect, it } from "vitest";
import { createKeyedRateLimiter, createRateLimiter } from "./rate-limit";

describe("a person's command budget", () => {
  it("is spent by every use of the same key, and is back after its window", async () => {
    const limiter = createKeyedRateLimiter({ burst: 3, perSecond: 3 });
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await limiter.take("ann"));
    expect(takes).toEqual([true, true, true, false]);
    expect(await limiter.take("bob")).toBe(true);
    // A one-second window: waited for, not slept.
    await expect.poll(() => limiter.take("ann"), { timeout: 5_000, interval: 100 }).toBe(true);
  });
});

describe("a connection's bucket", () => {
  it("holds a burst, then refills at its rate", () => {
    let t = 0;
    const limiter = createRateLimiter({ burst: 3, perSecond: 2 }, () => t);
    expect([1, 2, 3, 4].map(() => limiter.take())).toEqual([true, true, true, false]);
    t = 500;
    expect([limiter.take(), limiter.take()]).toEqual([true, false]);
  });
});
