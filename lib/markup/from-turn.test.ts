import { describe, expect, it } from "vitest";
import { type ChatTurn, type ToolCall, emptyStats } from "@/lib/contracts";
import { docFromTurn } from "./from-turn";
import { serializeMarkup } from "./serialize";
import { STATS, finishedProcess } from "@/test/support/turn/event-builders";

const call = (callId: string, textOffset: number, extra: Partial<ToolCall> = {}): ToolCall => ({
  callId, name: "grep", parameters: "{}", response: "ok", responseSize: 2, status: "success", textOffset, ...extra,
});
const turn = (response: string, toolCalls: ToolCall[]): ChatTurn => ({
  turnId: "t1", sessionId: "s1", prompt: "p", response, toolCalls, stats: emptyStats(), status: "completed",
  createdAt: "c", updatedAt: "u",
});
const shape = (t: ChatTurn) =>
  docFromTurn(t).segments.map((s) => (s.kind === "text" ? s.text : `[${s.call.callId}]`)).join("");

describe("docFromTurn", () => {
  const cases: [string, ChatTurn, string][] = [
    ["text only", turn("Hello", []), "Hello"],
    ["a call before any text", turn("Hello", [call("c1", 0)]), "[c1]Hello"],
    ["calls cut the text at their offsets, same offset in stored order", turn("Hello world", [call("c1", 5), call("c2", 5), call("c3", 11)]), "Hello[c1][c2] world[c3]"],
    ["stored out of offset order", turn("abcdef", [call("c2", 4), call("c1", 2)]), "ab[c1]cd[c2]ef"],
    ["an offset past the text is clamped to its end", turn("ab", [call("c1", 99)]), "ab[c1]"],
    ["no text at all", turn("", [call("c1", 0), call("c2", 0)]), "[c1][c2]"],
  ];
  it.each(cases)("%s", (_name, t, expected) => {
    const doc = docFromTurn(t);
    expect(shape(t)).toBe(expected);
    expect(doc.textLength).toBe(t.response.length);
    expect(doc.segments.every((s) => s.kind !== "text" || s.text.length > 0)).toBe(true);
  });

  it("builds panels from stored processes, recursively, with their final state", () => {
    const grandchild = finishedProcess("r2", "deep", {
      parentRunId: "r1", depth: 2, status: "error", endReason: "killed", error: "Killed by parent",
    });
    const child = finishedProcess("r1", "The answer", {
      thinking: "hmm",
      toolCalls: [call("c2", 0), call("c3", 3, { name: "subagent", subagent: grandchild })],
    });
    const doc = docFromTurn(turn("Hi", [call("c1", 2, { name: "subagent", response: "[Result] The answer", subagent: child })]));
    const tool = doc.segments[1]!.kind === "tool" ? doc.segments[1]!.call : undefined;
    expect(tool).toMatchObject({ callId: "c1", response: "[Result] The answer" });
    expect(tool!.subagent).toMatchObject({
      runId: "r1", status: "success", responseText: "The answer", thinking: "hmm", stats: STATS, endReason: "completed",
    });
    expect(tool!.subagent!.toolCalls[1]!.subagent).toMatchObject({
      runId: "r2", depth: 2, status: "error", endReason: "killed", error: "Killed by parent", responseText: "deep",
    });
    expect(doc.runs).toEqual({ r1: [1], r2: [1, 1] });
    expect(serializeMarkup(doc).match(/<SubagentExecution/g)).toHaveLength(2);
  });
});
