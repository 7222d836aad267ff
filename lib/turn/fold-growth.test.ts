import { describe, expect, it } from "vitest";
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

/** Microseconds per call of the fastest of a few folds of `events` (the fastest: least disturbed by other work). */
function microsPerCall(events: readonly AgentEvent[], calls: number): number {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const began = performance.now();
    const turn = events.reduce(applyEvent, start());
    best = Math.min(best, performance.now() - began);
    expect(turn.steps[0]!.toolCalls).toHaveLength(calls);
  }
  return (best * 1000) / calls;
}

describe("folding one step of many tool calls", () => {
  it("costs about the same per call at 10·N calls as at N (linear growth)", () => {
    const n = 500;
    const small = callEvents(n);
    const large = callEvents(10 * n);
    microsPerCall(large, 10 * n); // warm-up: both sizes compiled and optimised before measuring
    const atN = microsPerCall(small, n);
    const atTenN = microsPerCall(large, 10 * n);
    expect(atTenN, `${atN.toFixed(2)} µs per call at ${n}, ${atTenN.toFixed(2)} µs at ${10 * n}`).toBeLessThanOrEqual(4 * atN);
  });

  it("still finds each call by id: a result lands on its call, a repeated call changes nothing", () => {
    const events = callEvents(1_000);
    const turn = events.reduce(applyEvent, start());
    expect(turn.steps[0]!.toolCalls.every((c, i) => c.callId === `c${i}` && c.status === "success")).toBe(true);
    expect(events.reduce(applyEvent, turn)).toBe(turn);
  });
});
