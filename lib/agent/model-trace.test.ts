import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelCallRecord } from "@/lib/contracts";
import { ofType, startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import { contentText } from "@/lib/model/content";

/**
 * The audit record of every model request: what each agent's model was sent and what it
 * answered, recorded by the runtime for the context inspector and exports.
 */
describe("model call records", () => {
  let ws: Awaited<ReturnType<typeof tempWorkspace>>;
  beforeEach(async () => {
    ws = await tempWorkspace({ "plan.txt": "Release 2.0 ships on May 3." });
  });
  afterEach(() => ws.cleanup());

  const isSubagent = (system: string) => !system.startsWith(MASTER_PROMPT_MARKER);

  it("records every request of the master and its subagent as sent and as answered, and the master's never hold the subagent's working text", async () => {
    const model = scriptedModel((req) => {
      const system = systemOf(req);
      if (toolResults(req.messages).some((m) => m.toolName === "subagent"))
        return { text: "The plan ships on May 3.", usage: { inputTokens: 50, outputTokens: 7 } };
      if (req.messages.some((m) => m.role === "tool" && m.toolName === "read_note")) return { text: "Found it: May 3." };
      if (isSubagent(system))
        return { text: "Working note: secret-interim. ", toolCalls: [{ id: "r1", name: "read_note", args: { name: "plan" } }] };
      return {
        text: "Asking a helper. ",
        toolCalls: [{ id: "s1", name: "subagent", args: { agent: "explore", task: "find the plan" } }],
        usage: { inputTokens: 40, outputTokens: 12 },
      };
    });
    const records: ModelCallRecord[] = [];
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "when does it ship?", [], { recordModelCall: (r) => records.push(r) });
    const result = await run.result;
    expect(result.status).toBe("completed");
    const runId = ofType(run.events, "subagent_started")[0]!.runId;

    const master = records.filter((r) => r.runId === null && r.purpose === "chat");
    const child = records.filter((r) => r.runId === runId && r.purpose === "chat");
    expect(master.map((r) => r.index)).toEqual([0, 1]);
    expect(child.map((r) => r.index)).toEqual([0, 1]);
    // As many records as requests the model received: nothing unrecorded, nothing twice.
    expect(records.filter((r) => r.purpose === "chat")).toHaveLength(model.requests.length);

    expect(master[0]).toMatchObject({
      turnId: "t1",
      finishReason: "tool_calls",
      usage: { inputTokens: 40, outputTokens: 12 },
      error: null,
      model: "scripted",
    });
    expect(master[0]!.response.toolCalls).toEqual([
      { id: "s1", name: "subagent", arguments: JSON.stringify({ agent: "explore", task: "find the plan" }) },
    ]);
    expect(master[1]).toMatchObject({
      finishReason: "stop",
      usage: { inputTokens: 50, outputTokens: 7 },
      response: { text: "The plan ships on May 3." },
    });
    // The exact messages sent: the master's second request ends with the subagent's clean result.
    const sent = master[1]!.request.messages;
    expect(sent.at(-1)).toMatchObject({ role: "tool", toolCallId: "s1", toolName: "subagent" });
    expect(sent.at(-1)!.content).toContain("Found it: May 3.");
    expect(sent).toEqual(
      model.requests
        .find((r) => r.messages.at(-1)?.role === "tool" && contentText(r.messages.at(-1)?.content ?? "").includes("Found it"))!
        .messages.map((m) => ({ ...m })),
    );
    // The clean-context rule, checked on the record of what the master's model really saw.
    for (const record of master) expect(JSON.stringify(record.request)).not.toContain("secret-interim");
    expect(child[1]!.request.messages.at(-1)).toMatchObject({
      role: "tool",
      toolName: "read_note",
      content: "Release 2.0 ships on May 3.",
    });
    expect(child[0]!.request.tools.map((t) => t.name)).toContain("read_note");
    // No provider usage reported for the subagent's requests: null, not an estimate.
    expect(child[0]!.usage).toBeNull();
  });

  it("records a request cut off by a kill, with why it ended", async () => {
    let killed = false;
    const model = scriptedModel((req) => {
      if (toolResults(req.messages).length > 0) return { text: "It was stopped." };
      if (isSubagent(systemOf(req))) return { text: "Starting… ", hang: true };
      return { toolCalls: [{ id: "s1", name: "subagent", args: { agent: "explore", task: "wait forever" } }] };
    });
    const records: ModelCallRecord[] = [];
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (event, r) => {
          if (event.type === "subagent_data" && event.data.kind === "token" && !killed) {
            killed = true;
            setTimeout(() => r.handle.kill(event.runId), 10);
          }
        },
      },
      "start a slow helper",
      [],
      { recordModelCall: (r) => records.push(r) },
    );
    await run.result;
    expect(killed).toBe(true);
    const cut = records.find((r) => r.runId !== null && r.purpose === "chat");
    expect(cut).toMatchObject({ index: 0, finishReason: null, response: { text: "Starting… " } });
    expect(cut!.error).toMatch(/aborted|abandoned/);
  });

  it("a recorder that throws does not fail the turn", async () => {
    const model = scriptedModel(() => ({ text: "Fine." }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "hi", [], {
      recordModelCall: () => {
        throw new Error("disk full");
      },
    });
    expect((await run.result).status).toBe("completed");
  });
});
