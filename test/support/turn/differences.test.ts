import { describe, expect, it } from "vitest";
import { differences } from "./differences";

describe("differences", () => {
  it("names the paths where two histories differ, and nothing when they are equal", () => {
    const live = [{ turnId: "t1", steps: [{ text: "a", toolCalls: [{ callId: "c1" }, { callId: "c2" }] }] }];
    const stored = [{ turnId: "t1", steps: [{ text: "a", toolCalls: [{ callId: "c1" }] }] }];
    expect(differences(stored, live)).toEqual(["0.steps.0.toolCalls: 1 vs 2 items"]);
    expect(differences(live, structuredClone(live))).toEqual([]);
    expect(differences({ a: 1, b: undefined }, { a: 2 })).toEqual(["a: 1 vs 2"]);
    expect(differences({ a: "x".repeat(100) }, {})[0]).toMatch(/^a: "x+… vs absent$/);
  });
});
