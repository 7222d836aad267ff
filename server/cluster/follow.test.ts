import { describe, expect, it } from "vitest";
import { followStep } from "./follow";

describe("following another process's chat events", () => {
  it.each([
    { state: { seq: 10, running: true }, event: { seq: 10, type: "turn:data" }, step: "skip", why: "a duplicate" },
    { state: { seq: 10, running: true }, event: { seq: 3, type: "turn:started" }, step: "skip", why: "an old start" },
    { state: { seq: 10, running: true }, event: { seq: 11, type: "turn:data" }, step: "apply", why: "the next event" },
    { state: { seq: 10, running: false }, event: { seq: 11, type: "turn:started" }, step: "apply", why: "the next turn, numbered on" },
    {
      state: { seq: 10, running: false },
      event: { seq: 5_000_001, type: "turn:started" },
      step: "jump",
      why: "a turn started by a process with its own numbers",
    },
    {
      state: { seq: 10, running: true },
      event: { seq: 5_000_001, type: "turn:started" },
      step: "gap",
      why: "a new turn while ours never ended: its end was lost",
    },
    { state: { seq: 10, running: true }, event: { seq: 12, type: "turn:data" }, step: "gap", why: "one event lost" },
    { state: { seq: 10, running: false }, event: { seq: 40, type: "turn:ended" }, step: "gap", why: "a whole turn start lost" },
  ] as const)("$why → $step", ({ state, event, step }) => {
    expect(followStep(state, event)).toBe(step);
  });
});
