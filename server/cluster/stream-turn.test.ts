import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { foldTurnFromEvents } from "./stream-turn";

const S = "chat-1";
const at = "2026-12-01T10:00:00.000Z";
const ev = (seq: number, event: Record<string, unknown>) => ({ ...event, sessionId: S, seq }) as unknown as SessionEvent;

describe("a dead owner's turn, rebuilt from its chat's event stream", () => {
  const events = [
    ev(1, { type: "turn:started", turnId: "t0", prompt: "old", createdAt: at }),
    ev(2, {
      type: "turn:ended",
      turnId: "t0",
      status: "completed",
      stats: { inputTokens: 0, outputTokens: 0, durationMs: 1, toolCalls: 0, subagents: 0 },
      endedAt: at,
    }),
    ev(3, { type: "turn:started", turnId: "t1", prompt: "find the bug", createdAt: at }),
    ev(4, { type: "turn:data", turnId: "t1", runId: null, data: { kind: "token", step: 0, offset: 0, text: "Looking" } }),
    ev(5, { type: "turn:data", turnId: "t1", runId: null, data: { kind: "token", step: 0, offset: 7, text: " at it" } }),
    // Read twice (a resync re-read the stream): folded once.
    ev(5, { type: "turn:data", turnId: "t1", runId: null, data: { kind: "token", step: 0, offset: 7, text: " at it" } }),
    ev(6, { type: "turn:data", turnId: "t1", runId: null, data: { kind: "token", step: 0, offset: 13, text: "…" } }),
  ];

  it("holds every token the owner relayed, once, and the chat's last number", () => {
    const rebuilt = foldTurnFromEvents(events, S, "t1");
    expect(rebuilt?.turn.status).toBe("running");
    expect(rebuilt?.turn.prompt).toBe("find the bug");
    expect(rebuilt?.turn.steps[0]?.text).toBe("Looking at it…");
    expect(rebuilt?.seq).toBe(6);
  });

  it("is null when the stream no longer starts at the turn (trimmed or restarted Redis)", () => {
    expect(foldTurnFromEvents(events.slice(3), S, "t1")).toBeNull();
    expect(foldTurnFromEvents([], S, "t1")).toBeNull();
  });
});
