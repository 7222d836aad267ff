import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contracts";
import { budgetStopOf, budgetStopText, turnBudgetText } from "@/lib/agent/budget-stop";
import { ev } from "@/test/support/turn/event-builders";
import { BoundedLabels, OTHER_LABEL } from "./bounded-labels";
import { EventMetrics, MAX_TOOL_LABELS, type MetricUpdate } from "./event-metrics";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function run(events: readonly AgentEvent[], metrics = new EventMetrics(() => 0)): MetricUpdate[] {
  return events.flatMap((e) => metrics.event(e));
}

describe("EventMetrics: agent events to metric updates", () => {
  it("counts a turn, its subagent and their tool calls, each call timed by its own events", () => {
    const updates = run([
      ev.started(),
      ev.master({ kind: "tool_call", step: 0, callId: "c1", name: "subagent", parameters: "{}", at: at(1) }),
      ev.spawn("r1", "c1"),
      ev.data("r1", { kind: "tool_call", step: 0, callId: "c2", name: "grep", parameters: "{}", at: at(2) }),
      ev.data("r1", { kind: "tool_result", callId: "c2", response: "x", responseSize: 1, status: "success", at: at(5) }),
      ev.completed("r1", "done"),
      ev.master({ kind: "tool_result", callId: "c1", response: "ok", responseSize: 2, status: "success", at: at(11) }),
      ev.complete("c1", { runId: "r1", parentRunId: null }, "ok"),
      ev.ended("completed"),
    ]);
    expect(updates).toEqual([
      { kind: "turn_started" },
      { kind: "run_started" },
      { kind: "tool_call", tool: "grep", status: "success", seconds: 3 },
      { kind: "run_ended", reason: "completed" },
      { kind: "tool_call", tool: "subagent", status: "success", seconds: 10 },
      { kind: "turn_ended", reason: "completed" },
    ]);
  });

  it("counts a repeated event once, as the reducer applies it once", () => {
    const metrics = new EventMetrics(() => 0);
    const events = [ev.started(), ev.spawn("r1", "c1"), ev.failed("r1", "boom"), ev.ended("failed")];
    const once = run(events, metrics);
    expect(once.map((u) => u.kind)).toEqual(["turn_started", "run_started", "run_ended", "turn_ended"]);
    // The same events again, as after a replay: a fresh start counts, the rest of a known turn does not.
    expect(run([ev.spawn("r1", "c1"), ev.failed("r1", "boom"), ev.ended("failed")], metrics)).toEqual([]);
  });

  it("ends what a turn leaves running with it: runs, calls and approvals still waiting", () => {
    const metrics = new EventMetrics(() => Date.parse(at(30)));
    const updates = run(
      [
        ev.started(),
        ev.master({ kind: "tool_call", step: 0, callId: "c1", name: "subagent", parameters: "{}", at: at(0) }),
        ev.spawn("r1", "c1"),
        ev.data("r1", { kind: "tool_call", step: 0, callId: "c2", name: "shell", parameters: "{}", at: at(10) }),
        ev.approval("r1", "c2"),
        { ...ev.ended("cancelled"), endedAt: at(20) },
      ],
      metrics,
    );
    expect(updates).toEqual([
      { kind: "turn_started" },
      { kind: "run_started" },
      { kind: "approvals_waiting", delta: 1 },
      { kind: "run_ended", reason: "killed" },
      { kind: "tool_call", tool: "subagent", status: "cancelled", seconds: 20 },
      { kind: "tool_call", tool: "shell", status: "cancelled", seconds: 10 },
      { kind: "approvals_waiting", delta: -1 },
      { kind: "turn_ended", reason: "cancelled" },
    ]);
    expect(metrics.openTurns).toBe(0);
  });

  it("counts an approval waiting until it is decided, once however often it is told", () => {
    const updates = run([
      ev.started(),
      ev.approval(null, "c1"),
      ev.approval(null, "c1"),
      ev.approval(null, "c1", { state: "approved", decidedAt: at(3) }),
      ev.approval(null, "c1", { state: "approved", decidedAt: at(3) }),
    ]);
    expect(updates).toEqual([{ kind: "turn_started" }, { kind: "approvals_waiting", delta: 1 }, { kind: "approvals_waiting", delta: -1 }]);
  });

  it("counts a budget stop where it happened: a run's own, the turn's or the quota's, never the runs stopped below", () => {
    const overrun = { unit: "tokens" as const, spent: 2140, limit: 2000 };
    const own = budgetStopText({ whose: "run", overrun }, false);
    const inherited = budgetStopText({ whose: "run", overrun }, true);
    const stopped = (runId: string, error: string): AgentEvent => ({ ...ev.failed(runId, error), endReason: "budget_exceeded" });
    const turnStop = (error: string): AgentEvent => ({ ...ev.ended("failed", error), endReason: "budget_exceeded" });

    expect(run([ev.started(), ev.spawn("r1", "c1"), stopped("r1", own)]).slice(2)).toEqual([
      { kind: "run_ended", reason: "budget_exceeded" },
      { kind: "budget_stop", whose: "run" },
    ]);
    expect(run([ev.started(), ev.spawn("r1", "c1"), stopped("r1", inherited)]).slice(2)).toEqual([
      { kind: "run_ended", reason: "budget_exceeded" },
    ]);
    expect(run([ev.started(), turnStop(turnBudgetText({ whose: "turn", overrun }))]).slice(1)).toEqual([
      { kind: "turn_ended", reason: "budget_exceeded" },
      { kind: "budget_stop", whose: "turn" },
    ]);
    const quota = { whose: "quota" as const, overrun, text: "your daily quota of 2,000 tokens" };
    expect(run([ev.started(), turnStop(turnBudgetText(quota))]).slice(1)).toEqual([
      { kind: "turn_ended", reason: "budget_exceeded" },
      { kind: "budget_stop", whose: "quota" },
    ]);
  });

  it("ignores the events of a turn it never saw start (a mirror's, or one from before this process)", () => {
    expect(run([ev.spawn("r1", "c1"), ev.call("c1"), ev.result("c1", "x"), ev.ended("completed")])).toEqual([]);
  });

  it("maps a model request's record to one duration and its tokens", () => {
    const metrics = new EventMetrics();
    const record = { model: "gpt-4o", purpose: "chat" as const, startedAt: at(1), endedAt: at(3), error: null };
    expect(metrics.modelRequest({ ...record, usage: { inputTokens: 120, outputTokens: 30 } })).toEqual([
      {
        kind: "model_request",
        operation: "chat",
        model: "gpt-4o",
        purpose: "chat",
        seconds: 2,
        tokens: { input: 120, output: 30 },
        error: false,
      },
    ]);
    expect(metrics.modelRequest({ ...record, usage: null, error: "aborted (killed)" })).toEqual([
      { kind: "model_request", operation: "chat", model: "gpt-4o", purpose: "chat", seconds: 2, error: true },
    ]);
  });

  it("keeps tool names a bounded set: past the bound, made-up names share one label", () => {
    const metrics = new EventMetrics(() => 0);
    const events: AgentEvent[] = [ev.started()];
    for (let i = 0; i <= MAX_TOOL_LABELS; i++) events.push(ev.call(`c${i}`, 0, `tool_${i}`), ev.result(`c${i}`, "x"));
    const tools = new Set(run(events, metrics).flatMap((u) => (u.kind === "tool_call" ? [u.tool] : [])));
    expect(tools.size).toBe(MAX_TOOL_LABELS + 1);
    expect(tools.has(OTHER_LABEL)).toBe(true);
    expect(tools.has(`tool_${MAX_TOOL_LABELS}`)).toBe(false);
  });
});

