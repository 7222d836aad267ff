import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentEventSchema, type AgentEvent, type ChatTurn } from "@/lib/contracts";
import { recordedStream } from "@/test/support/turn/recorded-stream";
import { recordedStreamOptions } from "@/test/support/turn/stream-options";
import { applyEvent, newTurn } from "./reduce";
import { eventsOfTurn } from "./turn-events";
import { dataOf } from "@/test/support/turn/agent-data";

/** Import replays a finished turn as events: their fold must give back that very turn. */

function fold(turn: ChatTurn, events: readonly AgentEvent[]): ChatTurn {
  const start = newTurn({ sessionId: turn.sessionId, turnId: turn.turnId, prompt: turn.prompt, createdAt: turn.createdAt });
  return events.slice(1).reduce(applyEvent, start);
}

function finishedTurn(options: Parameters<typeof recordedStream>[0]): ChatTurn {
  const stream = recordedStream(options);
  const start = newTurn({ sessionId: stream.sessionId, turnId: stream.turnId, prompt: stream.prompt, createdAt: stream.createdAt });
  return stream.events.slice(1).reduce(applyEvent, start);
}

describe("eventsOfTurn", () => {
  it("folds back into the same turn: nesting, failures, kills, approvals, steering, hostile text (property)", () => {
    fc.assert(
      fc.property(recordedStreamOptions, (options) => {
        const turn = finishedTurn(options);
        const events = eventsOfTurn(turn);
        for (const event of events) agentEventSchema.parse(event);
        expect(fold(turn, events)).toEqual(turn);
      }),
      { numRuns: 150 },
    );
  });

  it("carries the whole text of a long tool output, and only when it is longer than the preview", () => {
    const turn = finishedTurn({ seed: 3, subagents: 1, nestedToolCalls: 2, masterToolCalls: 1 });
    const master = turn.steps.flatMap((s) => s.toolCalls).find((c) => !c.subagent)!;
    const events = eventsOfTurn(turn, (runId, callId) =>
      runId === null && callId === master.callId ? `${master.response} and much more` : master.response,
    );
    const results = dataOf(events, "tool_result", "master");
    expect(results.find((e) => e.callId === master.callId)).toMatchObject({ fullResponse: `${master.response} and much more` });
    expect(results.filter((e) => e.callId !== master.callId).every((e) => !("fullResponse" in e))).toBe(true);
  });

  it("refuses a turn that is still running", () => {
    const running = newTurn({ sessionId: "s", turnId: "t", prompt: "p", createdAt: "2026-01-01T00:00:00.000Z" });
    expect(() => eventsOfTurn(running)).toThrow(/still running/);
  });
});
