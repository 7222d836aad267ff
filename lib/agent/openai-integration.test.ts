import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedError,
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { masterText, ofType, startTestTurn, tempWorkspace, processOfRun } from "@/test/support/agent/harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * The runtime through the real OpenAI adapter, against a real local OpenAI-compatible HTTP
 * server: the clean-context invariant is checked on the request bodies that actually went
 * over the wire.
 */

const MARK = "ZZWIREINTERNAL";
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
let server: ScriptedOpenAIServer | undefined;
beforeEach(async () => {
  ws = await tempWorkspace({ "plan.txt": `Release 2.0 ships on May 3. ${MARK}_FILE` });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await ws.cleanup();
});

type WireMessage = { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string }[] };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const toolMessages = (r: ScriptedRequest) => messagesOf(r).filter((m) => m.role === "tool");
const args = (value: unknown) => [JSON.stringify(value).slice(0, 7), JSON.stringify(value).slice(7)];

function handler(r: ScriptedRequest) {
  const last = messagesOf(r).at(-1)!;
  if (isMaster(r)) {
    if (String(last.content).startsWith("follow"))
      return scriptedReply({ text: ["Noted."], usage: { promptTokens: 50, completionTokens: 2 } });
    if (last.role !== "tool") {
      return scriptedReply({
        text: ["Let me ", "delegate. "],
        toolCalls: [{ id: "call_master_1", name: "subagent", argumentChunks: args({ agent: "explore", task: "Find the ship date" }) }],
        usage: { promptTokens: 400, completionTokens: 20 },
      });
    }
    return scriptedReply({ text: ["It ships ", "on May 3."], usage: { promptTokens: 600, completionTokens: 8 } });
  }
  if (last.role !== "tool") {
    return scriptedReply({
      reasoning: [`${MARK}_REASONING `, "about files"],
      toolCalls: [{ id: `${MARK}_CALL`, name: "read_note", argumentChunks: args({ name: "plan" }) }],
      usage: { promptTokens: 300, completionTokens: 15 },
    });
  }
  return scriptedReply({ text: ["The plan says ", "May 3."], usage: { promptTokens: 350, completionTokens: 6 } });
}

const model = (url: string) => createOpenAIModel({ baseURL: url, model: "scripted-model", timeoutMs: 5_000, maxRetries: 0 });

describe("runtime over the OpenAI adapter and a local HTTP server", () => {
  it("sends the master only the clean subagent result, live and when rebuilt from history", async () => {
    server = await startScriptedOpenAIServer(handler);
    const first = startTestTurn({ model: model(server.url), workspaceDir: ws.dir }, "When do we ship?");
    const result = await first.result;
    expect(result.status).toBe("completed");
    expect(masterText(result.turn)).toBe("Let me delegate. It ships on May 3.");
    expect(result.stats.chat).toEqual({ inputTokens: 1650, outputTokens: 49 });

    const complete = ofType(first.events, "agent:complete")[0]!;
    const process = await processOfRun(first, complete.runId);
    expect(process.steps[0]!.thinking).toBe(`${MARK}_REASONING about files`);
    expect(process.steps[0]!.toolCalls[0]).toMatchObject({ callId: `${MARK}_CALL`, name: "read_note", status: "success" });

    const second = startTestTurn({ model: model(server.url), workspaceDir: ws.dir }, "follow up", [result.turn]);
    expect((await second.result).status).toBe("completed");

    const masterBodies = server.requests.filter(isMaster);
    expect(masterBodies).toHaveLength(3);
    for (const request of masterBodies) {
      const body = JSON.stringify(request.body);
      expect(body).not.toContain(MARK);
      expect(body).not.toMatch(/runtimeMs|inputTokens|\\"success\\"/);
    }
    // The live tool message and the rebuilt one are the same clean narrative, under the same id.
    const live = toolMessages(masterBodies[1]!);
    const rebuilt = toolMessages(masterBodies[2]!);
    expect(live).toEqual([{ role: "tool", tool_call_id: "call_master_1", content: complete.response }]);
    expect(rebuilt).toEqual(live);
    expect(complete.response).toMatch(/^\[Subagent Result: explore-run1\]\nStatus: Completed/);
    expect(complete.response).toContain("The plan says May 3.");
    // The child's own requests did see its work (that is where it belongs).
    expect(JSON.stringify(server.requests.filter((r) => !isMaster(r)))).toContain(`${MARK}_FILE`);
  });

  it("turns a provider failure inside a subagent into an error result, and one at the master into a failed turn", async () => {
    server = await startScriptedOpenAIServer((r) =>
      isMaster(r) && messagesOf(r).at(-1)!.role === "tool"
        ? scriptedError(400, "context too long")
        : isMaster(r)
          ? handler(r)
          : scriptedError(401, "bad key"),
    );
    const run = startTestTurn({ model: model(server.url), workspaceDir: ws.dir }, "When do we ship?");
    const result = await run.result;
    const childError = ofType(run.events, "subagent_error")[0]!;
    expect(childError.endReason).toBe("failed");
    expect(childError.error).toMatch(/refused the credentials \(HTTP 401\)/);
    const toolResult = dataOf(run.events, "tool_result", "master")[0]!;
    expect(toolResult).toMatchObject({ status: "error" });
    expect(toolResult.response).toContain("Status: Failed\nError: The model server");
    expect(result.status).toBe("failed");
    expect(result.error).toMatch(/rejected the request \(HTTP 400\): context too long/);
    expect(ofType(run.events, "turn:ended")).toHaveLength(1);
  });

  it("hands a malformed tool call back to the model as an error result it can correct; the turn goes on", async () => {
    server = await startScriptedOpenAIServer((r) => {
      const tools = toolMessages(r);
      if (tools.length === 0) return scriptedReply({ toolCalls: [{ id: "bad", name: "read_note", argumentChunks: ['{"name": "pl'] }] });
      if (tools.length === 1)
        return scriptedReply({ toolCalls: [{ id: "good", name: "read_note", argumentChunks: args({ name: "plan" }) }] });
      return scriptedReply({ text: [`Fixed it: ${String(tools[1]!.content).slice(0, 27)}`] });
    });
    const run = startTestTurn({ model: model(server.url), workspaceDir: ws.dir }, "When do we ship?");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(masterText(result.turn)).toBe("Fixed it: Release 2.0 ships on May 3.");
    const [bad] = toolMessages(server.requests[1]!);
    expect(bad).toMatchObject({
      tool_call_id: "bad",
      content: expect.stringContaining('Error [invalid_arguments]: Arguments for "read_note" are not valid JSON: {"name": "pl'),
    });
    // The audit keeps what the model wrote; the history sent back holds valid JSON.
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ callId: "bad", parameters: '{"name": "pl', status: "error" });
    const history = messagesOf(server.requests[1]!).find((m) => m.role === "assistant") as unknown as {
      tool_calls: { function: { arguments: string } }[];
    };
    expect(history.tool_calls[0]!.function.arguments).toBe("{}");
  });
});
