import { describe, expect, it } from "vitest";
import { emptyStats } from "@/lib/contracts";
import { estimateTokens } from "@/lib/context/tokens";
import { ModelError } from "@/lib/model/types";
import { CONDENSE_SYSTEM_PROMPT, condenseResult, truncateHeadTail } from "./condense";
import { castNarrative, runLabel } from "./narrative";
import { scriptedModel } from "@/test/support/agent/scripted-model";

const long = Array.from({ length: 400 }, (_, i) => `line ${i}: finding number ${i}`).join("\n");

describe("condenseResult", () => {
  it("level 1: passes a result under the threshold through unchanged, without a model call", async () => {
    const model = scriptedModel(() => ({ text: "should not be called" }));
    const result = await condenseResult({ text: "short answer", maxResultTokens: 100, model });
    expect(result).toMatchObject({ body: "short answer", level: 1, usage: { inputTokens: 0, outputTokens: 0 } });
    expect(model.requests).toHaveLength(0);
  });

  it("level 2: asks the system model for structured JSON and renders it", async () => {
    const model = scriptedModel(() => ({
      text: '```json\n{"summary":"Two bugs block the release.","conclusions":["BUG-7 is critical"],"filePaths":["bugs.md"],"keyData":["ship date May 3"]}\n```',
      usage: { inputTokens: 900, outputTokens: 40 },
    }));
    const result = await condenseResult({ text: long, maxResultTokens: 200, model });
    expect(model.requests[0]!.messages[0]).toEqual({ role: "system", content: CONDENSE_SYSTEM_PROMPT });
    expect(model.requests[0]!.messages[1]!.content).toContain("line 399: finding number 399");
    expect(result.level).toBe(2);
    expect(result.body).toBe(
      "Summary: Two bugs block the release.\n\nConclusions:\n- BUG-7 is critical\n\nKey Data:\n- ship date May 3\n\nFile Paths:\n- bugs.md",
    );
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 40 });
    expect(result.originalTokens).toBe(estimateTokens(long));
  });

  it("level 3: falls back to 60% head / 40% tail with an omission marker when the model fails", async () => {
    const model = scriptedModel(() => ({ error: new ModelError("server_error", "down") }));
    const result = await condenseResult({ text: long, maxResultTokens: 200, model });
    expect(result.level).toBe(3);
    expect(result.body.startsWith("line 0: finding number 0")).toBe(true);
    expect(result.body.endsWith("line 399: finding number 399")).toBe(true);
    expect(result.body).toMatch(/\n\n\[\.\.\. \d+ tokens omitted \.\.\.\]\n\n/);
    expect(result.bodyTokens).toBeLessThanOrEqual(200);
    const [head, tail] = result.body.split(/\n\n\[\.\.\. \d+ tokens omitted \.\.\.\]\n\n/);
    expect(head!.length / (head!.length + tail!.length)).toBeCloseTo(0.6, 1);
  });

  it("level 3 also when no model is available or its summary overshoots the budget", async () => {
    expect((await condenseResult({ text: long, maxResultTokens: 200 })).level).toBe(3);
    const verbose = scriptedModel(() => ({ text: long }));
    expect((await condenseResult({ text: long, maxResultTokens: 200, model: verbose })).level).toBe(3);
  });

  it("truncateHeadTail leaves text that fits alone", () => {
    expect(truncateHeadTail("abc", 100)).toBe("abc");
  });
});

describe("castNarrative", () => {
  const stats = {
    ...emptyStats(),
    chat: { inputTokens: 6000, outputTokens: 150 },
    system: { inputTokens: 40, outputTokens: 10 },
    steps: 4,
    runtimeMs: 1234,
  };
  it.each([
    [
      "completed passthrough",
      { endReason: "completed" as const, level: 1 as const, error: undefined },
      "[Subagent Result: explore-abc]\nStatus: Completed\nCondensation: Level 1 (passthrough)\n\nBODY\n\n---\nRuntime: 1.2s | Steps: 4 | Tokens: 6200 | Cost: $0.0000",
    ],
    [
      "killed with error, condensed",
      { endReason: "killed" as const, level: 2 as const, error: "Killed before it finished." },
      "[Subagent Result: explore-abc]\nStatus: Killed\nError: Killed before it finished.\nCondensation: Level 2 (LLM summary)\n\nBODY\n\n---\nRuntime: 1.2s | Steps: 4 | Tokens: 6200 | Cost: $0.0000\nCondensation: Level 2 | Original: 1000 tokens | Ratio: 0.25",
    ],
  ])("%s", (_, input, expected) => {
    expect(
      castNarrative({ label: "explore-abc", body: "BODY", stats, originalTokens: 1000, bodyTokens: 250, footer: true, ...input }),
    ).toBe(expected);
  });

  it("leaves the stats footer out when it is switched off (RESULT_FOOTER=false)", () => {
    const input = {
      label: "explore-abc",
      body: "BODY",
      stats,
      originalTokens: 1000,
      bodyTokens: 250,
      endReason: "completed" as const,
      level: 2 as const,
    };
    expect(castNarrative({ ...input, footer: false })).toBe(
      "[Subagent Result: explore-abc]\nStatus: Completed\nCondensation: Level 2 (LLM summary)\n\nBODY",
    );
  });

  it("labels runs by definition name and the start of the run id", () => {
    expect(runLabel("explore", "3f2a9c1e-77aa-4b1c")).toBe("explore-3f2a9c1e");
  });
});
