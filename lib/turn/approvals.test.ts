import { describe, expect, it } from "vitest";
import type { ChatTurn } from "@/lib/contracts";
import { NESTED_EVENTS, ev } from "@/test/support/turn/event-builders";
import { pendingApprovals, pendingInputs, waitsForAnswer, waitsForApproval } from "./approvals";
import { applyEvent, newTurn } from "./reduce";

const start = newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
const waiting = [...NESTED_EVENTS, ev.subCall("r2", "c4", "file_edit", "{}", "r1"), ev.approval("r2", "c4")].reduce(applyEvent, start);
const r1 = (t: ChatTurn) => t.steps[0]!.toolCalls[0]!.subagent!;

describe("questions waiting in a turn", () => {
  const form = { type: "object" as const, properties: { size: { type: "string" as const } } };
  const asked = { state: "pending" as const, requestedAt: "2026-01-01T00:00:02.000Z", message: "Which size?", form };
  const input = (state: "pending" | "declined") =>
    ev.data("r2", { kind: "input", callId: "c4", index: 0, input: { ...asked, state } }, "r1");
  const asking = [...NESTED_EVENTS, ev.subCall("r2", "c4", "shop.order", "{}", "r1"), input("pending")].reduce(applyEvent, start);

  it("finds a question at depth 2 with the runs that lead to it, and marks every panel above it, until it is answered", () => {
    expect(pendingInputs([asking])).toEqual([
      { turnId: "t1", callId: "c4", name: "shop.order", runId: "r2", agent: "researcher", runPath: ["r1", "r2"] },
    ]);
    expect(pendingApprovals([asking])).toEqual([]);
    expect(waitsForAnswer(r1(asking))).toBe(true);
    const answered = applyEvent(asking, input("declined"));
    expect(pendingInputs([answered])).toEqual([]);
    expect(waitsForAnswer(r1(answered))).toBe(false);
  });
});

describe("pending approvals in a turn", () => {
  it("finds a depth-2 approval with the runs that lead to it, and marks every panel above it", () => {
    expect(pendingApprovals([waiting])).toEqual([
      { turnId: "t1", callId: "c4", name: "file_edit", runId: "r2", agent: "researcher", runPath: ["r1", "r2"] },
    ]);
    expect(waitsForApproval(r1(waiting))).toBe(true);
  });

  it("forgets it once it is decided, or once the turn ended", () => {
    const decided = applyEvent(
      waiting,
      ev.approval("r2", "c4", { state: "approved", decidedAt: "2026-01-01T00:00:03.000Z", decidedBy: "u1" }),
    );
    expect(pendingApprovals([decided])).toEqual([]);
    expect(waitsForApproval(r1(decided))).toBe(false);
    expect(pendingApprovals([applyEvent(waiting, ev.ended("failed"))])).toEqual([]);
  });
});
