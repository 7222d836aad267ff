import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "@/lib/model/types";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { hangingTool, masterText, ofType, readNoteTool, startTestTurn, tempWorkspace, processOfRun } from "@/test/support/agent/harness";
import { lastUser, scriptedModel, systemOf, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";
import { dataOf, isData } from "@/test/support/turn/agent-data";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace({ "plan.txt": "Release 2.0 ships on May 3.", "bugs.txt": "BUG-7: login fails on Safari." });
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const isExplore = (r: ModelRequest) => systemOf(r).includes("explore subagent");

describe("agent runtime: master turn", () => {
  it("streams a direct answer with offsets and ends the turn once", async () => {
    const model = scriptedModel(() => ({ text: "Hello there! Here is a table.", usage: { inputTokens: 30, outputTokens: 8 } }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "hello");
    const result = await run.result;
    expect(result.status).toBe("completed");
    const [step] = result.turn.steps;
    expect(result.turn.steps).toStrictEqual([
      { text: "Hello there! Here is a table.", thinking: "", toolCalls: [], startedAt: expect.any(String), endedAt: expect.any(String) },
    ]);
    // The step's times frame its model request: it starts no later than it ends.
    expect(Date.parse(step!.startedAt!)).toBeLessThanOrEqual(Date.parse(step!.endedAt!));
    expect(run.events[0]).toMatchObject({ type: "turn:started", prompt: "hello" });
    const tokens = dataOf(run.events, "token", "master");
    expect(tokens.length).toBeGreaterThan(1);
    let offset = 0;
    for (const t of tokens) {
      expect(t.offset).toBe(offset);
      offset += t.text.length;
    }
    expect(ofType(run.events, "turn:ended")).toHaveLength(1);
    expect(run.events.at(-1)).toMatchObject({ type: "turn:ended", status: "completed" });
    expect(result.stats.chat).toEqual({ inputTokens: 30, outputTokens: 8 });
    expect(result.stats.steps).toBe(1);
  });

  it("runs a tool, feeds the result back under the same id, and keeps each step's text with its calls", async () => {
    const model = scriptedModel((req, i) =>
      i === 0
        ? { text: "Let me check. ", toolCalls: [{ id: "c1", name: "read_note", args: { name: "plan" } }] }
        : { text: `The plan: ${toolResults(req.messages)[0]?.content}` },
    );
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "what is the plan?");
    const result = await run.result;
    expect(masterText(result.turn)).toBe("Let me check. The plan: Release 2.0 ships on May 3.");
    expect(dataOf(run.events, "tool_call", "master")[0]).toMatchObject({ callId: "c1", name: "read_note", step: 0 });
    expect(result.turn.steps.map((s) => [s.text, s.toolCalls.map((c) => c.callId)])).toEqual([
      ["Let me check. ", ["c1"]],
      ["The plan: Release 2.0 ships on May 3.", []],
    ]);
    expect(dataOf(run.events, "tool_result", "master")[0]).toMatchObject({
      callId: "c1",
      status: "success",
      response: "Release 2.0 ships on May 3.",
    });
    const second = model.requests[1]!.messages;
    const assistant = second.find((m) => m.role === "assistant");
    expect(assistant).toMatchObject({ toolCalls: [{ id: "c1", name: "read_note" }] });
    expect(second.at(-1)).toMatchObject({ role: "tool", toolCallId: "c1", toolName: "read_note" });
  });

  it("returns unknown tools and invalid arguments to the model as structured errors", async () => {
    const model = scriptedModel((req, i) =>
      i === 0
        ? {
            toolCalls: [
              { id: "a", name: "delete_everything", args: {} },
              { id: "b", name: "read_note", args: "{not json" },
              { id: "c", name: "read_note", args: { name: "../etc/passwd" } },
              { id: "d", name: "subagent", args: { agent: "nope", task: "x" } },
              { id: "e", name: "subagent", args: { agent: "explore" } },
            ],
          }
        : {
            text: toolResults(req.messages)
              .map((m) => m.content)
              .join("\n"),
          },
    );
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "break things");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(masterText(result.turn)).toContain('Error [unknown_tool]: Unknown tool "delete_everything"');
    expect(masterText(result.turn)).toContain('Error [invalid_arguments]: Arguments for "read_note" are not valid JSON');
    expect(masterText(result.turn)).toContain('Error [invalid_arguments]: Invalid arguments for "read_note"');
    expect(masterText(result.turn)).toContain('Error [unknown_subagent]: Unknown subagent "nope". Available subagents: explore, general');
    expect(masterText(result.turn)).toMatch(/Error \[invalid_arguments\]: Invalid arguments for "subagent": task/);
    expect(dataOf(run.events, "tool_result", "master").every((e) => e.status === "error")).toBe(true);
    expect(ofType(run.events, "subagent_started")).toHaveLength(0);
  });

  it("ends the turn as failed with the model's readable error", async () => {
    const model = scriptedModel(() => ({
      text: "Partial ",
      error: new ModelError("rate_limited", "The model provider is rate limiting requests; try again in a minute."),
    }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "hi");
    const result = await run.result;
    expect(result).toMatchObject({ status: "failed", error: "The model provider is rate limiting requests; try again in a minute." });
    expect(ofType(run.events, "turn:ended")).toEqual([expect.objectContaining({ status: "failed", error: result.error })]);
  });

  it("stops a master whose model streams forever with its watchdog: the turn fails and says why", async () => {
    const model = scriptedModel(() => ({ text: "Thinking forever…", hang: true }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, limits: { turnTimeoutMs: 150 } }, "hi");
    const result = await run.result;
    expect(result).toMatchObject({ status: "failed", error: "Stopped by the watchdog after 0.15 s (TURN_TIMEOUT_MS)." });
    expect(masterText(result.turn)).toBe("Thinking forever…");
    expect(ofType(run.events, "turn:ended")).toEqual([expect.objectContaining({ status: "failed", error: result.error })]);
  });

  it("ends the turn as failed when the model throws a bug, and survives a publisher that throws", async () => {
    const model = scriptedModel(() => {
      throw new TypeError("cannot read properties of undefined");
    });
    const warnings: string[] = [];
    let published = 0;
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        warnings,
        onEvent: () => {
          published++;
          throw new Error("socket gone");
        },
      },
      "hi",
    );
    const result = await run.result;
    expect(result).toMatchObject({ status: "failed", error: "cannot read properties of undefined" });
    expect(run.events.map((e) => e.type)).toEqual(["turn:started", "turn:ended"]);
    expect(published).toBe(2);
    expect(warnings).toContain("publishing an agent event failed");
  });

  it("fails clearly when the master runs out of steps", async () => {
    const model = scriptedModel((_, i) => ({ toolCalls: [{ id: `c${i}`, name: "read_note", args: { name: "plan" } }] }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, limits: { maxSteps: 3 } }, "loop forever");
    const result = await run.result;
    expect(result).toMatchObject({ status: "failed", error: "The agent used all 3 steps without reaching a final answer." });
    expect(model.requests).toHaveLength(3);
    expect(dataOf(run.events, "tool_result", "master")).toHaveLength(3);
  });

  it("cancels a hanging model: one turn:ended with status cancelled", async () => {
    const model = scriptedModel(() => ({ text: "Thinking about it", hang: true }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, onEvent: (e, r) => isData(e, "token") && r.handle.cancel() }, "hi");
    const result = await run.result;
    expect(result.status).toBe("cancelled");
    expect(ofType(run.events, "turn:ended")).toEqual([expect.objectContaining({ status: "cancelled" })]);
  });

  it("cancels a tool call still running: it ends cancelled, and the model later reads the same text as before", async () => {
    // Ignores the abort signal: the runtime must not wait for it.
    const { tool: waitForever, started: running } = hangingTool();
    const tools = [readNoteTool, waitForever];
    const first = scriptedModel(() => ({ toolCalls: [{ id: "w1", name: "wait_forever", args: {} }] }));
    const run = startTestTurn({ model: first, workspaceDir: ws.dir, tools }, "wait");
    await running;
    run.handle.cancel();
    const result = await run.result;
    // The text the model reads for a stopped call, exactly as it was before the status said so.
    const stoppedText = 'Error [cancelled]: "wait_forever" was stopped before it finished.';
    expect(result.status).toBe("cancelled");
    expect(dataOf(run.events, "tool_result", "master")).toEqual([
      expect.objectContaining({ callId: "w1", status: "cancelled", response: stoppedText }),
    ]);
    expect(result.turn.steps[0]!.toolCalls[0]).toMatchObject({ callId: "w1", status: "cancelled", response: stoppedText });

    const next = scriptedModel(() => ({ text: "It was stopped." }));
    await startTestTurn({ model: next, workspaceDir: ws.dir, tools }, "what happened?", [result.turn], { turnId: "t2" }).result;
    expect(toolResults(next.requests[0]!.messages)).toEqual([expect.objectContaining({ toolCallId: "w1", content: stoppedText })]);
  });
});

