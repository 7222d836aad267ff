import { describe, expect, it } from "vitest";
import { estimateMessageTokens, estimateRequestTokens, estimateTokens } from "./tokens";

describe("token estimator", () => {
  it.each([
    ["", 0],
    ["abcd", 1],
    ["abcde", 2],
    ["x".repeat(4000), 1000],
  ])("estimateTokens(%j) = %i", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it("counts message overhead, tool calls and tool schemas", () => {
    const plain = estimateMessageTokens({ role: "user", content: "x".repeat(40) });
    expect(plain).toBe(14);
    const withCall = estimateMessageTokens({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "1", name: "grep", arguments: "x".repeat(40) }],
    });
    expect(withCall).toBeGreaterThan(14);
    const tools = [{ name: "grep", description: "search", parameters: { type: "object" } }];
    expect(estimateRequestTokens([{ role: "user", content: "hi" }], tools)).toBeGreaterThan(
      estimateRequestTokens([{ role: "user", content: "hi" }]),
    );
  });
});
