import { describe, expect, it } from "vitest";
import { agentEventSchema } from "./events";
import { commandSchemas } from "./socket";

/** The contract at its edge: what each command accepts and what it refuses, and why. */
describe("command schemas", () => {
  it.each([
    ["session:create", {}],
    ["session:create", { title: "Release notes" }],
    ["session:rename", { sessionId: "abc_DEF-123", title: "  Trimmed  " }],
    ["session:join", { sessionId: "abc" }],
    ["session:join", { sessionId: "abc", lastSeq: 0 }],
    ["turn:send", { sessionId: "abc", text: "héllo 🌊 مرحبا" }],
    ["turn:cancel", { sessionId: "abc", turnId: "t1" }],
    ["subagent:steer", { sessionId: "abc", runId: "r1", message: "focus on #41" }],
    ["subagent:kill", { sessionId: "abc", runId: "r1" }],
    ["tool:decide", { sessionId: "abc", callId: "call_1", decision: "approve" }],
    ["tool:decide", { sessionId: "abc", callId: "functions.file_edit:0", runId: null, decision: "deny", reason: "not that file" }],
    ["session:list", {}],
    ["app:info", {}],
  ] as const)("%s accepts %j", (name, input) => {
    expect(commandSchemas[name].safeParse(input).success).toBe(true);
  });

  it.each([
    ["turn:send", { sessionId: "abc" }, "text", /expected string/i],
    ["turn:send", { sessionId: "abc", text: "" }, "text", /must not be empty/],
    ["turn:send", { sessionId: "abc", text: "\u200B\u202E" }, "text", /visible text/],
    ["turn:send", { sessionId: "abc", text: "x".repeat(100_001) }, "text", /at most 100000/],
    ["turn:send", { sessionId: "a/b", text: "hi" }, "sessionId", /id/],
    ["turn:send", { sessionId: "abc", text: "hi", extra: 1 }, "", /unrecognized/i],
    ["session:rename", { sessionId: "abc", title: "x".repeat(201) }, "title", /200/],
    ["session:join", { sessionId: "abc", lastSeq: -1 }, "lastSeq", />=\s*0|too small/i],
    ["session:join", { sessionId: "abc", lastSeq: 1.5 }, "lastSeq", /int/i],
    ["subagent:steer", { sessionId: "abc", runId: "r1", message: "   " }, "message", /empty/],
    ["tool:decide", { sessionId: "abc", callId: "c1", decision: "maybe" }, "decision", /approve|deny|invalid/i],
    ["tool:decide", { sessionId: "abc", callId: "c 1", decision: "approve" }, "callId", /call id/],
    ["tool:decide", { sessionId: "abc", callId: "c1", decision: "deny", reason: "x".repeat(2_001) }, "reason", /2000/],
  ] as const)("%s refuses %j at %s", (name, input, path, message) => {
    const result = commandSchemas[name].safeParse(input);
    expect(result.success).toBe(false);
    const issue = result.error!.issues[0]!;
    expect(issue.path.join(".")).toBe(path);
    expect(issue.message).toMatch(message);
  });
});

describe("agent event schema", () => {
  it("accepts a nested subagent tool result and refuses an unknown event type", () => {
    const ok = agentEventSchema.safeParse({
      type: "subagent_data",
      turnId: "t",
      runId: "r",
      parentRunId: null,
      depth: 1,
      data: { kind: "tool_result", callId: "c", response: "x", responseSize: 1, status: "success" },
    });
    expect(ok.success).toBe(true);
    expect(agentEventSchema.safeParse({ type: "turn:hijack", turnId: "t" }).success).toBe(false);
  });

  it("refuses a subagent at depth 0 (the master is not a subagent)", () => {
    const result = agentEventSchema.safeParse({
      type: "subagent_started",
      turnId: "t",
      runId: "r",
      parentRunId: null,
      depth: 0,
      callId: "c",
      name: "explore",
      task: "x",
      prompt: "x",
      startedAt: new Date().toISOString(),
    });
    expect(result.success).toBe(false);
  });
});
