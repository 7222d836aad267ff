import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type EndReason, type SubagentProcess, type ToolCall } from "@/lib/contracts";
import { newTurn } from "@/lib/turn/reduce";
import { retriedAs } from "@/lib/turn/retries";
import { planRetry } from "./retry-plan";

function run(runId: string, endReason: EndReason | undefined, extra: Partial<SubagentProcess> = {}): SubagentProcess {
  return {
    runId,
    parentRunId: null,
    depth: 1,
    name: "explore",
    task: `task of ${runId}`,
    prompt: "",
    steps: [],
    response: "",
    stats: emptyStats(),
    status: endReason === undefined ? "running" : endReason === "completed" ? "success" : "error",
    startedAt: "2026-12-01T00:00:00.000Z",
    ...(endReason ? { endReason } : {}),
    ...extra,
  };
}

function call(process: SubagentProcess, parameters?: string): ToolCall {
  return {
    callId: `c-${process.runId}`,
    name: "subagent",
    parameters: parameters ?? JSON.stringify({ agent: process.name, task: process.task, objective: "the goal" }),
    response: "",
    responseSize: 0,
    status: process.status === "running" ? "running" : process.status,
    subagent: process,
  };
}

function turnWith(turnId: string, calls: ToolCall[]): ChatTurn {
  const turn = newTurn({ sessionId: "s", turnId, prompt: "p", createdAt: "" });
  return { ...turn, status: "completed", steps: [{ text: "", thinking: "", toolCalls: calls }] };
}

describe("planRetry", () => {
  const turns = [
    turnWith("t1", [
      call(run("killed1", "killed")),
      call(run("done1", "completed")),
      call(run("slow1", "watchdog_timeout")),
      call(run("old1", "failed")),
      call(run("odd1", "failed"), "not json"),
    ]),
    turnWith("t2", [call(run("new1", "completed", { retryOf: "old1" }))]),
  ];

  it.each([
    ["killed1", undefined, { ok: true, prompt: "Retry the explore subagent: task of killed1" }],
    ["slow1", "a better task", { ok: true, prompt: "Retry the explore subagent with an edited task: a better task" }],
    [
      "done1",
      undefined,
      { ok: false, code: "bad_request", message: "Run done1 completed; only a failed, killed or timed-out run can be retried." },
    ],
    ["old1", undefined, { ok: false, code: "bad_request", message: "Run old1 was already retried as new1; retry that run instead." }],
    ["nope", undefined, { ok: false, code: "not_found", message: "Run nope was not found in this chat." }],
  ] as const)("run %s, task %s", (runId, task, expected) => {
    expect(planRetry(turns, runId, task)).toMatchObject(expected);
  });

  it("keeps the original call's objective and replaces only the task", () => {
    const plan = planRetry(turns, "slow1", "a better task");
    expect(plan.ok && plan.retry).toEqual({ retryOf: "slow1", args: { agent: "explore", task: "a better task", objective: "the goal" } });
  });

  it("falls back to the run's name and task when the stored parameters cannot be read", () => {
    const plan = planRetry(turns, "odd1");
    expect(plan.ok && plan.retry.args).toEqual({ agent: "explore", task: "task of odd1" });
  });

  it("derives 'retried as' links across turns, nested runs included", () => {
    const nested = run("outer", "completed", {
      steps: [{ text: "", thinking: "", toolCalls: [call(run("inner2", "completed", { retryOf: "inner1", depth: 2 }))] }],
    });
    expect([...retriedAs([...turns, turnWith("t3", [call(nested)])])]).toEqual([
      ["old1", "new1"],
      ["inner1", "inner2"],
    ]);
  });
});