describe("agent runtime: subagents", () => {
  const explorer = (reply: (req: ModelRequest, i: number) => ScriptedReply) =>
    scriptedModel((req, i) => {
      if (isMaster(req)) {
        const results = toolResults(req.messages);
        if (results.length === 0) {
          return {
            text: "Delegating. ",
            toolCalls: [{ id: "m1", name: "subagent", args: { agent: "explore", task: "Read the plan note", objective: "Know the date" } }],
          };
        }
        return { text: `Final: ${results[0]!.content}` };
      }
      return reply(req, i);
    });

  it("publishes the child's lifecycle in order and gives the master only the clean result", async () => {
    const model = explorer((req) =>
      toolResults(req.messages).length === 0
        ? {
            thinking: "SECRET_THINKING_MARK",
            toolCalls: [{ id: "x1", name: "read_note", args: { name: "plan" } }],
            usage: { inputTokens: 100, outputTokens: 10 },
          }
        : { text: `The plan says: ${toolResults(req.messages)[0]!.content}`, usage: { inputTokens: 200, outputTokens: 20 } },
    );
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "when do we ship?");
    const result = await run.result;
    expect(result.status).toBe("completed");

    const types = run.events.map((e) =>
      e.type === "subagent_data" ? `data:${e.data.kind}` : e.type === "turn:data" ? `master:${e.data.kind}` : e.type,
    );
    expect(types.filter((t) => !["master:token", "master:usage", "data:token"].includes(t))).toEqual([
      "turn:started",
      "master:tool_call",
      "subagent_started",
      "data:thinking",
      "data:tool_call",
      // Each response's usage as soon as it is counted (a budget's live figure), and each step's end with its times.
      "data:usage",
      "data:tool_result",
      "data:usage",
      "data:usage",
      "data:usage",
      "subagent_completed",
      "agent:complete",
      "master:tool_result",
      "turn:ended",
    ]);
    // The child's answer streams between its tool result and its completion.
    const firstToken = types.indexOf("data:token");
    expect(firstToken).toBeGreaterThan(types.indexOf("data:tool_result"));
    expect(firstToken).toBeLessThan(types.indexOf("subagent_completed"));

    const started = ofType(run.events, "subagent_started")[0]!;
    expect(started).toMatchObject({
      callId: "m1",
      runId: "run1",
      parentRunId: null,
      depth: 1,
      name: "explore",
      task: "Read the plan note",
    });
    expect(started.prompt).toContain("## Objective\nKnow the date");
    const complete = ofType(run.events, "agent:complete")[0]!;
    expect(complete.response).toMatch(/^\[Subagent Result: explore-run1\]\nStatus: Completed\nCondensation: Level 1 \(passthrough\)/);
    expect(complete.response).toContain("The plan says: Release 2.0 ships on May 3.");
    expect(complete.response).toMatch(/Runtime: \d+\.\ds \| Steps: 2 \| Tokens: 330 \| Cost: \$0\.0000/);
    const process = await processOfRun(run, complete.runId);
    expect(process).toMatchObject({
      status: "success",
      endReason: "completed",
      response: "The plan says: Release 2.0 ships on May 3.",
      steps: [
        { text: "", thinking: "SECRET_THINKING_MARK", toolCalls: [{ callId: "x1", name: "read_note", status: "success" }] },
        { text: "The plan says: Release 2.0 ships on May 3.", thinking: "" },
      ],
    });
    // The process lives in the turn, folded from the run's own events; agent:complete adds only the clean result.
    expect(result.turn.steps[0]!.toolCalls[0]!.subagent).toStrictEqual(process);
    expect(complete).not.toHaveProperty("subagent");
    expect(dataOf(run.events, "tool_result", "master")[0]).toMatchObject({ callId: "m1", status: "success", response: complete.response });

    const finalMaster = model.requests.filter(isMaster).at(-1)!;
    const toolMessage = finalMaster.messages.find((m) => m.role === "tool")!;
    expect(toolMessage.content).toBe(complete.response);
    const serialized = JSON.stringify(finalMaster);
    expect(serialized).not.toContain("SECRET_THINKING_MARK");
    expect(serialized).not.toContain('"toolCalls":[{"callId"');
    expect(serialized).not.toContain('"success":true');
    // Chat usage of the child (300 + 30) is summed into the turn.
    expect(result.stats.chat.inputTokens).toBeGreaterThan(300);
    expect(
      ofType(run.events, "subagent_data")
        .filter((e) => e.data.kind === "usage")
        .at(-1)!.data,
    ).toEqual({
      kind: "usage",
      stats: {
        chat: { inputTokens: 300, outputTokens: 30 },
        system: { inputTokens: 0, outputTokens: 0 },
        steps: 2,
        runtimeMs: expect.any(Number),
        cost: 0,
      },
      stepTiming: { step: 1, startedAt: expect.any(String), endedAt: expect.any(String) },
    });
  });

  it("gives the child a spawn packet with the last five parent messages, not raw parent turns", async () => {
    const model = explorer(() => ({ text: "done" }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "when do we ship?");
    await run.result;
    const child = model.requests.find(isExplore)!;
    expect(child.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(lastUser(child.messages)).toBe("Read the plan note");
    expect(systemOf(child)).toContain("Recent parent conversation (last 5 messages");
    expect(systemOf(child)).toContain("user: when do we ship?");
    expect(systemOf(child)).toContain(`Workspace: ${ws.dir}`);
    expect(child.tools?.map((t) => t.name).sort()).toEqual(["read_note"]);
  });
});
