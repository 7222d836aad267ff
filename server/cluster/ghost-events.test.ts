import { describe, expect, it } from "vitest";
import type { ChatTurn, SubagentProcess } from "@/lib/contracts";
import { applyEvent } from "@/lib/turn/reduce";
import { GHOST_TURN_ERROR } from "@/lib/turn/ghost-sweep";
import { ghostEndEvents } from "./ghost-events";

const stats = { inputTokens: 0, outputTokens: 0, costUsd: 0, steps: 0, durationMs: 0 } as unknown as ChatTurn["stats"];

function run(
  runId: string,
  parentRunId: string | null,
  depth: number,
  status: SubagentProcess["status"],
  children: SubagentProcess[] = [],
): SubagentProcess {
  return {
    runId,
    parentRunId,
    depth,
    name: "worker",
    task: "t",
    prompt: "p",
    steps: [
      {
        text: "",
        thinking: "",
        toolCalls: children.map((c, i) => ({
          callId: `c${runId}${i}`,
          name: "spawn",
          parameters: "{}",
          response: "",
          responseSize: 0,
          status: c.status === "running" ? "running" : "success",
          subagent: c,
        })),
      },
    ],
    response: "",
    stats,
    status,
    startedAt: "2026-12-01T12:00:00.000Z",
  } as unknown as SubagentProcess;
}

function turnWith(runs: SubagentProcess[]): ChatTurn {
  return {
    turnId: "t1",
    sessionId: "s1",
    prompt: "go",
    steps: [
      {
        text: "working",
        thinking: "",
        toolCalls: runs.map((r, i) => ({
          callId: `call${i}`,
          name: "spawn",
          parameters: "{}",
          response: "",
          responseSize: 0,
          status: "running",
          subagent: r,
        })),
      },
    ],
    stats,
    status: "running",
    createdAt: "2026-12-01T12:00:00.000Z",
  } as unknown as ChatTurn;
}

describe("ending a dead process's turn", () => {
  it("ends the turn, and with it every running subagent at any depth, with ghost_sweep", () => {
    const turn = turnWith([run("a", null, 1, "running", [run("a1", "a", 2, "running")]), run("b", null, 1, "success")]);
    const events = ghostEndEvents(turn, "2026-12-01T12:01:00.000Z");
    expect(events.map((e) => (e.type === "turn:ended" ? `${e.type}:${e.runsEnd?.endReason}` : e.type))).toEqual(["turn:ended:ghost_sweep"]);
    const ended = events.reduce(applyEvent, turn);
    expect(ended.status).toBe("failed");
    expect(ended.error).toBe(GHOST_TURN_ERROR);
    const a = ended.steps[0]!.toolCalls[0]!.subagent!;
    expect([a.status, a.endReason, a.steps[0]!.toolCalls[0]!.subagent!.endReason]).toEqual(["error", "ghost_sweep", "ghost_sweep"]);
    expect(ended.steps[0]!.toolCalls[1]!.subagent!.status).toBe("success");
  });

  it("does nothing to a turn that already ended", () => {
    expect(ghostEndEvents({ ...turnWith([]), status: "completed" }, "2026-12-01T12:01:00.000Z")).toEqual([]);
  });
});
