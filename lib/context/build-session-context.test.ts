import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type Step, type SubagentProcess, type ToolCall } from "@/lib/contracts";
import { buildSessionContext } from "./build-session-context";
import { UNREADABLE_RESULT, cleanSubagentContent } from "./clean-result";

const call = (over: Partial<ToolCall> & Pick<ToolCall, "callId" | "name">): ToolCall => ({
  parameters: "{}",
  response: "",
  responseSize: 0,
  status: "success",
  ...over,
});

const step = (text: string, toolCalls: ToolCall[] = []): Step => ({ text, thinking: "", toolCalls });

const turn = (over: Partial<ChatTurn>): ChatTurn => ({
  turnId: "t1",
  sessionId: "s1",
  prompt: "question",
  steps: [],
  stats: emptyStats(),
  status: "completed",
  createdAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:01.000Z",
  ...over,
});

const process = (response: string): SubagentProcess => ({
  runId: "r1",
  parentRunId: null,
  depth: 1,
  name: "explore",
  task: "look",
  prompt: "the spawn packet",
  steps: [
    {
      text: "Let me grep.",
      thinking: "internal deliberation",
      toolCalls: [call({ callId: "n1", name: "grep", parameters: '{"pattern":"bug"}', response: "src/a.ts:1: bug" })],
    },
    step(response),
  ],
  response,
  stats: { ...emptyStats(), steps: 3, runtimeMs: 1234 },
  status: "success",
  endReason: "completed",
  startedAt: "2026-01-01T00:00:00.000Z",
});

describe("buildSessionContext (the historical path of the clean-context rule)", () => {
  it("replays historical tool results as role:tool messages with unaltered content", () => {
    const messages = buildSessionContext([
      turn({
        prompt: "read it",
        steps: [
          step("Reading.", [
            call({ callId: "c1", name: "file_read", parameters: '{"path":"a.md"}', response: "  line one\n\tline two {json: true}\n" }),
          ]),
          step(" It says hi."),
        ],
      }),
    ]);
    expect(messages).toEqual([
      { role: "user", content: "read it" },
      { role: "assistant", content: "Reading.", toolCalls: [{ id: "c1", name: "file_read", arguments: '{"path":"a.md"}' }] },
      { role: "tool", content: "  line one\n\tline two {json: true}\n", toolCallId: "c1", toolName: "file_read" },
      { role: "assistant", content: " It says hi." },
    ]);
  });

  it("uses subagent.response instead of full JSON for subagent tool calls in context replay", () => {
    const sub = process("The clean answer.");
    const envelope = JSON.stringify({
      success: true,
      data: {
        prompt: sub.prompt,
        thinking: sub.steps[0]!.thinking,
        response: sub.response,
        toolCalls: sub.steps[0]!.toolCalls,
        stats: sub.stats,
      },
    });
    const messages = buildSessionContext([
      turn({
        steps: [
          step("", [call({ callId: "s1", name: "subagent", response: envelope, responseSize: envelope.length, subagent: sub })]),
          step("Done."),
        ],
      }),
    ]);
    const tool = messages.find((m) => m.role === "tool")!;
    expect(tool).toEqual({ role: "tool", content: "The clean answer.", toolCallId: "s1", toolName: "subagent" });
    const all = JSON.stringify(messages);
    expect(all).not.toContain('\\"success\\":true');
    expect(all).not.toContain('toolCalls\\"');
    expect(all).not.toContain("thinking");
    expect(all).not.toContain("internal deliberation");
    expect(all).not.toContain("Let me grep.");
  });

  it("falls back to toolCall.response for subagent calls without parsed subagent data", () => {
    const narrative = "[Subagent Result: explore-ab12]\nStatus: Completed\n\nFound it.";
    const messages = buildSessionContext([
      turn({ steps: [step("", [call({ callId: "s1", name: "subagent", response: narrative })]), step("ok")] }),
    ]);
    expect(messages.find((m) => m.role === "tool")).toMatchObject({ content: narrative, toolCallId: "s1" });
  });
});

