import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contracts";
import type { ModelRequest } from "@/lib/model/types";
import { dataOf, flatData, type DataOf } from "@/test/support/turn/agent-data";
import { startTestTurn, tempWorkspace, type TurnRun } from "@/test/support/agent/harness";
import { scriptedModel, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";
import { ELICIT, stdioServer } from "@/test/support/mcp/servers";
import type { McpServerConfig } from "@/lib/mcp/config";
import { createMcpManager, type McpManager } from "./manager";

/**
 * MCP elicitation through the real SDK on both ends: a server built with McpServer asks
 * its client a question in the middle of a tools/call; Delegate's client puts it to the
 * person as the call's question, and the answer goes back as the MCP result, so an
 * accepted answer finishes the tool with its content and a decline reaches the model. A
 * form Delegate cannot show is refused, and the server reads why. Tool annotations set
 * whether a call needs approval when the config says nothing.
 */

let manager: McpManager | undefined;
let ws: Awaited<ReturnType<typeof tempWorkspace>> | undefined;
afterEach(async () => {
  await manager?.close();
  await ws?.cleanup();
  manager = ws = undefined;
});

const once = (req: ModelRequest, first: ScriptedReply): ScriptedReply => {
  const results = toolResults(req.messages);
  return results.length === 0 ? first : { text: `Done: ${results.map((r) => r.content).join(" | ")}` };
};

async function turnCalling(tool: string, config: Partial<McpServerConfig> = {}): Promise<TurnRun> {
  manager = createMcpManager([stdioServer("shop", [ELICIT], config)]);
  await manager.ready();
  ws = await tempWorkspace();
  const mcp = manager;
  const model = scriptedModel((req) => once(req, { toolCalls: [{ id: "c1", name: tool, args: {} }] }));
  return startTestTurn({ model, workspaceDir: ws.dir, tools: () => mcp.tools() }, "Go");
}

function waitFor(run: TurnRun, match: (e: AgentEvent) => boolean, timeoutMs = 10_000): Promise<AgentEvent> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const found = run.events.find(match);
      if (found) resolve(found);
      else if (Date.now() - started > timeoutMs) reject(new Error("timed out waiting for an event"));
      else setTimeout(poll, 10);
    };
    poll();
  });
}
const question = (e: AgentEvent) => (flatData(e) as DataOf<"input"> | undefined)?.input?.state === "pending";

describe("MCP elicitation", () => {
  it("puts the server's question to the person; the accepted answer finishes the tool with its content", async () => {
    const run = await turnCalling("shop.order");
    const asked = flatData(await waitFor(run, question)) as DataOf<"input">;
    expect(asked).toMatchObject({
      callId: "c1",
      input: {
        message: "Which size should the shirt be?",
        form: {
          type: "object",
          properties: { size: { type: "string", enum: ["s", "m", "l"] }, gift: { type: "boolean" } },
          required: ["size"],
        },
      },
    });
    expect(run.handle.answer!("c1", null, { action: "accept", content: { size: "l", gift: true }, by: "u1" })).toEqual({ ok: true });
    const result = await run.result;
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({
      name: "shop.order",
      status: "success",
      response: "Ordered a size l shirt, gift wrapped.",
      inputs: [{ state: "accepted", content: { size: "l", gift: true } }],
    });
    expect(result.turn.steps[1]!.text).toBe("Done: Ordered a size l shirt, gift wrapped.");
  });

  it("sends a decline back to the server, and the model reads what the tool made of it", async () => {
    const run = await turnCalling("shop.order");
    await waitFor(run, question);
    expect(run.handle.answer!("c1", null, { action: "decline", by: "u1" })).toEqual({ ok: true });
    const result = await run.result;
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ status: "success", response: "No order: the person chose to decline." });
    expect(result.turn.steps[1]!.text).toBe("Done: No order: the person chose to decline.");
  });

  it("answers cancel when the turn is cancelled while the person has not answered", async () => {
    const run = await turnCalling("shop.order");
    await waitFor(run, question);
    run.handle.cancel();
    const result = await run.result;
    expect(result.status).toBe("cancelled");
    expect(dataOf(run.events, "input").map((d) => d.input.state)).toEqual(["pending", "cancelled"]);
  });

  it("declines a question it cannot tie to one call: two calls in flight on the connection, nobody is asked", async () => {
    manager = createMcpManager([stdioServer("shop", [ELICIT])]);
    await manager.ready();
    ws = await tempWorkspace();
    const mcp = manager;
    const both = [
      { id: "c1", name: "shop.order", args: {} },
      { id: "c2", name: "shop.order", args: {} },
    ];
    const model = scriptedModel((req) => once(req, { toolCalls: both }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: () => mcp.tools() }, "Go");
    const result = await run.result;
    expect(dataOf(run.events, "input")).toEqual([]);
    expect(result.turn.steps[0]!.toolCalls.map((c) => c.response)).toEqual([
      "No order: the person chose to decline.",
      "No order: the person chose to decline.",
    ]);
  });

  it("refuses a form Delegate cannot show; the server reads why and nobody is asked", async () => {
    const run = await turnCalling("shop.bad_form");
    const result = await run.result;
    expect(dataOf(run.events, "input")).toEqual([]);
    const call = result.turn.steps[0]!.toolCalls[0]!;
    expect(call.status).toBe("error");
    expect(call.response).toContain("The client refused the question");
    expect(call.response).toContain("The question's form is not one Delegate can show (properties.colours");
  });
});

describe("MCP tool annotations and approval", () => {
  it("without a rule in the config, a read-only tool runs at once and a destructive one waits for approval", async () => {
    const run = await turnCalling("shop.peek", { requireApproval: undefined });
    expect(manager!.tools().map((t) => [t.spec.name, t.requiresApproval])).toEqual(
      expect.arrayContaining([
        ["shop.peek", false],
        ["shop.remove", true],
        ["shop.order", true],
      ]),
    );
    const result = await run.result;
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ status: "success", response: "peeked" });
    expect(result.turn.steps[0]!.toolCalls[0]!.approval).toBeUndefined();
  });

  it("an explicit requireApproval: false in the config still wins over a destructive hint", async () => {
    const run = await turnCalling("shop.remove", { requireApproval: false });
    const result = await run.result;
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ status: "success", response: "removed" });
  });
});
