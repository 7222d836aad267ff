import { describe, expect, it } from "vitest";
import type { AgentEvent, Approval, InputRequest } from "@/lib/contracts";
import { chatLink, turnOfHash } from "./chat-link";
import { NoticeTracker, type Notice } from "./notice";
import { notificationOf, plainText, urgencyOf, wants } from "./notification-text";

const stats = { inputTokens: 0, outputTokens: 0, cost: 0, steps: 1, durationMs: 1 } as never;
const ended = (status: "completed" | "failed" | "cancelled", error?: string): AgentEvent => ({
  type: "turn:ended",
  turnId: "t1",
  status,
  stats,
  endedAt: "2026-12-04T00:00:00Z",
  ...(error ? { error } : {}),
});
const call = (runId: string | null, callId: string, name: string): AgentEvent =>
  runId
    ? {
        type: "subagent_data",
        turnId: "t1",
        runId,
        parentRunId: null,
        depth: 1,
        data: { kind: "tool_call", step: 0, callId, name, parameters: "{}" },
      }
    : { type: "turn:data", turnId: "t1", runId: null, data: { kind: "tool_call", step: 0, callId, name, parameters: "{}" } };
const approval = (runId: string | null, callId: string, state: Approval["state"]): AgentEvent => {
  const data = { kind: "approval" as const, callId, approval: { state, requestedAt: "now", reason: "Fix the typo." } };
  return runId
    ? { type: "subagent_data", turnId: "t1", runId, parentRunId: null, depth: 1, data }
    : { type: "turn:data", turnId: "t1", runId: null, data };
};
const question = (callId: string, state: InputRequest["state"]): AgentEvent => ({
  type: "turn:data",
  turnId: "t1",
  runId: null,
  data: {
    kind: "input",
    callId,
    index: 0,
    input: { state, requestedAt: "now", message: "Which branch?", form: { type: "object", properties: {} } } as InputRequest,
  },
});

describe("NoticeTracker", () => {
  it.each<[string, AgentEvent[], Notice | null]>([
    ["a completed turn", [ended("completed")], { kind: "finished", turnId: "t1", runId: null }],
    ["a failed turn, with its error", [ended("failed", "model down")], { kind: "failed", turnId: "t1", runId: null, detail: "model down" }],
    ["a cancelled turn: the person's own doing", [ended("cancelled")], null],
    [
      "a subagent's approval, named by its call",
      [call("r1", "c1", "file_edit"), approval("r1", "c1", "pending")],
      { kind: "approval", turnId: "t1", runId: "r1", callId: "c1", tool: "file_edit", detail: "Fix the typo." },
    ],
    ["an approval as it ends", [call(null, "c1", "file_edit"), approval(null, "c1", "approved")], null],
    [
      "a question",
      [call(null, "c2", "ask"), question("c2", "pending")],
      { kind: "input", turnId: "t1", runId: null, callId: "c2", tool: "ask", detail: "Which branch?" },
    ],
    ["a question as it is answered", [question("c2", "accepted")], null],
  ])("%s", (_what, events, expected) => {
    const tracker = new NoticeTracker();
    const notices = events.map((event) => tracker.observe(event));
    expect(notices.at(-1)).toEqual(expected);
  });

  it("asks the page for the name of a call seen before it, and forgets a turn's names once it ends", () => {
    const tracker = new NoticeTracker((turnId, callId) => (turnId === "t1" && callId === "c9" ? "shell" : undefined));
    expect(tracker.observe(approval(null, "c9", "pending"))).toMatchObject({ tool: "shell" });
    tracker.observe(call(null, "c1", "file_edit"));
    tracker.observe(ended("completed"));
    expect(tracker.observe(approval(null, "c1", "pending"))).not.toHaveProperty("tool");
  });
});

describe("notification texts", () => {
  it.each([
    ["plain", 20, "plain"],
    ["a\nforged\r\nline\u0007", 40, "a forged line"],
    ["\u202Egnp.exe", 20, "gnp.exe"],
    ["  many   spaces  ", 20, "many spaces"],
    ["x".repeat(30), 10, `${"x".repeat(9)}…`],
    ["😀".repeat(5), 3, "😀😀…"],
  ])("plainText(%j, %i) is %j", (input, max, expected) => {
    expect(plainText(input, max)).toBe(expected);
  });

  it.each([
    ["all", ["finished", "failed", "approval", "input"]],
    ["approvals", ["approval", "input"]],
    ["off", []],
  ] as const)("the level %s takes %j", (level, kinds) => {
    expect((["finished", "failed", "approval", "input"] as const).filter((kind) => wants(level, kind))).toEqual(kinds);
  });

  it("words each kind, bounded, tagged by chat, turn, kind and call, linked to the panel that waits", () => {
    const title = `Release\nplan ${"y".repeat(200)}`;
    const finished = notificationOf("s1", "Release plan", { kind: "finished", turnId: "t1", runId: null });
    expect(finished).toEqual({
      title: "Delegate: turn finished in Release plan",
      body: "The answer is ready.",
      tag: "s1:t1:finished",
      url: "/c/s1#turn-t1",
    });
    const asked = notificationOf("s1", title, {
      kind: "approval",
      turnId: "t1",
      runId: "r 1",
      callId: "c1",
      tool: "file_edit",
      detail: "z".repeat(500),
    });
    expect(asked.title).toMatch(/^Approval needed: file_edit in Release plan y+…$/);
    expect(Array.from(asked.title.replace("Approval needed: file_edit in ", ""))).toHaveLength(80);
    expect(asked.body).toHaveLength(200);
    expect(asked.tag).toBe("s1:t1:approval:c1");
    expect(asked.url).toBe("/c/s1#run-r%201");
    expect(notificationOf("s1", "", { kind: "input", turnId: "t1", runId: null, callId: "c2" }).title).toBe(
      "Input needed: a tool in a chat",
    );
    expect(notificationOf("s1", "Chat", { kind: "failed", turnId: "t1", runId: null, detail: "" }).body).toBe(
      "The turn stopped with an error.",
    );
    expect([urgencyOf("approval"), urgencyOf("input"), urgencyOf("finished")]).toEqual(["high", "high", "normal"]);
  });

  it("reads a turn back from its link", () => {
    expect(turnOfHash(new URL(chatLink("s1", "t/1", null), "http://x").hash)).toBe("t/1");
    expect(turnOfHash("#turn-")).toBeNull();
    expect(turnOfHash("#run-r1")).toBeNull();
    expect(turnOfHash("#turn-%E0%A4%A")).toBeNull();
  });
});
