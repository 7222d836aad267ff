import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type ToolCall } from "@/lib/contracts";
import { turnMarkdown } from "./markdown";

const call = (callId: string, status: ToolCall["status"], response: string): ToolCall => ({
  callId,
  name: "grep",
  parameters: "{}",
  response,
  responseSize: response.length,
  status,
});

describe("turnMarkdown", () => {
  it("says which calls failed and which were stopped, each from its status", () => {
    const turn: ChatTurn = {
      turnId: "t1",
      sessionId: "s1",
      prompt: "look",
      steps: [
        {
          text: "Looking.",
          thinking: "",
          toolCalls: [
            call("c1", "success", "hit"),
            call("c2", "error", "Error [tool_failed]: no such file"),
            call("c3", "cancelled", 'Error [cancelled]: "grep" was stopped before it finished.'),
          ],
        },
      ],
      stats: emptyStats(),
      status: "cancelled",
      createdAt: "2026-06-01T10:00:00.000Z",
    };
    const summaries = turnMarkdown(turn).match(/<summary>🔧 [^<]*<\/summary>/g);
    expect(summaries).toEqual(["<summary>🔧 grep</summary>", "<summary>🔧 grep — error</summary>", "<summary>🔧 grep — stopped</summary>"]);
  });
});
