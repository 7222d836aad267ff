import { describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { ev } from "@/test/support/turn/event-builders";
import { applyEvent, newTurn } from "./reduce";

/**
 * The cost of one event must not grow with the length of the text. Measured without a
 * clock: count the objects an event creates (everything else is reused, ===) on turns
 * whose text is 1,000 vs 100,000 characters — the counts must be identical and small,
 * and every text string off the path must be the very same string.
 */

function turnWithText(chars: number): ChatTurn {
  const chunk = "x".repeat(100);
  const events: AgentEvent[] = [];
  const write = (step: number, n: number) => {
    for (let i = 0, offset = 0; i < n / 100; i++, offset += 100) events.push(ev.token(offset, chunk, step));
  };
  write(0, chars / 2);
  events.push(ev.call("c1"), ev.spawn("r1", "c1"), ev.subCall("r1", "c2", "subagent"), ev.spawn("r2", "c2", "r1"));
  events.push(ev.call("c3", 0, "grep"), ev.result("c3", "y".repeat(5000)));
  write(1, chars / 2);
  events.push(ev.subToken("r1", 0, "z".repeat(chars)));
  const start = newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
  return events.reduce(applyEvent, start);
}

function objectsOf(root: unknown, into = new Set<object>()): Set<object> {
  if (typeof root !== "object" || root === null || into.has(root)) return into;
  into.add(root);
  for (const value of Object.values(root)) objectsOf(value, into);
  return into;
}

function newObjects(before: ChatTurn, after: ChatTurn): number {
  const old = objectsOf(before);
  return [...objectsOf(after)].filter((o) => !old.has(o)).length;
}

const cases: [string, (turn: ChatTurn) => AgentEvent][] = [
  ["master token", (turn) => ev.token(turn.steps[1]!.text.length, "next ", 1)],
  ["subagent token", (turn) => ev.subToken("r1", turn.steps[1]!.text.length * 2, "more")],
  ["grandchild token", () => ev.subToken("r2", 0, "deep")],
  ["nested tool call", () => ev.subCall("r2", "c9")],
  ["master tool result", () => ev.result("c3", "done")],
];

describe("per-event cost does not grow with text length (structural sharing)", () => {
  it.each(cases)("%s creates the same small number of objects at 1,000 and 100,000 characters", (_name, event) => {
    const counts = [1_000, 100_000].map((chars) => {
      const turn = turnWithText(chars);
      const next = applyEvent(turn, event(turn));
      expect(next).not.toBe(turn);
      return newObjects(turn, next);
    });
    expect(counts[0]).toBe(counts[1]);
    // Five objects per level (call, call list, step, step list, owner) on the path, nothing else.
    expect(counts[0]).toBeLessThanOrEqual(16);
  });

  it("a subagent token reuses every master step and every node off its path", () => {
    const turn = turnWithText(100_000);
    const next = applyEvent(turn, ev.subToken("r1", 100_000, "more"));
    expect(next.steps[1]).toBe(turn.steps[1]);
    expect(next.steps[0]!.text).toBe(turn.steps[0]!.text);
    expect(next.steps[0]!.toolCalls[1]).toBe(turn.steps[0]!.toolCalls[1]);
    const [before, after] = [turn.steps[0]!.toolCalls[0]!.subagent!, next.steps[0]!.toolCalls[0]!.subagent!];
    expect(after.steps[0]!.toolCalls).toBe(before.steps[0]!.toolCalls);
    expect(after.steps[0]!.text).toBe(`${"z".repeat(100_000)}more`);
  });

  it("a master token copies only the step list and its own step", () => {
    const turn = turnWithText(100_000);
    const next = applyEvent(turn, ev.token(50_000, "!", 1));
    expect(next.steps[0]).toBe(turn.steps[0]);
    expect(next.steps[1]).toStrictEqual({ text: `${"x".repeat(50_000)}!`, thinking: "", toolCalls: [] });
  });
});
