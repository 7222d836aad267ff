import { describe, expect, it } from "vitest";
import type { SessionSummary } from "@/lib/contracts";
import { rankHits, type MatchedTurn } from "./rank";
import { parseQuery } from "./terms";

const session = (id: string, title: string, minute = 0): SessionSummary => ({
  sessionId: id,
  title,
  createdAt: "2026-12-01T00:00:00.000Z",
  updatedAt: new Date(Date.UTC(2026, 11, 1, 0, minute)).toISOString(),
});
const turn = (sessionId: string, fields: Partial<MatchedTurn>, minute = 0): MatchedTurn => ({
  turnId: `${sessionId}-t${minute}`,
  sessionId,
  at: new Date(Date.UTC(2026, 11, 1, 0, minute)),
  prompt: "",
  answer: "",
  results: "",
  ...fields,
});

describe("rankHits", () => {
  const q = parseQuery("tide table ");
  const sessions = new Map([
    ["title", session("title", "Tide table", 1)],
    ["prompt", session("prompt", "Misc", 2)],
    ["answer", session("answer", "Misc", 3)],
    ["sub", session("sub", "Misc", 4)],
  ]);
  const turns = [
    turn("prompt", { prompt: "Print the tide table" }),
    turn("answer", { answer: "Here is the tide table" }),
    turn("sub", { results: "A tide table from the subagent" }),
  ];

  it("puts a title match first, then a prompt, an answer, a subagent's result", () => {
    const hits = rankHits(q, sessions, new Set(["title"]), turns, true, 20);
    expect(hits.map((h) => [h.session.sessionId, h.field])).toEqual([
      ["title", "title"],
      ["prompt", "prompt"],
      ["answer", "answer"],
      ["sub", "subagent"],
    ]);
    expect(hits[1]!.turnId).toBe("prompt-t0");
    expect(hits[0]!.turnId).toBeNull();
  });

  it("leaves subagents' results out unless asked, and a chat not owned out always", () => {
    const owned = new Map([...sessions].filter(([id]) => id !== "prompt"));
    const hits = rankHits(q, owned, new Set(), turns, false, 20);
    expect(hits.map((h) => h.session.sessionId)).toEqual(["answer", "sub"]);
    expect(hits[1]!.snippet.text).toBe("");
  });

  it("orders equal scores by latest activity and keeps the best turn of a chat", () => {
    const hits = rankHits(
      q,
      sessions,
      new Set(),
      [
        turn("answer", { answer: "tide table" }, 1),
        turn("prompt", { answer: "tide table" }, 2),
        turn("answer", { prompt: "tide table" }, 3),
      ],
      false,
      20,
    );
    expect(hits.map((h) => [h.session.sessionId, h.field, h.turnId])).toEqual([
      ["answer", "prompt", "answer-t3"],
      ["prompt", "answer", "prompt-t2"],
    ]);
  });
});
