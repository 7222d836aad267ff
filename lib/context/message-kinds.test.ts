import { describe, expect, it } from "vitest";
import { STEER_TAG } from "@/lib/agent/agent-loop";
import type { ModelMessage } from "@/lib/contracts";
import { DROPPED_TOOL_OUTPUT, OBJECTIVE_TAG, SUMMARY_TAG } from "./compact";
import { classifyMessages, tokensByKind } from "./message-kinds";

describe("classifyMessages", () => {
  it("tells apart what the runtime put into a request by the tags it writes", () => {
    const messages: ModelMessage[] = [
      { role: "system", content: "You are an explore agent." },
      { role: "system", content: `${SUMMARY_TAG}\nEarlier: files were listed.` },
      { role: "user", content: `${OBJECTIVE_TAG}\nKeep going: find the date.` },
      { role: "user", content: "Find the ship date." },
      { role: "assistant", content: "Reading.", toolCalls: [{ id: "c1", name: "file_read", arguments: "{}" }] },
      { role: "tool", content: "May 3", toolCallId: "c1", toolName: "file_read" },
      { role: "tool", content: DROPPED_TOOL_OUTPUT, toolCallId: "c0", toolName: "grep" },
      { role: "user", content: `${STEER_TAG}\nLook in docs/ too.` },
      { role: "assistant", content: "", toolCalls: [{ id: "s1", name: "subagent", arguments: "{}" }] },
      { role: "tool", content: "[Subagent Result: explore-1]\nStatus: Completed", toolCallId: "s1", toolName: "subagent" },
      { role: "assistant", content: "It ships on May 3." },
      { role: "user", content: "thanks" },
    ];
    const kinds = classifyMessages(messages, true).map((e) => e.kind);
    expect(kinds).toEqual([
      "system",
      "summary",
      "objective",
      "task",
      "tool_calls",
      "tool_result",
      "dropped_output",
      "steering",
      "tool_calls",
      "subagent_result",
      "answer",
      "prompt",
    ]);
    // For the master, the first user message is a prompt like any other.
    expect(classifyMessages(messages, false)[3]!.kind).toBe("prompt");
  });

  it("sums tokens per kind, largest first", () => {
    const entries = classifyMessages(
      [
        { role: "user", content: "x".repeat(400) },
        { role: "tool", content: "y".repeat(4_000), toolCallId: "a", toolName: "subagent" },
        { role: "tool", content: "z".repeat(40), toolCallId: "b", toolName: "subagent" },
      ],
      false,
    );
    const totals = tokensByKind(entries);
    expect(totals.map((t) => [t.kind, t.count])).toEqual([
      ["subagent_result", 2],
      ["prompt", 1],
    ]);
    expect(totals[0]!.tokens).toBeGreaterThan(1_000);
  });
});
