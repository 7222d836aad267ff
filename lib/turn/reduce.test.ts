import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { NESTED_EVENTS, STATS, ev } from "@/test/support/turn/event-builders";
import { applyEvent, newTurn } from "./reduce";

const start = newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
const fold = (events: readonly AgentEvent[], turn: ChatTurn = start) => events.reduce(applyEvent, turn);

const base = fold(NESTED_EVENTS);
const r1 = (t: ChatTurn) => t.steps[0]!.toolCalls[0]!.subagent!;
const r2 = (t: ChatTurn) => r1(t).steps[0]!.toolCalls[1]!.subagent!;

describe("newTurn", () => {
  it("starts running, with no steps and zero stats", () => {
    expect(start).toStrictEqual({
      turnId: "t1",
      sessionId: "s1",
      prompt: "hi",
      steps: [],
      status: "running",
      createdAt: "2026-01-01T00:00:00.000Z",
      stats: { chat: { inputTokens: 0, outputTokens: 0 }, system: { inputTokens: 0, outputTokens: 0 }, steps: 0, runtimeMs: 0, cost: 0 },
    });
  });
});

describe("applyEvent", () => {
  const texts: [string, AgentEvent[], string[]][] = [
    ["in order", [ev.token(0, "ab"), ev.token(2, "cd")], ["abcd"]],
    ["duplicate", [ev.token(0, "ab"), ev.token(0, "ab")], ["ab"]],
    ["overlap", [ev.token(0, "abc"), ev.token(1, "bcd")], ["abcd"]],
    ["gap", [ev.token(0, "ab"), ev.token(4, "x")], ["ab"]],
    ["another turn", [ev.token(0, "ab", 0, "t2")], []],
    ["two steps", [ev.token(0, "Let me look."), ev.token(0, "The answer.", 1)], ["Let me look.", "The answer."]],
    ["a step with no text of its own", [ev.token(0, "late", 2)], ["", "", "late"]],
  ];
  it.each(texts)("accumulates the master's text per step by offset: %s", (_name, events, expected) => {
    expect(fold(events).steps.map((s) => s.text)).toEqual(expected);
  });

  it("nests processes in the calls that spawned them, each call in the step that made it", () => {
    expect(base.steps).toHaveLength(1);
    expect(base.steps[0]!.text).toBe("Hi ");
    expect(base.steps[0]!.toolCalls[0]).toMatchObject({ callId: "c1", status: "running" });
    expect(r1(base)).toMatchObject({ runId: "r1", prompt: "Task: look", status: "running", response: "" });
    expect(r1(base).steps[0]!.toolCalls.map((c) => c.callId)).toEqual(["c2", "c3"]);
    expect(r2(base)).toMatchObject({ runId: "r2", parentRunId: "r1", depth: 2 });
  });

  const steers: [string, AgentEvent[], string[]][] = [
    ["in order", [ev.steer("r1", 0, "dates only"), ev.steer("r1", 1, "and risks", 2)], ["1:dates only", "2:and risks"]],
    ["replayed", [ev.steer("r1", 0, "dates only"), ev.steer("r1", 0, "dates only")], ["1:dates only"]],
    ["out of place", [ev.steer("r1", 1, "too early")], []],
  ];
  it.each(steers)("records a person's steering messages on the run, with the step that read them: %s", (_name, events, expected) => {
    const t = fold(events, base);
    expect((r1(t).steering ?? []).map((s) => `${s.step}:${s.message}`)).toEqual(expected);
    expect(r1(t).steps).toBe(r1(base).steps);
  });

  it("keeps a steer on a nested run in that run, and an unsteered run without the field", () => {
    const t = fold([ev.steer("r2", 0, "deeper", 1, "r1")], base);
    expect(r2(t).steering).toStrictEqual([{ step: 1, message: "deeper", at: "2026-01-01T00:00:05.000Z" }]);
    expect("steering" in r1(t)).toBe(false);
    expect(applyEvent(t, ev.steer("r2", 0, "deeper", 1, "r1"))).toBe(t);
  });

  it("keeps a subagent's steps apart: interim text, reasoning and calls stay in their step", () => {
    const t = fold(
      [
        ev.subThinking("r2", 0, "hm"),
        ev.subThinking("r2", 2, "m"),
        ev.subToken("r2", 0, "Let me read."),
        ev.subCall("r2", "c9", "file_read", "{}", "r1"),
        ev.subToken("r2", 0, "ab", 1),
        ev.subToken("r2", 1, "bc", 1),
        ev.subToken("r2", 0, "ab", 1),
        ev.usage("r2", 2),
        ev.usage("r2", 1),
      ],
      base,
    );
    expect(r2(t).steps).toStrictEqual([
      {
        text: "Let me read.",
        thinking: "hmm",
        toolCalls: [{ callId: "c9", name: "file_read", parameters: "{}", response: "", responseSize: 0, status: "running" }],
      },
      { text: "abc", thinking: "", toolCalls: [] },
    ]);
    expect(r2(t).response).toBe("");
    expect(r2(t).stats).toMatchObject({ steps: 2, chat: { inputTokens: 20, outputTokens: 2 } });
  });

  it("settles a run with its first terminal event; its response is the final answer alone", () => {
    const done = fold([ev.subToken("r1", 0, "draft"), ev.subToken("r1", 0, "final", 1), ev.completed("r1", "final")], base);
    expect(r1(done)).toMatchObject({ status: "success", response: "final", stats: STATS, endReason: "completed" });
    expect(r1(done).steps.map((s) => s.text)).toEqual(["draft", "final"]);
    expect(fold([ev.failed("r1", "late"), ev.subToken("r1", 5, "more")], done)).toBe(done);
    const killed = fold([ev.failed("r1", "Killed by parent", "killed")], base);
    expect(r1(killed)).toMatchObject({ status: "error", error: "Killed by parent", endReason: "killed", response: "" });
  });

  it("agent:complete stores the clean response on the call and leaves the process as its own events folded it", () => {
    const done = fold([ev.subToken("r1", 0, "The answer"), ev.completed("r1", "The answer")], base);
    const t = fold([ev.complete("c1", { runId: "r1", parentRunId: null }, "[Result] The answer")], done);
    expect(t.steps[0]!.toolCalls[0]).toMatchObject({ response: "[Result] The answer", responseSize: 19 });
    expect(t.steps[0]!.toolCalls[0]!.subagent).toBe(r1(done));
    expect(applyEvent(t, ev.complete("c1", { runId: "r1", parentRunId: null }, "[Result] The answer"))).toBe(t);
  });

  it("turn:ended settles status, stats and error once, and closes what still runs", () => {
    const t = fold([ev.usageTurn(), ev.ended("failed", "Model unavailable")], base);
    expect(t).toMatchObject({ status: "failed", error: "Model unavailable", stats: STATS, endedAt: "2026-01-01T00:01:00.000Z" });
    expect(r1(t)).toMatchObject({ status: "error", endReason: "failed" });
    // A call the end cut short is cancelled, not failed: it never got a result.
    expect(r1(t).steps[0]!.toolCalls[0]!.status).toBe("cancelled");
    expect(r2(t).status).toBe("error");
    expect(t.steps[0]!.toolCalls[0]!.status).toBe("cancelled");
    expect(fold([ev.ended("completed")], t)).toBe(t);
    expect(fold([ev.token(3, "late")], t)).toBe(t);
  });

  it("returns the same turn for every repeated event", () => {
    const events = [
      ev.token(0, "Hi "),
      ev.call("c1"),
      ev.spawn("r1", "c1"),
      ev.subCall("r1", "c2"),
      ev.subResult("r1", "c2", "x"),
      ev.result("c1", "done"),
    ];
    let t = start;
    for (const event of events) {
      t = applyEvent(t, event);
      expect(applyEvent(t, event)).toBe(t);
    }
  });

  it("ignores events of runs it does not know (a stream joined mid-way)", () => {
    expect(fold([ev.subToken("ghost", 0, "x"), ev.spawn("r9", "c2", "ghost"), ev.completed("ghost", "x")], base)).toBe(base);
  });

  it("keeps only the preview of a tool output: the whole text never enters the turn", () => {
    const t = fold([
      ev.call("c7", 0, "grep"),
      ev.master({ kind: "tool_result", callId: "c7", response: "abc", responseSize: 10, status: "success", fullResponse: "abcdefghij" }),
    ]);
    expect(t.steps[0]!.toolCalls[0]).toStrictEqual({
      callId: "c7",
      name: "grep",
      parameters: "{}",
      response: "abc",
      responseSize: 10,
      status: "success",
    });
  });
});

