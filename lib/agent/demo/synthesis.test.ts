import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/model/types";
import { castNarrative, runLabel } from "../narrative";
import { citeResult, synthesize } from "./synthesis";

type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

const STATS = {
  chat: { inputTokens: 900, outputTokens: 120 },
  system: { inputTokens: 0, outputTokens: 0 },
  steps: 3,
  runtimeMs: 2400,
  cost: 0,
};

/** A subagent's result exactly as its parent's model reads it (its narrative cast). */
function result(
  callId: string,
  name: string,
  runId: string,
  endReason: "completed" | "killed" | "failed",
  body: string,
  error?: string,
): ToolMessage {
  const content = castNarrative({
    label: runLabel(name, runId),
    endReason,
    level: 1,
    body,
    stats: STATS,
    originalTokens: 100,
    bodyTokens: 100,
    footer: true,
    ...(error ? { error } : {}),
  });
  return { role: "tool", toolCallId: callId, toolName: "subagent", content };
}

const BUGS_ANSWER =
  "I found `notes/bug-triage.md`, line 11: “#41 · MLLW predictions too high”.\n\nFrom `notes/bug-triage.md`:\n\n```text\n11: | 41 | MLLW predictions too high |\n```\n\nAlso mentioned in 2 other file(s):\n- `README.md:24` — #41";

describe("the demo's synthesis", () => {
  it.each([
    {
      name: "a completed explore run: its first line, cited by name and task",
      message: result("c1", "explore", "bf177ec4aa", "completed", BUGS_ANSWER),
      call: { agent: "explore", task: "the open bugs" },
      line: "The explore agent on *the open bugs* found `notes/bug-triage.md`, line 11: “#41 · MLLW predictions too high”.",
    },
    {
      name: "a killed run says so, and where to retry it",
      message: result("c2", "explore", "0a1b2c3d", "killed", "", "Killed by the user"),
      call: { agent: "explore", task: "the release plan" },
      line: "The explore agent on *the release plan* ended **Killed** (Killed by the user) before it finished; its panel has what it did and a Retry.",
    },
    {
      name: "a refused call (no run at all)",
      message: {
        role: "tool",
        toolCallId: "c3",
        toolName: "subagent",
        content: "Error [limit]: at most 5 subagents may run at once",
      } as ToolMessage,
      call: { agent: "explore", task: "a sixth thing" },
      line: "The explore agent on *a sixth thing* could not start: at most 5 subagents may run at once",
    },
    {
      name: "a task with markdown in it cannot break the line",
      message: result("c4", "explore", "77aa88bb", "completed", "I found nothing: no file in the workspace mentions x."),
      call: { agent: "explore", task: "the *bold* `code` [link]" },
      line: "The explore agent on *the \\*bold\\* \\`code\\` \\[link\\]* found nothing: no file in the workspace mentions x.",
    },
  ])("$name", ({ message, call, line }) => {
    expect(citeResult(message, call).line).toBe(line);
  });

  it("a delegating general's own citations stay nested under its line", () => {
    const general = result(
      "g1",
      "general",
      "99887766",
      "completed",
      "I split it into 2 parts, one explore agent each:\n\n- The explore agent on *a* found `a.md`.\n- The explore agent on *b* found `b.md`.",
    );
    const text = synthesize([general], new Map([["g1", { agent: "general", task: "a and b" }]]));
    expect(text).toBe(
      [
        "Here is what the general agent found; its full answer and every tool call are in its panel above.",
        "",
        "- The general agent on *a and b* split it into 2 parts, one explore agent each:",
        "  - The explore agent on *a* found `a.md`.",
        "  - The explore agent on *b* found `b.md`.",
        "",
        "Status: 1 Completed.",
      ].join("\n"),
    );
  });

  it("cites every subagent by name, holds no run id, no code block and no pasted response, and counts the outcomes", () => {
    const results = [
      result("c1", "explore", "bf177ec4aa", "completed", BUGS_ANSWER),
      result("c2", "explore", "0a1b2c3d", "killed", "partial"),
    ];
    const text = synthesize(
      results,
      new Map([
        ["c1", { agent: "explore", task: "the open bugs" }],
        ["c2", { agent: "explore", task: "the release plan" }],
      ]),
    );
    expect(text).toContain("The explore agent on *the open bugs*");
    expect(text).toContain("The explore agent on *the release plan*");
    expect(text).not.toMatch(/bf177ec4|0a1b2c3d/);
    expect(text).not.toContain("```");
    expect(text).not.toContain("Also mentioned");
    expect(text).not.toContain("Runtime:");
    expect(text.endsWith("Status: 1 Completed · 1 Killed.")).toBe(true);
  });

  it("without the parent's call it still cites the agent's name, never its run label", () => {
    const text = synthesize([result("lost", "explore", "bf177ec4aa", "completed", BUGS_ANSWER)], new Map());
    expect(text).toContain("- The explore agent found `notes/bug-triage.md`");
    expect(text).not.toContain("bf177ec4");
  });
});
