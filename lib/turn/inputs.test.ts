import { describe, expect, it } from "vitest";
import type { AgentData, AgentEvent, ChatTurn, InputRequest } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import { parseTurnMarkup } from "@/test/support/markup/parse";
import { ev } from "@/test/support/turn/event-builders";
import { eventsOfTurn } from "./turn-events";
import { applyEvent, newTurn } from "./reduce";

/**
 * A tool call's questions in the one turn shape: folded in order onto the call, each from
 * pending to one end and never back (replays and second answers change nothing), ended
 * with the turn when nobody answered, and carried whole by the replay events and the
 * markup.
 */

const start = newTurn({ sessionId: "s1", turnId: "t1", prompt: "hi", createdAt: "2026-01-01T00:00:00.000Z" });
const fold = (events: readonly AgentEvent[], turn: ChatTurn = start) => events.reduce(applyEvent, turn);

const pending: InputRequest = {
  state: "pending",
  requestedAt: "2026-01-01T00:00:02.000Z",
  message: "Which size?",
  form: { type: "object", properties: { size: { type: "string", enum: ["s", "m"] } }, required: ["size"] },
};
const accepted: InputRequest = {
  ...pending,
  state: "accepted",
  answeredAt: "2026-01-01T00:00:05.000Z",
  answeredBy: "u1",
  content: { size: "m" },
};
const declined: InputRequest = { ...pending, state: "declined", answeredAt: "2026-01-01T00:00:05.000Z", answeredBy: "u2" };

const input = (runId: string | null, callId: string, index: number, request: InputRequest): AgentEvent => {
  const data: AgentData = { kind: "input", callId, index, input: request };
  return runId === null ? ev.master(data) : ev.data(runId, data);
};

const asked = fold([ev.call("c1"), input(null, "c1", 0, pending)]);
const inputsOf = (turn: ChatTurn) => turn.steps[0]!.toolCalls[0]!.inputs;

describe("a call's questions in the reducer", () => {
  it("puts the question on the call, then its answer", () => {
    expect(inputsOf(asked)).toEqual([pending]);
    expect(inputsOf(fold([input(null, "c1", 0, accepted)], asked))).toEqual([accepted]);
  });

  it("keeps the first answer: a second answer or a replayed pending changes nothing", () => {
    const answered = fold([input(null, "c1", 0, accepted)], asked);
    expect(fold([input(null, "c1", 0, declined), input(null, "c1", 0, pending)], answered)).toBe(answered);
    expect(fold([input(null, "c1", 0, pending)], asked)).toBe(asked);
  });

  it("keeps questions in order and ignores one whose place is not reached", () => {
    const second = { ...pending, message: "And the colour?" };
    const both = fold([input(null, "c1", 0, declined), input(null, "c1", 1, second)], asked);
    expect(inputsOf(both)!.map((i) => i.message)).toEqual(["Which size?", "And the colour?"]);
    expect(fold([input(null, "c1", 3, second)], asked)).toBe(asked);
    expect(fold([input(null, "nope", 0, pending)], asked)).toBe(asked);
  });

  it("ends a question still waiting when the turn ends, with the turn's note", () => {
    const ended = fold([ev.ended("cancelled")], asked);
    expect(inputsOf(ended)).toEqual([
      { ...pending, state: "cancelled", answeredAt: "2026-01-01T00:01:00.000Z", note: "The turn ended before anyone answered." },
    ]);
    expect(ended.steps[0]!.toolCalls[0]!.status).toBe("cancelled");
  });

  it("travels whole through the replay events and the markup", () => {
    const turn = fold([input(null, "c1", 0, accepted), input(null, "c1", 1, pending), ev.ended("completed")], asked);
    expect(fold(eventsOfTurn(turn))).toEqual(turn);
    expect(parseTurnMarkup(serializeTurn(turn))).toEqual(turn);
  });
});
