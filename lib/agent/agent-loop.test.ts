import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelCallRecord } from "@/lib/contracts";
import type { Tool } from "@/lib/tools/types";
import { startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { dataOf } from "@/test/support/turn/agent-data";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.cleanup());

/** A tool that counts how many of its calls run at once; later calls finish first. */
function countingTool(): Tool<{ n: number }> & { maxActive: number } {
  let active = 0;
  const tool = {
    maxActive: 0,
    spec: { name: "slow", description: "Waits a little.", parameters: { type: "object", properties: { n: { type: "number" } } } },
    parse: (args: unknown) => args as { n: number },
    run: async ({ n }: { n: number }) => {
      active++;
      tool.maxActive = Math.max(tool.maxActive, active);
      await new Promise((resolve) => setTimeout(resolve, 40 - (n % 4) * 10));
      active--;
      return `done ${n}`;
    },
  };
  return tool;
}

describe("agent loop: tool calls of one step", () => {
  it("runs at most four workspace calls at once and returns every result in call order", async () => {
    const tool = countingTool();
    const calls = Array.from({ length: 12 }, (_, n) => ({ id: `c${n}`, name: "slow", args: { n } }));
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: calls } : { text: "ok" }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [tool] }, "many calls");
    expect((await run.result).status).toBe("completed");
    expect(tool.maxActive).toBe(4);
    const results = toolResults(model.requests[1]!.messages);
    expect(results.map((r) => [r.toolCallId, r.content])).toEqual(calls.map((c) => [c.id, `done ${c.args.n}`]));
    expect(dataOf(run.events, "tool_result", "master")).toHaveLength(12);
  });

  it("runs at most maxToolCallsPerReply calls of one reply; the first call beyond answers for the rest with an error, and the turn goes on", async () => {
    const tool = countingTool();
    const limit = 6;
    const calls = Array.from({ length: limit + 5 }, (_, n) => ({ id: `c${n}`, name: "slow", args: { n } }));
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: calls } : { text: "ok" }));
    const warnings: string[] = [];
    const run = startTestTurn(
      { model, workspaceDir: ws.dir, tools: [tool], limits: { maxToolCallsPerReply: limit }, warnings },
      "too many calls",
    );
    expect((await run.result).status).toBe("completed");
    const next = model.requests[1]!.messages;
    const results = toolResults(next);
    // The model reads the `limit` results in order, then one refusal that counts the rest;
    // the calls after it are not resent, so the request does not grow with the reply.
    expect(results.map((r) => r.toolCallId)).toEqual(calls.slice(0, limit + 1).map((c) => c.id));
    expect(results.slice(0, limit).map((r) => r.content)).toEqual(calls.slice(0, limit).map((c) => `done ${c.args.n}`));
    expect(results[limit]!.content).toBe(
      `Error [too_many_calls]: this reply asked for ${limit + 5} tool calls; at most ${limit} run per reply. This call and the 4 after it were not run (they are left out of this conversation). Ask again for the rest.`,
    );
    const assistant = next.find((m) => m.role === "assistant");
    expect(assistant?.toolCalls?.map((c) => c.id)).toEqual(calls.slice(0, limit + 1).map((c) => c.id));
    // The turn records only the calls that ran.
    expect(dataOf(run.events, "tool_call", "master").map((d) => d.callId)).toEqual(calls.slice(0, limit).map((c) => c.id));
    expect(dataOf(run.events, "tool_result", "master")).toHaveLength(limit);
    expect(warnings).toEqual(["tool calls beyond the reply's bound refused"]);
  });

  it("keeps one call past the bound of a huge reply: the audit record holds that many and counts the rest it left out", async () => {
    const limit = 3;
    const asked = 5_000;
    const calls = Array.from({ length: asked }, (_, n) => ({ id: `c${n}`, name: "slow", args: { n } }));
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: calls } : { text: "ok" }));
    const records: ModelCallRecord[] = [];
    const run = startTestTurn(
      { model, workspaceDir: ws.dir, tools: [countingTool()], limits: { maxToolCallsPerReply: limit } },
      "a flood of calls",
      [],
      { recordModelCall: (r) => records.push(r) },
    );
    expect((await run.result).status).toBe("completed");
    const first = records.find((r) => r.index === 0 && r.purpose === "chat")!;
    expect(first.response.toolCalls.map((c) => c.id)).toEqual(["c0", "c1", "c2", "c3"]);
    expect(first.response.toolCallsLeftOut).toBe(asked - limit - 1);
    // The refusal still counts every call the reply asked for.
    expect(toolResults(model.requests[1]!.messages)[limit]!.content).toContain(`this reply asked for ${asked} tool calls`);
  });

  it("answers a call that names no tool with an error result, and the turn ends normally", async () => {
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: [{ id: "c1", name: "", args: {} }] } : { text: "done" }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "nameless call");
    const result = await run.result;
    expect(result.status).toBe("completed");
    const [reply] = toolResults(model.requests[1]!.messages);
    expect(reply!.content).toMatch(/^Error \[unknown_tool\]: This tool call names no tool/);
    expect(dataOf(run.events, "tool_result", "master").map((d) => d.status)).toEqual(["error"]);
  });
});
