import { describe, expect, it } from "vitest";
import { createLoginThrottle, type LoginAttempt } from "./login-throttle";

function setup() {
  const clock = { t: 1_000_000 };
  const throttle = createLoginThrottle({ maxFailures: 5, baseLockMs: 60_000, maxLockMs: 300_000, forgetMs: 900_000, now: () => clock.t });
  const attempt = (key = "1.2.3.4") => {
    const got = throttle.reserve(key);
    return "retryAfterMs" in got ? got.retryAfterMs : got;
  };
  return { clock, attempt };
}

const reserved = (a: LoginAttempt | number) => {
  if (typeof a === "number") throw new Error(`refused for ${a} ms`);
  return a;
};

describe("login throttle", () => {
  it("lets five attempts be in flight at once, refuses the sixth, per key", () => {
    const { attempt } = setup();
    const five = Array.from({ length: 5 }, () => reserved(attempt()));
    expect(attempt()).toBe(1000);
    expect(typeof attempt("5.6.7.8")).toBe("object");
    five[0]!.dropped();
    expect(typeof attempt()).toBe("object");
  });

  it("locks after five failures, doubling with each failure after, up to the cap", () => {
    const { clock, attempt } = setup();
    for (let i = 0; i < 5; i++) reserved(attempt()).failed();
    expect(attempt()).toBe(60_000);
    for (const lock of [120_000, 240_000, 300_000, 300_000]) {
      clock.t += 60_000 * 10;
      const one = reserved(attempt());
      expect(attempt()).toBe(1000); // one at a time once locked
      one.failed();
      expect(attempt()).toBe(lock);
    }
  });

  it("a correct password does not erase the failures of guesses beside it", () => {
    const { attempt } = setup();
    const guesses = Array.from({ length: 4 }, () => reserved(attempt()));
    const right = reserved(attempt());
    for (const g of guesses.slice(0, 2)) g.failed();
    right.passed();
    for (const g of guesses.slice(2)) g.failed();
    reserved(attempt()).failed();
    expect(attempt()).toBe(60_000);
  });

  it("forgets a streak after a quiet spell", () => {
    const { clock, attempt } = setup();
    for (let i = 0; i < 5; i++) reserved(attempt()).failed();
    clock.t += 900_001;
    for (let i = 0; i < 5; i++) reserved(attempt()).failed();
    expect(attempt()).toBe(60_000);
  });
});