describe("buildSessionContext: our rules", () => {
  it("prefers the stored clean (narrative) result over the subagent's raw answer, as the model saw it live", () => {
    const narrative = "[Subagent Result: explore-1]\nStatus: Completed\nCondensation: Level 2 (LLM summary)\n\nSummary: short";
    const messages = buildSessionContext([
      turn({
        steps: [
          step("", [call({ callId: "s1", name: "subagent", response: narrative, subagent: process("a very long raw answer") })]),
          step("x"),
        ],
      }),
    ]);
    expect(messages.find((m) => m.role === "tool")!.content).toBe(narrative);
  });

  it("never passes a broken (cut) envelope: uses subagent.response, else a notice, and warns", () => {
    const envelope = JSON.stringify({ success: true, data: { thinking: "internal deliberation", toolCalls: [], response: "answer" } });
    const cut = envelope.slice(0, 40);
    const warnings: string[] = [];
    const log = { warn: (m: string) => warnings.push(m) };
    const withProcess = buildSessionContext(
      [turn({ steps: [step("", [call({ callId: "a", name: "subagent", response: cut, subagent: process("from process") })])] })],
      log,
    );
    const without = buildSessionContext([turn({ steps: [step("", [call({ callId: "b", name: "subagent", response: cut })])] })], log);
    expect(withProcess.find((m) => m.role === "tool")!.content).toBe("from process");
    expect(without.find((m) => m.role === "tool")!.content).toBe(UNREADABLE_RESULT);
    expect(warnings).toHaveLength(2);
  });

  it("replays each stored step as the request it was: its text and calls, every id and the order", () => {
    const messages = buildSessionContext([
      turn({
        steps: [
          step("First.", [call({ callId: "a", name: "grep" }), call({ callId: "b", name: "list_files" })]),
          step(" Second.", [call({ callId: "c", name: "file_read" })]),
          step(" Final."),
        ],
      }),
      turn({ turnId: "t2", prompt: "next", steps: [step("Plain.")] }),
    ]);
    expect(
      messages.map((m) =>
        m.role === "tool"
          ? `tool:${m.toolCallId}`
          : m.role === "assistant"
            ? `assistant:${m.content}|${(m.toolCalls ?? []).map((c) => c.id).join(",")}`
            : `${m.role}:${m.content}`,
      ),
    ).toEqual([
      "user:question",
      "assistant:First.|a,b",
      "tool:a",
      "tool:b",
      "assistant: Second.|c",
      "tool:c",
      "assistant: Final.|",
      "user:next",
      "assistant:Plain.|",
    ]);
  });

  it("keeps alternation for failed turns and skips turns still running", () => {
    const messages = buildSessionContext([
      turn({ status: "failed", error: "The provider is down." }),
      turn({ turnId: "t2", status: "running", prompt: "ghost" }),
    ]);
    expect(messages).toEqual([
      { role: "user", content: "question" },
      { role: "assistant", content: "[No answer: this turn was failed (The provider is down.).]" },
    ]);
  });
});

describe("cleanSubagentContent (live path)", () => {
  it("passes plain text, extracts an envelope's response, and falls back to raw text with a warning", () => {
    const warnings: string[] = [];
    const log = { warn: (m: string) => warnings.push(m) };
    expect(cleanSubagentContent("plain answer", log)).toBe("plain answer");
    expect(cleanSubagentContent(JSON.stringify({ success: true, data: { response: "clean", thinking: "t", toolCalls: [] } }), log)).toBe(
      "clean",
    );
    expect(cleanSubagentContent("{ not json at all", log)).toBe("{ not json at all");
    expect(cleanSubagentContent('{"success":true,"data":{"thinking":"x"', log)).toBe(UNREADABLE_RESULT);
    expect(warnings).toHaveLength(2);
  });
});