describe("applyEvent: approvals", () => {
  const decided = { state: "denied", decidedAt: "2026-01-01T00:00:05.000Z", decidedBy: "u1", denyReason: "not that file" } as const;
  const grep = (t: ChatTurn) => r2(fold([ev.subCall("r2", "c4", "file_edit", "{}", "r1")], t)).steps[0]!.toolCalls[0]!;

  it("puts a call at depth 2 in waiting, then records the decision on it", () => {
    const waiting = fold([ev.subCall("r2", "c4", "file_edit", "{}", "r1"), ev.approval("r2", "c4")], base);
    expect(r2(waiting).steps[0]!.toolCalls[0]!.approval).toStrictEqual({
      state: "pending",
      requestedAt: "2026-01-01T00:00:02.000Z",
      reason: "Fix it",
    });
    const denied = applyEvent(waiting, ev.approval("r2", "c4", decided));
    expect(r2(denied).steps[0]!.toolCalls[0]!.approval).toMatchObject({ state: "denied", decidedBy: "u1", denyReason: "not that file" });
    expect(grep(base).approval).toBeUndefined();
  });

  it("keeps the first decision: a replayed pending or a second decision change nothing", () => {
    const denied = fold([ev.subCall("r2", "c4", "file_edit", "{}", "r1"), ev.approval("r2", "c4"), ev.approval("r2", "c4", decided)], base);
    expect(applyEvent(denied, ev.approval("r2", "c4"))).toBe(denied);
    expect(applyEvent(denied, ev.approval("r2", "c4", { state: "approved", decidedBy: "u2" }))).toBe(denied);
  });

  it("a master call waits too, and an approval for an unknown call is ignored", () => {
    const waiting = fold([ev.call("m1", 0, "file_write"), ev.approval(null, "m1")]);
    expect(waiting.steps[0]!.toolCalls[0]!.approval?.state).toBe("pending");
    expect(applyEvent(waiting, ev.approval(null, "nope"))).toBe(waiting);
  });

  it("a turn that ends while an approval waits ends it unanswered", () => {
    const ended = fold([ev.call("m1", 0, "file_write"), ev.approval(null, "m1"), ev.ended("cancelled")]);
    expect(ended.steps[0]!.toolCalls[0]!.approval).toMatchObject({
      state: "cancelled",
      decidedAt: "2026-01-01T00:01:00.000Z",
      note: "The turn ended before anyone answered.",
    });
  });
});
