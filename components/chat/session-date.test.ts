import { describe, expect, it } from "vitest";
import { groupByDay, sessionDate } from "./session-date";

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

describe("groupByDay", () => {
  const now = new Date(2026, 11, 1, 15, 30);
  const chat = (id: string, y: number, m: number, d: number, h = 9) => ({ id, updatedAt: new Date(y, m, d, h).toISOString() });
  it("puts each chat under Today, Yesterday, Previous 7 days or Older, keeping their order and leaving empty groups out", () => {
    const sessions = [
      chat("a", 2026, 11, 1, 14),
      chat("b", 2026, 11, 1, 0),
      chat("c", 2026, 10, 30, 23),
      chat("d", 2026, 10, 25),
      chat("e", 2026, 0, 2),
      chat("f", 2025, 11, 31),
    ];
    expect(groupByDay(sessions, now).map((g) => [g.label, g.sessions.map((s) => s.id)])).toEqual([
      ["Today", ["a", "b"]],
      ["Yesterday", ["c"]],
      ["Previous 7 days", ["d"]],
      ["Older", ["e", "f"]],
    ]);
    expect(groupByDay([chat("x", 2026, 0, 1)], now).map((g) => g.label)).toEqual(["Older"]);
    expect(groupByDay([], now)).toEqual([]);
  });
});
