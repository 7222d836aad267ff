import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyStats, END_REASONS } from "@/lib/contracts";
import { castNarrative, readNarrative, type NarrativeInput } from "./narrative";

const stats = { ...emptyStats(), chat: { inputTokens: 900, outputTokens: 100 }, steps: 3, runtimeMs: 4200, cost: 0.0125 };
const cast = (input: Partial<NarrativeInput>) =>
  castNarrative({
    label: "explore-abc",
    endReason: "completed",
    level: 1,
    body: "The **answer**.",
    stats,
    originalTokens: 40,
    bodyTokens: 40,
    footer: true,
    ...input,
  });

describe("readNarrative", () => {
  const table: [string, string, Partial<ReturnType<typeof readNarrative>> | null][] = [
    [
      "passthrough with footer",
      cast({}),
      {
        label: "explore-abc",
        status: "Completed",
        condensation: "passthrough",
        level: 1,
        body: "The **answer**.",
        footer: ["Runtime: 4.2s", "Steps: 3", "Tokens: 1000", "Cost: $0.0125"],
      },
    ],
    ["no footer", cast({ footer: false }), { body: "The **answer**.", footer: [] }],
    [
      "condensed, with the ratio line",
      cast({ level: 2, body: "Short.", originalTokens: 9000, bodyTokens: 300 }),
      {
        condensation: "LLM summary",
        level: 2,
        body: "Short.",
        footer: ["Runtime: 4.2s", "Steps: 3", "Tokens: 1000", "Cost: $0.0125", "Original: 9000 tokens", "Ratio: 0.03"],
      },
    ],
    [
      "killed, multi-line error",
      cast({ endReason: "killed", body: "", error: "Killed before\nit finished." }),
      { status: "Killed", error: "Killed before\nit finished.", body: "(no answer)" },
    ],
    [
      "a body with its own rule and footer-like lines",
      cast({ body: "a\n\n---\nRuntime: x | Steps: y | Tokens: z | Cost: w\n\nend" }),
      { body: "a\n\n---\nRuntime: x | Steps: y | Tokens: z | Cost: w\n\nend" },
    ],
    ["plain text", "Just words.", null],
    ["an envelope", '{"success":true,"data":{"response":"x"}}', null],
    ["a forged header without the level line", "[Subagent Result: x]\nStatus: Completed\n\nbody", null],
  ];
  it.each(table)("reads %s", (_name, text, expected) => {
    const read = readNarrative(text);
    if (expected === null) expect(read).toBeNull();
    else expect(read).toMatchObject(expected);
  });

  it("gives back the body castNarrative was given, whatever it holds", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
        fc.constantFrom(...END_REASONS),
        fc.boolean(),
        fc.constantFrom(1, 2, 3) as fc.Arbitrary<1 | 2 | 3>,
        (body, endReason, footer, level) => {
          const read = readNarrative(cast({ body, endReason, footer, level }));
          expect(read?.body).toBe(body.trim());
        },
      ),
    );
  });
});
