import { describe, expect, it } from "vitest";
import { emptyStats, type AgentEvent } from "@/lib/contracts";
import { logTurnEnd, turnEndLine } from "./turn-log";

const ended = (fields: Partial<Extract<AgentEvent, { type: "turn:ended" }>> = {}): AgentEvent => ({
  type: "turn:ended",
  turnId: "t1",
  status: "completed",
  stats: {
    ...emptyStats(),
    chat: { inputTokens: 1200, outputTokens: 300 },
    system: { inputTokens: 100, outputTokens: 20 },
    steps: 4,
    runtimeMs: 5400,
    cost: 0.012,
  },
  endedAt: "2026-12-03T10:00:00.000Z",
  ...fields,
});

describe("the line a turn's end writes", () => {
  it("says which chat and turn, how it ended, how long, how many tokens and what it cost", () => {
    expect(turnEndLine(ended(), "s1")).toEqual({
      msg: "Turn completed",
      meta: {
        sessionId: "s1",
        turnId: "t1",
        status: "completed",
        durationMs: 5400,
        steps: 4,
        inputTokens: 1300,
        outputTokens: 320,
        cost: 0.012,
      },
    });
    expect(turnEndLine({ type: "turn:started", turnId: "t1", prompt: "hi", createdAt: "2026-12-03T10:00:00.000Z" }, "s1")).toBeUndefined();
  });

  it("is a warning, with the reason and the error, when the turn failed; info otherwise", () => {
    const lines: [string, string, Record<string, unknown>][] = [];
    const log = {
      info: (msg: string, meta?: object) => lines.push(["info", msg, meta as Record<string, unknown>]),
      warn: (msg: string, meta?: object) => lines.push(["warn", msg, meta as Record<string, unknown>]),
    };
    logTurnEnd(log, ended({ status: "failed", endReason: "budget_exceeded", error: "The turn reached its budget." }), "s1");
    logTurnEnd(log, ended({ status: "cancelled" }), "s1");
    expect(lines.map(([level, msg]) => [level, msg])).toEqual([
      ["warn", "Turn failed"],
      ["info", "Turn cancelled"],
    ]);
    expect(lines[0]![2]).toMatchObject({ endReason: "budget_exceeded", error: "The turn reached its budget." });
  });
});
