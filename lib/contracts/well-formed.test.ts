import { describe, expect, it } from "vitest";
import { wellFormed, wellFormedDeep } from "./well-formed";

describe("wellFormed", () => {
  it.each([
    ["plain", "plain"],
    ["a\u0000b", "a\uFFFDb"],
    ["\uD800", "\uFFFD"],
    ["x\uDC00", "x\uFFFD"],
    ["\uDBFF\u0000", "\uFFFD\uFFFD"],
    ["🧪 é", "🧪 é"],
  ])("%j becomes %j, one code unit for one", (input, output) => {
    expect(wellFormed(input)).toBe(output);
    expect(wellFormed(input)).toHaveLength(input.length);
  });
});

describe("wellFormedDeep", () => {
  it("normalises every string of an event and copies only what changed", () => {
    const untouched = { kind: "usage", stats: { steps: 1 } };
    const event = { type: "subagent_started", task: "a\u0000", tags: ["ok", "\uD800"], nested: untouched, n: 3, none: null };
    const formed = wellFormedDeep(event);
    expect(formed).toEqual({ ...event, task: "a\uFFFD", tags: ["ok", "\uFFFD"] });
    expect(formed.nested).toBe(untouched);
    expect(event.task).toBe("a\u0000");
    const clean = { type: "turn:data", data: { text: "fine" } };
    expect(wellFormedDeep(clean)).toBe(clean);
  });
});
