import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn, TurnStats } from "@/lib/contracts";
import { emptyStats } from "@/lib/contracts";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { axisSpan, barSpan, timelineLayout } from "./timeline";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const turnId = "t1";

function fold(events: AgentEvent[], turn: ChatTurn = newTurn({ sessionId: "s1", turnId, prompt: "go", createdAt: at(0) })): ChatTurn {
  return events.reduce(applyEvent, turn);
}

const stats = (tokens: number): TurnStats => ({ ...emptyStats(), chat: { inputTokens: tokens, outputTokens: 10 } });
const ref = (runId: string, parentRunId: string | null = null, depth = 1) => ({ turnId, runId, parentRunId, depth });

/** The master spawns two explorers in step 0 and answers in step 1; the first explorer reads a file and spawns one more. */
function spawnEvents(): AgentEvent[] {
  return [
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_call", step: 0, callId: "m1", name: "subagent", parameters: '{"task":"a"}', at: at(1000) },
    },
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_call", step: 0, callId: "m2", name: "subagent", parameters: '{"task":"b"}', at: at(1000) },
    },
    { type: "subagent_started", ...ref("r1"), callId: "m1", name: "explore", task: "Read the plan", prompt: "p", startedAt: at(1100) },
    { type: "subagent_started", ...ref("r2"), callId: "m2", name: "explore", task: "Read the bugs", prompt: "p", startedAt: at(1100) },
    {
      type: "subagent_data",
      ...ref("r1"),
      data: { kind: "tool_call", step: 0, callId: "c1", name: "file_read", parameters: '{"path":"PLAN.md"}', at: at(2000) },
    },
    {
      type: "subagent_data",
      ...ref("r1"),
      data: { kind: "tool_result", callId: "c1", response: "plan", responseSize: 4, status: "success", at: at(2500) },
    },
    {
      type: "subagent_data",
      ...ref("r1"),
      data: { kind: "tool_call", step: 0, callId: "c2", name: "subagent", parameters: '{"task":"deeper"}', at: at(2600) },
    },
    { type: "subagent_started", ...ref("r3", "r1", 2), callId: "c2", name: "general", task: "Go deeper", prompt: "p", startedAt: at(2700) },
  ];
}

function finishedTurn(): ChatTurn {
  return fold([
    ...spawnEvents(),
    { type: "subagent_completed", ...ref("r3", "r1", 2), response: "deep", stats: stats(50), endReason: "completed", endedAt: at(4000) },
    {
      type: "subagent_data",
      ...ref("r1"),
      data: { kind: "tool_result", callId: "c2", response: "deep", responseSize: 4, status: "success", at: at(4100) },
    },
    { type: "subagent_completed", ...ref("r1"), response: "done", stats: stats(300), endReason: "completed", endedAt: at(5000) },
    {
      type: "subagent_error",
      ...ref("r2"),
      error: "Killed before it finished.",
      stats: stats(100),
      endReason: "killed",
      endedAt: at(3000),
    },
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_result", callId: "m1", response: "ok", responseSize: 2, status: "success", at: at(5100) },
    },
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_result", callId: "m2", response: "killed", responseSize: 6, status: "error", at: at(3100) },
    },
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "usage", stats: stats(900), stepTiming: { step: 0, startedAt: at(0), endedAt: at(5200) } },
    },
    { type: "turn:data", turnId, runId: null, data: { kind: "token", step: 1, offset: 0, text: "Both read." } },
    {
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "usage", stats: stats(1000), stepTiming: { step: 1, startedAt: at(5200), endedAt: at(6000) } },
    },
    { type: "turn:ended", turnId, status: "completed", stats: stats(1000), endedAt: at(6000) },
  ]);
}

