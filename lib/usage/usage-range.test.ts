import { describe, expect, it } from "vitest";
import { usageRange } from "./usage-range";

const now = new Date("2026-03-31T15:00:00Z");

describe("usageRange", () => {
  it.each([
    { name: "nothing asked: the last 30 days", query: {}, want: ["2026-03-02", "2026-03-31"] },
    { name: "only `to`: the 30 days up to it", query: { to: "2026-01-30" }, want: ["2026-01-01", "2026-01-30"] },
    { name: "only `from`: 30 days from it", query: { from: "2026-01-01" }, want: ["2026-01-01", "2026-01-30"] },
    { name: "only a recent `from`: up to today", query: { from: "2026-03-20" }, want: ["2026-03-20", "2026-03-31"] },
    { name: "one day", query: { from: "2026-02-28", to: "2026-02-28" }, want: ["2026-02-28", "2026-02-28"] },
    { name: "366 days is the most", query: { from: "2025-03-31", to: "2026-03-31" }, want: ["2025-03-31", "2026-03-31"] },
    { name: "367 days is refused", query: { from: "2025-03-30", to: "2026-03-31" }, want: null },
    { name: "backwards is refused", query: { from: "2026-03-02", to: "2026-03-01" }, want: null },
  ])("$name", ({ query, want }) => {
    const range = usageRange(query, now);
    expect(range && [range.from, range.to]).toEqual(want);
  });

  it("covers whole UTC days", () => {
    const range = usageRange({ from: "2026-03-01", to: "2026-03-02" }, now)!;
    expect([range.start.toISOString(), range.end.toISOString()]).toEqual(["2026-03-01T00:00:00.000Z", "2026-03-03T00:00:00.000Z"]);
  });
});
