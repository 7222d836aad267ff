import { describe, expect, it } from "vitest";
import type { SessionSummary } from "@/lib/contracts";
import { appendPage, firstPage, mergeFirstPage, removeSession, upsertSession } from "./session-list";

const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 0, minute)).toISOString();
const chat = (id: string, minute: number, title = id): SessionSummary => ({
  sessionId: id,
  title,
  createdAt: at(0),
  updatedAt: at(minute),
});
const ids = (list: { sessions: SessionSummary[] }) => list.sessions.map((s) => s.sessionId);

describe("the sidebar's list in the browser", () => {
  it("appends a page without repeating a chat already held", () => {
    const list = firstPage([chat("c", 3), chat("d", 4)], { updatedAt: at(3), sessionId: "c" });
    const more = appendPage(list, [chat("c", 3), chat("b", 2), chat("a", 1)], null);
    expect(ids(more)).toEqual(["d", "c", "b", "a"]);
    expect(more.next).toBeNull();
  });

  it("takes a push of the first page and keeps the chats loaded below it", () => {
    const list = appendPage(firstPage([chat("e", 5), chat("d", 4)], { updatedAt: at(4), sessionId: "d" }), [chat("c", 3), chat("b", 2)], {
      updatedAt: at(2),
      sessionId: "b",
    });
    // "b" renamed: now the newest; the page of two is "b", "e".
    const merged = mergeFirstPage(list, [chat("b", 9, "renamed"), chat("e", 5)], 2);
    expect(ids(merged)).toEqual(["b", "e", "d", "c"]);
    expect(merged.sessions[0]!.title).toBe("renamed");
    expect(merged.next).toEqual({ updatedAt: at(2), sessionId: "b" });
  });

  it("reads a push shorter than a page as the whole list (a chat deleted in another tab goes)", () => {
    const list = firstPage([chat("b", 2), chat("a", 1)], null);
    expect(ids(mergeFirstPage(list, [chat("a", 1)], 50))).toEqual(["a"]);
  });

  it("continues after a full pushed page when nothing was loaded below it", () => {
    const merged = mergeFirstPage(null, [chat("b", 2), chat("a", 1)], 2);
    expect(merged.next).toEqual({ updatedAt: at(1), sessionId: "a" });
  });

  it("moves an upserted chat to its place and removes a deleted one", () => {
    const list = firstPage([chat("b", 2), chat("a", 1)], null);
    expect(ids(upsertSession(list, chat("a", 3)))).toEqual(["a", "b"]);
    expect(ids(removeSession(list, "b"))).toEqual(["a"]);
  });
});
