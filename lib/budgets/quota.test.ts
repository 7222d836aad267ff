import { describe, expect, it } from "vitest";
import { quotaOverrunOf, quotaRefusal, quotaWindows } from "./quota";

const none = { tokens: 0, usd: 0 };

describe("quotaWindows", () => {
  it("puts a moment in its UTC day and month, each resetting at the next one's start", () => {
    const w = quotaWindows(new Date("2026-12-31T23:59:30.000Z"));
    expect(w.day).toMatchObject({ key: "2026-12-31", resetsAt: new Date("2027-01-01T00:00:00.000Z") });
    expect(w.month).toMatchObject({
      key: "2026-12",
      startsAt: new Date("2026-12-01T00:00:00.000Z"),
      resetsAt: new Date("2027-01-01T00:00:00.000Z"),
    });
  });
});

describe("quotaOverrunOf", () => {
  const now = new Date("2026-12-03T14:45:00.000Z");
  it("is undefined within every quota, and without any", () => {
    expect(quotaOverrunOf({ day: { tokens: 99, usd: 0 }, month: none }, { day: { tokens: 100 } }, now)).toBeUndefined();
    expect(quotaOverrunOf({ day: { tokens: 1e9, usd: 9 }, month: none }, {}, now)).toBeUndefined();
  });

  it("names the day's quota before the month's, with when it resets", () => {
    const used = { day: { tokens: 120, usd: 0 }, month: { tokens: 5_000, usd: 0 } };
    expect(quotaOverrunOf(used, { day: { tokens: 100 }, month: { tokens: 1_000 } }, now)).toEqual({
      period: "day",
      overrun: { unit: "tokens", spent: 120, limit: 100 },
      resetsAt: new Date("2026-12-04T00:00:00.000Z"),
    });
  });
});

describe("quotaRefusal", () => {
  it("says which quota, the figure, and when it resets", () => {
    const now = new Date("2026-12-03T14:45:00.000Z");
    const over = quotaOverrunOf({ day: none, month: { tokens: 0, usd: 5.5 } }, { month: { usd: 5 } }, now)!;
    expect(quotaRefusal(over, now)).toBe(
      "You have used your monthly quota: $5.5000 of $5.0000; it resets at 2027-01-01 00:00 UTC (in 28 d 9 h).",
    );
  });
});
