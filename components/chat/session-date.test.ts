import { describe, expect, it } from "vitest";
import { sessionDate } from "./session-date";

describe("sessionDate", () => {
  const now = new Date(2026, 11, 1, 15, 30); // Tue 1 Dec 2026, 15:30 local
  const at = (y: number, m: number, d: number, h = 9, min = 5) => new Date(y, m, d, h, min).toISOString();
  it.each([
    ["earlier today", at(2026, 11, 1, 9, 5), false, "09:05"],
    ["today, time asked for", at(2026, 11, 1, 9, 5), true, "09:05"],
    ["yesterday", at(2026, 10, 30, 23, 59), false, "Yesterday"],
    ["yesterday with its time", at(2026, 10, 30, 23, 59), true, "Yesterday 23:59"],
    ["within a week", at(2026, 10, 27), false, "Fri"],
    ["this year", at(2026, 5, 3), false, "3 Jun"],
    ["last year", at(2025, 11, 31), false, "31 Dec 2025"],
    ["a clock ahead of ours", at(2026, 11, 2), false, "09:05"],
    ["not a date", "soon", false, ""],
  ])("%s", (_name, iso, withTime, expected) => {
    expect(sessionDate(iso, now, withTime)).toBe(expected);
  });
});
