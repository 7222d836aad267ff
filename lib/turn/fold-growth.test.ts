import { describe, expect, it, vi } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { ev } from "@/test/support/turn/event-builders";
import { applyEvent, newTurn } from "./reduce";

/**
 * A model reply may hold many tool calls in one step, and each call is two events (the
 * call, then its result). Folding them must grow linearly: a per-event scan or copy of the
 * step's call list makes the fold quadratic and stalls the event loop on a large reply.
 */

const callEvents = (n: number): AgentEvent[] =>
  Array.from({ length: n }, (_, i) => [
    ev.master({ kind: "tool_call", step: 0, callId: `c${i}`, name: "grep", parameters: "{}" }),
    ev.master({ kind: "tool_result", callId: `c${i}`, response: "ok", responseSize: 2, status: "success" }),
  ]).flat();

const start = (): ChatTurn => newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });

describe("folding one step of many tool calls", () => {
  // Counted, not timed: the work a scan would do is what grows with the step, and a count
  // does not depend on the machine's speed. What is left per event is one copy of the
  // step's call list, bounded by the calls a reply may make (MAX_TOOL_CALLS_PER_REPLY).
  it("places each call's result by an index, without scanning the step's calls", () => {
    const calls = 5_000;
    const events = callEvents(calls);
    const findIndex = vi.spyOn(Array.prototype, "findIndex");
    let scanned = 0;
    try {
      const turn = events.reduce((t, event) => {
        const next = applyEvent(t, event);
        scanned += findIndex.mock.contexts.filter((list) => Array.isArray(list) && list.length > 1).length;
        findIndex.mockClear();
        return next;
      }, start());
      expect(turn.steps[0]!.toolCalls).toHaveLength(calls);
    } finally {
      findIndex.mockRestore();
    }
    expect(scanned).toBe(0);
  });

  it("still finds each call by id: a result lands on its call, a repeated call changes nothing", () => {
    const events = callEvents(1_000);
    const turn = events.reduce(applyEvent, start());
    expect(turn.steps[0]!.toolCalls.every((c, i) => c.callId === `c${i}` && c.status === "success")).toBe(true);
    expect(events.reduce(applyEvent, turn)).toBe(turn);
  });
});
