import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/model/types";
import { DROPPED_TOOL_OUTPUT, OBJECTIVE_TAG, SUMMARY_TAG, compactMessages, reinforceObjective } from "./compact";
import { estimateRequestTokens } from "./tokens";
import { contentText } from "@/lib/model/content";

const big = (label: string) => `${label} ${"lorem ipsum ".repeat(200)}`;

/** system, then n old turns each with a tool call, then the current prompt. */
function conversation(n: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: "You are helpful." }];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `question ${i}` });
    messages.push({ role: "assistant", content: "", toolCalls: [{ id: `c${i}`, name: "file_read", arguments: "{}" }] });
    messages.push({ role: "tool", content: big(`output ${i}`), toolCallId: `c${i}`, toolName: "file_read" });
    messages.push({ role: "assistant", content: `answer ${i}` });
  }
  messages.push({ role: "user", content: "current question" });
  return messages;
}

function assertProtocol(messages: ChatMessage[]) {
  messages.forEach((m, i) => {
    if (m.role !== "tool") return;
    let j = i - 1;
    while (messages[j]?.role === "tool") j--;
    const owner = messages[j];
    expect(owner?.role === "assistant" && owner.toolCalls?.some((c) => c.id === m.toolCallId)).toBe(true);
  });
}

describe("compactMessages", () => {
  it("leaves a context under budget untouched", async () => {
    const messages = conversation(1);
    const result = await compactMessages(messages, { budgetTokens: 100_000 });
    expect(result).toMatchObject({ method: "none", messages });
  });

  it("replaces older turns with a system-model summary and keeps the prompt and recent steps", async () => {
    const messages = conversation(6);
    let transcript = "";
    const result = await compactMessages(messages, {
      budgetTokens: 1_000,
      summarize: async (t) => {
        transcript = t;
        return "The user asked six questions about files.";
      },
    });
    expect(result.method).toBe("summary");
    expect(transcript).toContain("user: question 0");
    expect(result.messages[0]).toEqual(messages[0]);
    expect(result.messages[1]).toEqual({ role: "system", content: `${SUMMARY_TAG}\nThe user asked six questions about files.` });
    expect(result.messages.at(-1)).toEqual({ role: "user", content: "current question" });
    expect(result.afterTokens).toBeLessThanOrEqual(1_000);
    expect(result.afterTokens).toBe(estimateRequestTokens(result.messages));
    assertProtocol(result.messages);
  });

  it("falls back to dropping old tool outputs (ids kept) when the summary fails", async () => {
    const messages = conversation(3);
    const result = await compactMessages(messages, {
      budgetTokens: 1_000,
      summarize: async () => {
        throw new Error("system model down");
      },
    });
    expect(result.method).toBe("drop_tool_outputs");
    expect(result.afterTokens).toBeLessThanOrEqual(1_000);
    const tools = result.messages.filter((m) => m.role === "tool");
    expect(tools.map((t) => t.toolCallId)).toEqual(["c0", "c1", "c2"]);
    expect(tools.slice(0, 2).every((t) => t.content === DROPPED_TOOL_OUTPUT)).toBe(true);
    assertProtocol(result.messages);
  });

  it("drops whole old groups when dropping outputs is not enough", async () => {
    const messages = conversation(40);
    const result = await compactMessages(messages, { budgetTokens: 600 });
    expect(result.method).toBe("drop_turns");
    expect(result.afterTokens).toBeLessThanOrEqual(600);
    expect(result.messages.at(-1)).toEqual({ role: "user", content: "current question" });
    assertProtocol(result.messages);
  });
});

describe("reinforceObjective", () => {
  it("re-states the objective after the system messages, once", () => {
    const once = reinforceObjective(
      [
        { role: "system", content: "s" },
        { role: "system", content: `${SUMMARY_TAG}\nx` },
        { role: "user", content: "go" },
      ],
      "Find the date",
    );
    const twice = reinforceObjective(once, "Find the date");
    expect(twice).toEqual(once);
    expect(once[2]).toMatchObject({ role: "user" });
    expect(contentText(once[2]!.content).startsWith(OBJECTIVE_TAG)).toBe(true);
    expect(once[2]!.content).toContain("Find the date");
  });
});
