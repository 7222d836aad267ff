import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { NESTED_EVENTS, STATS, ev, finishedProcess } from "@/test/support/turn/event-builders";
import { applyEventToTurn, newTurn } from "./reduce-turn";

const start = newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
const fold = (events: readonly AgentEvent[], turn: ChatTurn = start) => events.reduce(applyEventToTurn, turn);

const base = fold(NESTED_EVENTS);
const r1 = (t: ChatTurn) => t.toolCalls[0]!.subagent!;
const r2 = (t: ChatTurn) => r1(t).toolCalls[1]!.subagent!;

describe("newTurn", () => {
  it("starts running, empty, with zero stats", () => {
    expect(start).toMatchObject({ turnId: "t1", sessionId: "s1", prompt: "hi", response: "", toolCalls: [], status: "running" });
    expect(start.stats.steps).toBe(0);
    expect(start.updatedAt).toBe(start.createdAt);
  });
});

describe("applyEventToTurn", () => {
  const responses: [string, AgentEvent[], string][] = [
    ["in order", [ev.token(0, "ab"), ev.token(2, "cd")], "abcd"],
    ["duplicate", [ev.token(0, "ab"), ev.token(0, "ab")], "ab"],
    ["overlap", [ev.token(0, "abc"), ev.token(1, "bcd")], "abcd"],
    ["gap", [ev.token(0, "ab"), ev.token(4, "x")], "ab"],
    ["another turn", [ev.token(0, "ab", "t2")], ""],
  ];
  it.each(responses)("accumulates the master response by offset: %s", (_name, events, expected) => {
    expect(fold(events).response).toBe(expected);
  });

  it("nests processes in the calls that spawned them, with text offsets for calls", () => {
    expect(base.toolCalls).toHaveLength(1);
    expect(base.toolCalls[0]).toMatchObject({ callId: "c1", textOffset: 3, status: "running" });
    expect(r1(base)).toMatchObject({ runId: "r1", prompt: "Task: look", status: "running", response: "" });
    expect(r1(base).toolCalls.map((c) => c.callId)).toEqual(["c2", "c3"]);
    expect(r2(base)).toMatchObject({ runId: "r2", parentRunId: "r1", depth: 2 });
  });

  it("accumulates a subagent's response and thinking by offset, and its usage as a running total", () => {
    const t = fold(
      [
        ev.subToken("r2", 0, "ab"), ev.subToken("r2", 1, "bc"), ev.subToken("r2", 0, "ab"),
        ev.data("r2", { kind: "thinking", offset: 0, text: "hm" }), ev.data("r2", { kind: "thinking", offset: 2, text: "m" }),
        ev.usage("r2", 2), ev.usage("r2", 1),
      ],
      base,
    );
    expect(r2(t)).toMatchObject({ response: "abc", thinking: "hmm" });
    expect(r2(t).stats).toMatchObject({ steps: 2, chat: { inputTokens: 20, outputTokens: 2 } });
  });

  it("settles a run with its first terminal event", () => {
    const done = fold([ev.subToken("r1", 0, "draft"), ev.completed("r1", "final")], base);
    expect(r1(done)).toMatchObject({ status: "success", response: "final", stats: STATS, endReason: "completed" });
    expect(fold([ev.failed("r1", "late"), ev.subToken("r1", 5, "more")], done)).toBe(done);
    const killed = fold([ev.failed("r1", "Killed by parent", "killed")], base);
    expect(r1(killed)).toMatchObject({ status: "error", error: "Killed by parent", endReason: "killed" });
  });

  it("agent:complete stores the clean response on the call and replaces the process", () => {
    const process = finishedProcess("r1", "The answer");
    const t = fold([ev.complete("c1", process, "[Result] The answer")], base);
    expect(t.toolCalls[0]).toMatchObject({ response: "[Result] The answer", responseSize: 19 });
    expect(t.toolCalls[0]!.subagent).toEqual(process);
    expect(applyEventToTurn(t, ev.complete("c1", process, "[Result] The answer"))).toBe(t);
  });

  it("turn:ended settles status, stats and error once, and closes what still runs", () => {
    const t = fold([ev.usageTurn(), ev.ended("failed", "Hi there", "Model unavailable")], base);
    expect(t).toMatchObject({ status: "failed", response: "Hi there", error: "Model unavailable", stats: STATS, updatedAt: "2026-01-01T00:01:00.000Z" });
    expect(r1(t)).toMatchObject({ status: "error", endReason: "failed" });
    expect(r1(t).toolCalls[0]!.status).toBe("error");
    expect(r2(t).status).toBe("error");
    expect(t.toolCalls[0]!.status).toBe("error");
    expect(fold([ev.ended("completed", "Hi there")], t)).toBe(t);
  });

  it("returns the same turn for every repeated event", () => {
    const events = [ev.token(0, "Hi "), ev.call("c1", 3), ev.spawn("r1", "c1"), ev.subCall("r1", "c2"), ev.subResult("r1", "c2", "x"), ev.result("c1", "done")];
    let t = start;
    for (const event of events) {
      t = applyEventToTurn(t, event);
      expect(applyEventToTurn(t, event)).toBe(t);
    }
  });

  it("ignores events of runs it does not know (a stream joined mid-way)", () => {
    expect(fold([ev.subToken("ghost", 0, "x"), ev.spawn("r9", "c2", "ghost"), ev.completed("ghost", "x")], base)).toBe(base);
  });
});