describe("BoundedLabels", () => {
  it("keeps the first values, then answers other; a known value stays itself", () => {
    const labels = new BoundedLabels(2);
    expect([labels.label("a"), labels.label("b"), labels.label("c"), labels.label("a"), labels.label("")]).toEqual([
      "a",
      "b",
      OTHER_LABEL,
      "a",
      OTHER_LABEL,
    ]);
  });
});

describe("budgetStopOf", () => {
  it("reads back whose budget each stop text names", () => {
    const overrun = { unit: "usd" as const, spent: 1.2, limit: 1 };
    const quota = { whose: "quota" as const, overrun, text: "your monthly quota" };
    expect(budgetStopOf(budgetStopText({ whose: "run", overrun }, false))).toBe("run");
    expect(budgetStopOf(budgetStopText({ whose: "run", overrun }, true))).toBe("inherited");
    expect(budgetStopOf(budgetStopText({ whose: "turn", overrun }, true))).toBe("turn");
    expect(budgetStopOf(budgetStopText(quota, true))).toBe("quota");
    expect(budgetStopOf(turnBudgetText({ whose: "turn", overrun }))).toBe("turn");
    expect(budgetStopOf(turnBudgetText(quota))).toBe("quota");
    expect(budgetStopOf("The model failed")).toBeUndefined();
    expect(budgetStopOf(undefined)).toBeUndefined();
  });
});
