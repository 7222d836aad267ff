import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contracts";
import type { ModelRequest } from "@/lib/model/types";
import { processInTurn } from "@/lib/turn/paths";
import { dataOf, flatData, type DataOf } from "@/test/support/turn/agent-data";
import { askTool, SIZE_FORM as sizeForm } from "@/test/support/agent/ask-tool";
import { ofType, startTestTurn, tempWorkspace, type TurnRun } from "@/test/support/agent/harness";
import { scriptedModel, systemOf, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";
import { BUILTIN_DEFINITIONS } from "./definitions";
import { MASTER_PROMPT_MARKER } from "./prompts";

/**
 * A tool's question in the runtime: the call waits for a person (its run's watchdogs held),
 * the answer reaches the tool, a decline and a stop reach it too, a form that cannot be
 * shown is the tool's own error, and answers that do not fit or come late are refused.
 */

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const once = (req: ModelRequest, first: ScriptedReply): ScriptedReply => {
  const results = toolResults(req.messages);
  return results.length === 0 ? first : { text: `Done: ${results.map((r) => r.content).join(" | ")}` };
};
const pick = { id: "p1", name: "pick_size", args: {} };
const definitions = BUILTIN_DEFINITIONS.map((d) => ({ ...d, allowedTools: [...d.allowedTools, "pick_size"] }));

function waitFor(run: TurnRun, match: (e: AgentEvent) => boolean, timeoutMs = 5_000): Promise<AgentEvent> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const found = run.events.find(match);
      if (found) resolve(found);
      else if (Date.now() - started > timeoutMs) reject(new Error("timed out waiting for an event"));
      else setTimeout(poll, 5);
    };
    poll();
  });
}
const asking = (e: AgentEvent) => (flatData(e) as DataOf<"input"> | undefined)?.input?.state === "pending";

describe("a tool's question in the runtime", () => {
  it("waits for the person's answer, refuses one that does not fit, and hands the tool the one that does", async () => {
    const model = scriptedModel((req) => once(req, { toolCalls: [pick] }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [askTool()] }, "Order a shirt");
    const asked = flatData(await waitFor(run, asking)) as DataOf<"input">;
    expect(asked).toMatchObject({ runId: null, callId: "p1", index: 0, input: { message: "Which size should I order?", form: sizeForm } });

    expect(run.handle.answer!("p1", null, { action: "accept", content: { size: "xl" }, by: "u1" })).toEqual({
      ok: false,
      code: "bad_request",
      message: 'The answer does not fit the form: Size must be one of "s", "m", "l".',
    });
    expect(run.handle.answer!("p1", null, { action: "accept", content: { size: "m" }, by: "u1" })).toEqual({ ok: true });
    const result = await run.result;
    expect(result.status).toBe("completed");
    const call = result.turn.steps[0]!.toolCalls[0]!;
    expect(call).toMatchObject({ status: "success", response: "The person chose m." });
    expect(call.inputs).toEqual([expect.objectContaining({ state: "accepted", answeredBy: "u1", content: { size: "m" } })]);
    expect(run.handle.answer!("p1", null, { action: "decline", by: "u1" })).toMatchObject({ ok: false });
  });

  it("tells the tool of a decline, at depth 1, and the subagent's model reads what the tool made of it", async () => {
    const model = scriptedModel((req) =>
      isMaster(req)
        ? once(req, { toolCalls: [{ id: "m1", name: "subagent", args: { agent: "general", task: "Order" } }] })
        : once(req, { toolCalls: [pick] }),
    );
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [askTool()], definitions }, "Order a shirt");
    const asked = flatData(await waitFor(run, asking)) as DataOf<"input">;
    expect(asked.runId).not.toBeNull();
    expect(run.handle.answer!("p1", asked.runId, { action: "decline", by: "u1" })).toEqual({ ok: true });
    const result = await run.result;
    const process = processInTurn(result.turn, asked.runId!)!;
    expect(process.steps[0]!.toolCalls[0]).toMatchObject({ response: "The person answered: decline.", inputs: [{ state: "declined" }] });
    expect(process.response).toBe("Done: The person answered: decline.");
  });

  it("cancels the question when its run is killed, and a late answer finds nothing", async () => {
    const model = scriptedModel((req) =>
      isMaster(req)
        ? once(req, { toolCalls: [{ id: "m1", name: "subagent", args: { agent: "general", task: "Order" } }] })
        : once(req, { toolCalls: [pick] }),
    );
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [askTool()], definitions }, "Order a shirt");
    const asked = flatData(await waitFor(run, asking)) as DataOf<"input">;
    expect(run.handle.kill(asked.runId!)).toEqual({ ok: true });
    await run.result;
    const ends = dataOf(run.events, "input").map((d) => d.input.state);
    expect(ends).toEqual(["pending", "cancelled"]);
    expect(dataOf(run.events, "input")[1]!.input.note).toBe("The run stopped before anyone answered.");
    expect(run.handle.answer!("p1", asked.runId, { action: "accept", content: { size: "s" }, by: "u1" })).toMatchObject({ ok: false });
  });

  it("gives the tool an error it reads when its form cannot be shown, and asks nobody", async () => {
    const nested = { type: "object", properties: { address: { type: "object", properties: {} } } };
    const model = scriptedModel((req) => once(req, { toolCalls: [pick] }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [askTool(nested)] }, "Order a shirt");
    const result = await run.result;
    expect(dataOf(run.events, "input")).toEqual([]);
    const call = result.turn.steps[0]!.toolCalls[0]!;
    expect(call.status).toBe("error");
    expect(call.response).toContain("Error [tool_failed]: The question's form is not one Delegate can show (properties.address");
  });

  it("holds the watchdogs while the person answers: the wait is theirs, and no one answering ends it as cancelled", async () => {
    const model = scriptedModel((req) => once(req, { toolCalls: [pick] }));
    const limits = { approvalTimeoutMs: 600, turnTimeoutMs: 300 };
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [askTool()], limits }, "Order a shirt");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ response: "The person answered: cancel.", inputs: [{ state: "expired" }] });
    expect(ofType(run.events, "turn:ended")[0]!.status).toBe("completed");
  });
});