describe("timelineLayout", () => {
  it("puts master steps, runs and calls on one axis, nested by depth, with offsets from the turn's start", () => {
    const layout = timelineLayout(finishedTurn());
    const summary = layout.rows.map((r) => [r.kind, r.depth, r.label, barSpan(r, layout.origin, 0)]);
    expect(summary).toEqual([
      ["step", 0, "Step 1", { from: 0, to: 5200 }],
      ["run", 1, "explore", { from: 1100, to: 5000 }],
      ["call", 2, "file_read", { from: 2000, to: 2500 }],
      ["run", 2, "general", { from: 2700, to: 4000 }],
      ["run", 1, "explore", { from: 1100, to: 3000 }],
      ["step", 0, "Step 2", { from: 5200, to: 6000 }],
    ]);
    expect(axisSpan(layout, 0)).toBe(6000);
    expect(layout.untimed).toBe(0);
  });

  it("gives each row its status, tokens and the panels that hold it", () => {
    const rows = timelineLayout(finishedTurn()).rows;
    const run = (id: string) => rows.find((r) => r.runId === id && r.kind === "run")!;
    expect(run("r1")).toMatchObject({ status: "done", tokens: 310, runPath: [] });
    expect(run("r2")).toMatchObject({ status: "stopped", tokens: 110, detail: "Read the bugs" });
    expect(run("r3")).toMatchObject({ status: "done", runPath: ["r1"] });
    expect(rows.find((r) => r.callId === "c1")).toMatchObject({
      status: "done",
      runId: "r1",
      runPath: ["r1"],
      detail: '{"path":"PLAN.md"}',
    });
  });

  it("while the turn runs, open bars (the current step, running runs and calls) end at now", () => {
    const turn = fold([
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "usage", stats: stats(10), stepTiming: { step: 0, startedAt: at(0), endedAt: at(900) } },
      },
      ...spawnEvents().map((e): AgentEvent =>
        e.type === "turn:data" && e.data.kind === "tool_call" ? { ...e, data: { ...e.data, step: 1 } } : e,
      ),
    ]);
    const layout = timelineLayout(turn);
    const now = T0 + 8000;
    const step2 = layout.rows.find((r) => r.key === "s1")!;
    expect(step2).toMatchObject({ open: true, status: "running" });
    // The step began when the one before it ended.
    expect(barSpan(step2, layout.origin, now)).toEqual({ from: 900, to: 8000 });
    const r3 = layout.rows.find((r) => r.runId === "r3" && r.kind === "run")!;
    expect(barSpan(r3, layout.origin, now)).toEqual({ from: 2700, to: 8000 });
    const c1 = layout.rows.find((r) => r.callId === "c1")!;
    expect(c1).toMatchObject({ open: false, status: "done" });
    expect(axisSpan(layout, now)).toBe(8000);
  });

  it("shows a call waiting for approval, and the runs above it, as waiting", () => {
    const turn = fold([
      ...spawnEvents(),
      {
        type: "subagent_data",
        ...ref("r3", "r1", 2),
        data: { kind: "tool_call", step: 0, callId: "w1", name: "file_write", parameters: "{}", at: at(3000) },
      },
      {
        type: "subagent_data",
        ...ref("r3", "r1", 2),
        data: { kind: "approval", callId: "w1", approval: { state: "pending", requestedAt: at(3000), reason: "fix" } },
      },
    ]);
    const rows = timelineLayout(turn).rows;
    expect(rows.find((r) => r.callId === "w1")!.status).toBe("waiting");
    expect(rows.find((r) => r.runId === "r1" && r.kind === "run")!.status).toBe("waiting");
    expect(rows.find((r) => r.runId === "r2" && r.kind === "run")!.status).toBe("running");
  });

  it("a failed run and a call its turn closed without a result end where their owner ended", () => {
    const turn = fold([
      ...spawnEvents(),
      {
        type: "subagent_data",
        ...ref("r2"),
        data: { kind: "tool_call", step: 0, callId: "g1", name: "grep", parameters: "{}", at: at(1500) },
      },
      { type: "turn:ended", turnId, status: "cancelled", stats: stats(5), endedAt: at(7000) },
    ]);
    const layout = timelineLayout(turn);
    const g1 = layout.rows.find((r) => r.callId === "g1")!;
    expect(g1).toMatchObject({ status: "stopped", open: false });
    expect(barSpan(g1, layout.origin, T0 + 99_000)).toEqual({ from: 1500, to: 7000 });
    expect(layout.rows.find((r) => r.key === "s0")).toMatchObject({ status: "stopped", open: false });
  });

  it("records from before times were kept: calls without times are listed without a bar and counted", () => {
    const legacy = fold([
      { type: "turn:data", turnId, runId: null, data: { kind: "tool_call", step: 0, callId: "x1", name: "list_files", parameters: "{}" } },
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "tool_result", callId: "x1", response: "a", responseSize: 1, status: "success" },
      },
      { type: "turn:data", turnId, runId: null, data: { kind: "token", step: 1, offset: 0, text: "Done." } },
      { type: "turn:ended", turnId, status: "completed", stats: stats(5), endedAt: at(4000) },
    ]);
    const layout = timelineLayout(legacy);
    expect(layout.rows.map((r) => [r.label, barSpan(r, layout.origin, 0)])).toEqual([
      ["Step 1", null],
      ["list_files", null],
      // The last step ended with the turn; where it began is unknown.
      ["Step 2", null],
    ]);
    expect(layout.untimed).toBe(3);
  });

  it("times that are not times (an edited import) leave the row untimed; an end before its start draws no negative bar", () => {
    const turn = fold([
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "tool_call", step: 0, callId: "x1", name: "grep", parameters: "{}", at: "yesterday-ish" },
      },
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "tool_result", callId: "x1", response: "", responseSize: 0, status: "success", at: at(500) },
      },
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "tool_call", step: 0, callId: "x2", name: "grep", parameters: "{}", at: at(900) },
      },
      {
        type: "turn:data",
        turnId,
        runId: null,
        data: { kind: "tool_result", callId: "x2", response: "", responseSize: 0, status: "success", at: at(100) },
      },
      { type: "turn:ended", turnId, status: "completed", stats: stats(5), endedAt: at(1000) },
    ]);
    const layout = timelineLayout(turn);
    const span = (callId: string) =>
      barSpan(
        layout.rows.find((r) => r.callId === callId)!,
        layout.origin,
        0,
      );
    expect(span("x1")).toBeNull();
    expect(span("x2")).toEqual({ from: 900, to: 900 });
  });

  it("a streamed token rebuilds only the rows of the run it reached: every other row is the same object", () => {
    const running = fold(spawnEvents());
    const before = timelineLayout(running);
    const next = applyEvent(running, { type: "subagent_data", ...ref("r2"), data: { kind: "token", step: 0, offset: 0, text: "Reading" } });
    const after = timelineLayout(next);
    const same = after.rows.filter((row, i) => row === before.rows[i]).map((r) => r.key);
    expect(same).toEqual(["rr1", "cr1:c1", "rr3"]);
  });
});
