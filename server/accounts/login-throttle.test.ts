import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLoginThrottle, createWindowThrottle, type LoginAttempt, type Throttle } from "./login-throttle";

// The memory store keeps time with Date and timers: faked, the windows pass at once.
beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function setup(throttle: Throttle = createLoginThrottle({ maxFailures: 5, baseLockMs: 60_000, maxLockMs: 300_000, forgetMs: 900_000 })) {
  const attempt = async (key = "1.2.3.4") => {
    const got = await throttle.reserve(key);
    return "retryAfterMs" in got ? got.retryAfterMs : got;
  };
  const reserved = async (key?: string) => {
    const got = await attempt(key);
    if (typeof got === "number") throw new Error(`refused for ${got} ms`);
    return got;
  };
  return { attempt, reserved };
}

describe("login throttle", () => {
  it("lets five attempts be in flight at once, refuses the sixth, per key", async () => {
    const { attempt, reserved } = setup();
    const five: LoginAttempt[] = [];
    for (let i = 0; i < 5; i++) five.push(await reserved());
    expect(await attempt()).toBe(1000);
    expect(typeof (await attempt("5.6.7.8"))).toBe("object");
    await five[0]!.dropped();
    expect(typeof (await attempt())).toBe("object");
  });

  it("locks after five failures, doubling with each failure after, up to the cap", async () => {
    const { attempt, reserved } = setup();
    for (let i = 0; i < 5; i++) await (await reserved()).failed();
    expect(await attempt()).toBe(60_000);
    for (const lock of [120_000, 240_000, 300_000, 300_000]) {
      vi.advanceTimersByTime(60_000 * 10);
      const one = await reserved();
      expect(await attempt()).toBe(1000); // one at a time once locked
      await one.failed();
      expect(await attempt()).toBe(lock);
    }
  });

  it("a correct password does not erase the failures of guesses beside it", async () => {
    const { attempt, reserved } = setup();
    const guesses: LoginAttempt[] = [];
    for (let i = 0; i < 4; i++) guesses.push(await reserved());
    const right = await reserved();
    for (const g of guesses.slice(0, 2)) await g.failed();
    await right.passed();
    for (const g of guesses.slice(2)) await g.failed();
    await (await reserved()).failed();
    expect(await attempt()).toBe(60_000);
  });

  it("forgets a streak after a quiet spell", async () => {
    const { attempt, reserved } = setup();
    for (let i = 0; i < 5; i++) await (await reserved()).failed();
    vi.advanceTimersByTime(900_001);
    for (let i = 0; i < 5; i++) await (await reserved()).failed();
    expect(await attempt()).toBe(60_000);
  });
});

describe("the slow throttle over a target", () => {
  it("refuses past its failures until the window ends; what passes or is dropped gives its place back", async () => {
    const { attempt, reserved } = setup(createWindowThrottle({ name: "t", maxFailures: 3, windowMs: 3600_000 }));
    await (await reserved("acct")).passed();
    await (await reserved("acct")).dropped();
    for (let i = 0; i < 3; i++) await (await reserved("acct")).failed();
    expect(await attempt("acct")).toBe(3600_000);
    expect(typeof (await attempt("other"))).toBe("object");
    vi.advanceTimersByTime(3600_001);
    expect(typeof (await attempt("acct"))).toBe("object");
  });
});
