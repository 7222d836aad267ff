import { afterEach, describe, expect, it } from "vitest";
import type { SubagentDefinition } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { processInTurn } from "@/lib/turn/paths";
import { fileReadTool } from "@/lib/tools";
import { masterText, ofType, startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { EVERYTHING, HOSTILE, stdioServer } from "@/test/support/mcp/servers";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { createMcpManager, type McpManager } from "./manager";

/**
 * MCP tools through the real agent runtime, the real OpenAI adapter and a local
 * OpenAI-compatible HTTP server: a subagent whitelisted for `everything.*` calls
 * `everything.echo` on a real server-everything, and the call lands in its process like
 * any built-in call.
 */

let manager: McpManager | undefined;
let openai: ScriptedOpenAIServer | undefined;
let ws: Awaited<ReturnType<typeof tempWorkspace>> | undefined;
afterEach(async () => {
  await manager?.close();
  await openai?.close();
  await ws?.cleanup();
  manager = openai = ws = undefined;
});

const definition = (name: string, allowedTools: string[]): SubagentDefinition => ({
  name,
  description: `Calls ${allowedTools.join(", ")}.`,
  systemPrompt: `You are the ${name} subagent.`,
  allowedTools,
  model: "chat",
  maxSteps: 4,
  parallelizable: true,
});

type Wire = { role: string; content: string | null };
const messages = (r: ScriptedRequest): Wire[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messages(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const toolNames = (r: ScriptedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const args = (value: unknown) => [JSON.stringify(value)];

/** The master delegates to `agent`; the subagent calls `wireTool` once, then repeats what it got. */
function script(agent: string, wireTool: string, toolArgs: unknown) {
  return (r: ScriptedRequest) => {
    const last = messages(r).at(-1)!;
    if (isMaster(r)) {
      if (last.role !== "tool")
        return scriptedReply({ toolCalls: [{ id: "m1", name: "subagent", argumentChunks: args({ agent, task: "Use your MCP tool" }) }] });
      return scriptedReply({ text: ["Done."] });
    }
    if (last.role !== "tool") return scriptedReply({ toolCalls: [{ id: "s1", name: wireTool, argumentChunks: args(toolArgs) }] });
    return scriptedReply({ text: [`The tool said: ${last.content}`] });
  };
}

const model = (url: string) => createOpenAIModel({ baseURL: url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });

describe("MCP tools in the agent runtime", () => {
  it("lets a subagent whitelisted for everything.* call everything.echo; the call shows in its process", async () => {
    manager = createMcpManager([stdioServer("everything", [EVERYTHING, "stdio"])]);
    await manager.ready();
    openai = await startScriptedOpenAIServer(script("echoer", "everything_echo", { message: "hi from the subagent" }));
    ws = await tempWorkspace();
    const mcp = manager;
    const run = startTestTurn(
      {
        model: model(openai.url),
        workspaceDir: ws.dir,
        tools: () => [fileReadTool, ...mcp.tools()],
        definitions: [definition("echoer", ["everything.*"])],
      },
      "Echo something",
    );
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(masterText(result.turn)).toBe("Done.");

    const process = processInTurn(result.turn, ofType(run.events, "agent:complete")[0]!.runId)!;
    expect(process.steps[0]!.toolCalls[0]).toMatchObject({
      callId: "s1",
      name: "everything.echo",
      parameters: '{"message":"hi from the subagent"}',
      response: "Echo: hi from the subagent",
      status: "success",
    });
    expect(process.response).toBe("The tool said: Echo: hi from the subagent");

    // The master gets every tool; the subagent only what its whitelist names.
    const master = openai.requests.find(isMaster)!;
    const child = openai.requests.find((r) => !isMaster(r))!;
    expect(toolNames(master)).toEqual(expect.arrayContaining(["file_read", "everything_echo", "subagent"]));
    expect(toolNames(child)).toContain("everything_echo");
    expect(toolNames(child).every((n) => n.startsWith("everything_"))).toBe(true);
  });

  it("hands a subagent a clear tool error when its MCP server never answers, and the turn goes on", async () => {
    manager = createMcpManager([stdioServer("hostile", [HOSTILE], { timeoutMs: 500 })]);
    await manager.ready();
    openai = await startScriptedOpenAIServer(script("waiter", "hostile_never", {}));
    ws = await tempWorkspace();
    const mcp = manager;
    const started = Date.now();
    const run = startTestTurn(
      { model: model(openai.url), workspaceDir: ws.dir, tools: () => mcp.tools(), definitions: [definition("waiter", ["hostile.never"])] },
      "Wait",
    );
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(Date.now() - started).toBeLessThan(5_000);
    const call = processInTurn(result.turn, ofType(run.events, "agent:complete")[0]!.runId)!.steps[0]!.toolCalls[0]!;
    expect(call).toMatchObject({ name: "hostile.never", status: "error" });
    expect(call.response).toBe('Error [tool_failed]: MCP server "hostile" did not answer the call to "never" within 500 ms.');
  });
});
