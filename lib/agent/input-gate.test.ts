import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentData, InputForm, InputRequest } from "@/lib/contracts";
import { CALL_ENDED, InputGate, QUESTION_WITHDRAWN, type InputRequestInput } from "./input-gate";

/**
 * The turn's gate for questions: a question waits until a person answers (accept with
 * fields that fit, or decline), the run stops, the call ends or no one answers in time;
 * each end is published once, a second answer finds nothing, and the watchdogs are held
 * only while it waits.
 */

const form: InputForm = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
  required: ["name"],
};
const NOW = Date.parse("2026-01-01T00:00:00.000Z");

afterEach(() => vi.useRealTimers());

function ask(gate: InputGate, extra: Partial<InputRequestInput> = {}) {
  const published: { index: number; input: InputRequest }[] = [];
  const controller = new AbortController();
  let held = 0;
  const answer = gate.ask({
    emit: (data: AgentData) => {
      if (data.kind === "input") published.push({ index: data.index, input: data.input });
    },
    runId: "r1",
    callId: "c1",
    message: "Who are you?",
    form,
    signal: controller.signal,
    onWait: () => {
      held++;
      return () => held--;
    },
    ...extra,
  });
  return { answer, published, controller, held: () => held };
}

const gate = (timeoutMs = 60_000) => new InputGate({ timeoutMs, now: () => NOW });

describe("InputGate", () => {
  it("publishes the question, waits with the watchdogs held, and resolves with the accepted fields", async () => {
    const g = gate();
    const asked = ask(g);
    expect(asked.published).toEqual([
      { index: 0, input: { state: "pending", requestedAt: "2026-01-01T00:00:00.000Z", message: "Who are you?", form } },
    ]);
    expect(asked.held()).toBe(1);
    expect(g.answer("c1", "r1", { action: "accept", content: { name: "Ada", age: 36 }, by: "u1" })).toEqual({ ok: true });
    await expect(asked.answer).resolves.toEqual({ action: "accept", content: { name: "Ada", age: 36 } });
    expect(asked.held()).toBe(0);
    expect(asked.published[1]).toEqual({
      index: 0,
      input: {
        ...asked.published[0]!.input,
        state: "accepted",
        answeredAt: "2026-01-01T00:00:00.000Z",
        answeredBy: "u1",
        content: { name: "Ada", age: 36 },
      },
    });
  });

  it("refuses an answer that does not fit the form and keeps the question waiting", async () => {
    const g = gate();
    const asked = ask(g);
    expect(g.answer("c1", "r1", { action: "accept", content: { age: "old" }, by: "u1" })).toEqual({
      ok: false,
      code: "bad_request",
      message: "The answer does not fit the form: name is required; age must be a number.",
    });
    expect(asked.published).toHaveLength(1);
    expect(g.answer("c1", "r1", { action: "decline", by: "u1" })).toEqual({ ok: true });
    await expect(asked.answer).resolves.toEqual({ action: "decline" });
    expect(asked.published[1]!.input).toMatchObject({ state: "declined", answeredBy: "u1" });
  });

  it("finds nothing for a second answer, a forged call id or another run's call", async () => {
    const g = gate();
    const asked = ask(g);
    expect(g.answer("c1", "r2", { action: "decline", by: "u1" })).toMatchObject({ ok: false });
    expect(g.answer("forged", undefined, { action: "decline", by: "u1" })).toEqual({
      ok: false,
      message: "No question is waiting for an answer on call forged.",
    });
    expect(g.answer("c1", undefined, { action: "decline", by: "u1" })).toEqual({ ok: true });
    expect(g.answer("c1", undefined, { action: "accept", content: { name: "late" }, by: "u2" })).toMatchObject({ ok: false });
    await asked.answer;
    expect(asked.published.map((p) => p.input.state)).toEqual(["pending", "declined"]);
  });

  it("cancels the question when the run stops, and says why when the call ended or the tool withdrew it", async () => {
    for (const [reason, note] of [
      ["killed", "The run stopped before anyone answered."],
      [CALL_ENDED, "The call ended before anyone answered."],
      [QUESTION_WITHDRAWN, "The tool withdrew the question before anyone answered."],
    ] as const) {
      const g = gate();
      const asked = ask(g);
      asked.controller.abort(reason);
      await expect(asked.answer).resolves.toEqual({ action: "cancel" });
      expect(asked.published[1]!.input).toMatchObject({ state: "cancelled", note });
      expect(asked.held()).toBe(0);
      expect(g.answer("c1", "r1", { action: "decline", by: "u1" })).toMatchObject({ ok: false });
    }
  });

  it("expires after the approval timeout and the tool reads it as cancelled", async () => {
    vi.useFakeTimers();
    const g = gate(120_000);
    const asked = ask(g);
    vi.advanceTimersByTime(120_000);
    await expect(asked.answer).resolves.toEqual({ action: "cancel" });
    expect(asked.published[1]!.input).toMatchObject({ state: "expired", note: "No one answered within 2 min." });
  });

  it("numbers a call's questions in the order they are asked", async () => {
    const g = gate();
    const first = ask(g);
    g.answer("c1", "r1", { action: "decline", by: "u1" });
    await first.answer;
    const second = ask(g);
    expect(second.published[0]!.index).toBe(1);
    g.answer("c1", "r1", { action: "accept", content: { name: "Ada" }, by: "u1" });
    await expect(second.answer).resolves.toEqual({ action: "accept", content: { name: "Ada" } });
  });
});
