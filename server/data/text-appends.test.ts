import { describe, expect, it } from "vitest";
import { emptyStoredTexts, planAppends, safeEnd, type StoredTexts } from "./text-appends";

const options = { textId: (i: number, field: string) => `t:${i}:${field}`, inlineBudget: 10, chunkChars: 4, final: false };
const step = (text: string, thinking = "") => ({ text, thinking });

/** What a document holds after applying plans, as assemble-turn.ts reads it back. */
function apply(plans: NonNullable<ReturnType<typeof planAppends>>[]): { text: string[]; chunks: Map<string, string> } {
  const text: string[] = [];
  const chunks = new Map<string, string>();
  for (const plan of plans) {
    for (const [key, value] of Object.entries(plan.set)) text[Number(key.split(".")[1])] = value.text;
    for (const [key, value] of Object.entries(plan.push)) if (key.endsWith("textParts")) text[Number(key.split(".")[1])] += value;
    for (const c of plan.chunks) chunks.set(c.textId, (chunks.get(c.textId) ?? "") + c.data);
  }
  return { text, chunks };
}

describe("planAppends", () => {
  it("sends only what grew: new steps set whole, later text pushed", () => {
    const first = planAppends(emptyStoredTexts(), [step("ab")], options)!;
    expect(first.set).toEqual({ "steps.0": { text: "ab", thinking: "" } });
    const second = planAppends(first.next, [step("abcd"), step("x")], options)!;
    expect(second.push).toEqual({ "steps.0.textParts": "cd" });
    expect(second.set).toEqual({ "steps.1": { text: "x", thinking: "" } });
    expect(planAppends(second.next, [step("abcd"), step("x")], options)).toBeUndefined();
  });

  it("spills past the document's inline budget into chunks keyed by offset, and keeps the rest of that text there", () => {
    const a = planAppends(emptyStoredTexts(), [step("0123456")], options)!;
    const b = planAppends(a.next, [step("0123456789abcdefg")], options)!;
    expect(b.push).toEqual({ "steps.0.textParts": "789" });
    expect(b.chunks).toEqual([
      { textId: "t:0:text", offset: 10, data: "abcd" },
      { textId: "t:0:text", offset: 14, data: "efg" },
    ]);
    expect(b.inc).toEqual({ "steps.0.textChunks": 2 });
    const c = planAppends(b.next, [step("0123456789abcdefgh", "xy")], options)!;
    // The text has spilled: its next piece follows its chunks; the budget is spent for the reasoning too.
    expect(c.chunks).toEqual([
      { textId: "t:0:text", offset: 17, data: "h" },
      { textId: "t:0:thinking", offset: 0, data: "xy" },
    ]);
    const held = apply([a, b, c]);
    expect(held.text[0]! + held.chunks.get("t:0:text")).toBe("0123456789abcdefgh");
  });

  it("holds back half a surrogate pair until its other half streams, or the write is the last", () => {
    const half = "ab\uD83D";
    const a = planAppends(emptyStoredTexts(), [step(half)], options)!;
    expect(a.set["steps.0"]!.text).toBe("ab");
    const b = planAppends(a.next, [step(`${half}\uDE00`)], options)!;
    expect(b.push).toEqual({ "steps.0.textParts": "\uD83D\uDE00" });
    const lone: StoredTexts = a.next;
    expect(planAppends(lone, [step(half)], { ...options, final: true })!.push).toEqual({ "steps.0.textParts": "\uD83D" });
  });

  it.each([
    ["a pair at the cut", "a\uD83D\uDE00b", 2, 1],
    ["a plain cut", "abcd", 2, 2],
    ["the end", "ab", 2, 2],
    ["nothing", "ab", 0, 0],
  ])("safeEnd: %s", (_, value, end, expected) => {
    expect(safeEnd(value, end)).toBe(expected);
  });
});
