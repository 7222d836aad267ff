import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type ToolCall } from "@/lib/contracts";
import { actorsOf } from "./actors";

const call = (over: Partial<ToolCall>): ToolCall => ({
  callId: "c",
  name: "edit_file",
  parameters: "{}",
  response: "",
  responseSize: 0,
  status: "success",
  ...over,
});
const turn = (over: Partial<ChatTurn>): ChatTurn => ({
  turnId: "t",
  sessionId: "s",
  prompt: "p",
  steps: [],
  stats: emptyStats(),
  status: "completed",
  createdAt: "2026-12-04T00:00:00.000Z",
  ...over,
});

describe("actorsOf", () => {
  it("names each sender, decider and answerer once, down into subagents", () => {
    const nested = call({
      approval: { state: "approved", requestedAt: "x", reason: "", decidedBy: "owner" },
      inputs: [{ state: "accepted", requestedAt: "x", message: "m", form: { type: "object", properties: {} }, answeredBy: "ana" }],
    });
    const spawn = call({
      name: "subagent",
      subagent: {
        runId: "r",
        parentRunId: null,
        depth: 1,
        name: "coder",
        task: "t",
        prompt: "p",
        steps: [{ text: "", thinking: "", toolCalls: [nested] }],
        response: "",
        stats: emptyStats(),
        status: "success",
        startedAt: "x",
      },
    });
    const turns = [turn({ sentBy: "ana", steps: [{ text: "", thinking: "", toolCalls: [spawn] }] }), turn({ sentBy: "owner" })];
    expect(actorsOf(turns)).toEqual(["ana", "owner"]);
  });

  it("is empty for turns from before anyone was recorded", () => {
    expect(actorsOf([turn({})])).toEqual([]);
  });
});
