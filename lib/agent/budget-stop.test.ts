import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@/lib/model/types";
import { BUILTIN_DEFINITIONS, type SubagentDefinition } from "./definitions";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { ofType, processOfRun, startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { lastUser, scriptedModel, systemOf, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace({ "plan.txt": "Release 2.0 ships on May 3." });
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const isGeneral = (r: ModelRequest) => systemOf(r).includes("general subagent");
const spawn = (id: string, agent: string, task: string) => ({ id, name: "subagent", args: { agent, task } });
const readPlan = (id: string) => ({ id, name: "read_note", args: { name: "plan" } });
const withReadNote = (d: SubagentDefinition): SubagentDefinition => ({ ...d, allowedTools: [...d.allowedTools, "read_note"] });

/** Master: spawn the given calls once, then answer "done". */
function master(calls: ReturnType<typeof spawn>[], child: (req: ModelRequest) => ScriptedReply | Promise<ScriptedReply>) {
  return scriptedModel((req) => {
    if (!isMaster(req)) return child(req);
    return toolResults(req.messages).length === 0 ? { toolCalls: calls, usage: { inputTokens: 100, outputTokens: 0 } } : { text: "done" };
  });
}

describe("a run's budget", () => {
  it("counts its subagents' spending: a general run on a budget stops when its explore child's responses reach it, and the child stops with it", async () => {
    const general = { ...withReadNote(BUILTIN_DEFINITIONS.find((d) => d.name === "general")!), budget: { tokens: 1_000 } };
    const explore = withReadNote(BUILTIN_DEFINITIONS.find((d) => d.name === "explore")!);
    const model = master([spawn("m1", "general", "Deep dive")], (req) => {
      if (isGeneral(req))
        return {
          text: "Handing it down.",
          toolCalls: [spawn("g1", "explore", "Read forever")],
          usage: { inputTokens: 200, outputTokens: 0 },
        };
      // The child never answers: 300 a response, so 200 + 300 × 3 = 1,100 crosses 1,000.
      return { toolCalls: [readPlan(`r${req.messages.length}`)], usage: { inputTokens: 300, outputTokens: 0 } };
    });
    const run = startTestTurn({ model, workspaceDir: ws.dir, definitions: [general, explore] }, "deep dive");
    const result = await run.result;

    expect(result.status).toBe("completed");
    const errors = ofType(run.events, "subagent_error");
    expect(errors.map((e) => [e.runId, e.endReason, e.error])).toEqual([
      ["run2", "budget_exceeded", "Stopped: a run above it ran out of its budget: 1,100 of 1,000 tokens."],
      ["run1", "budget_exceeded", "Ran out of its budget: 1,100 of 1,000 tokens."],
    ]);
    expect(model.requests.filter((r) => !isMaster(r) && !isGeneral(r))).toHaveLength(3);
    // The general run stopped while its child ran, so the step it was in had its answer's text: "Handing it down."
    const read = toolResults(model.requests.filter(isMaster).at(-1)!.messages)[0]!.content;
    expect(read).toContain("Status: Out of budget\nError: Ran out of its budget: 1,100 of 1,000 tokens.");
    expect(read).toContain("\n\nHanding it down.\n");
  });

  it("lets a response that answers finish as completed even when it crosses the budget: there is nothing left to stop", async () => {
    const capped = { ...withReadNote(BUILTIN_DEFINITIONS.find((d) => d.name === "explore")!), name: "capped", budget: { tokens: 100 } };
    const model = master([spawn("m1", "capped", "Answer at once")], () => ({
      text: "The answer.",
      usage: { inputTokens: 150, outputTokens: 5 },
    }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, definitions: [capped] }, "go");
    await run.result;
    expect(await processOfRun(run, "run1")).toMatchObject({ status: "success", response: "The answer." });
  });

  it("gives no partial answer when a budget above stops a run in the middle of a response", async () => {
    const explore = withReadNote(BUILTIN_DEFINITIONS.find((d) => d.name === "explore")!);
    let slowStarted!: () => void;
    const slowIsWaiting = new Promise<void>((resolve) => (slowStarted = resolve));
    const model = master([spawn("m1", "explore", "FAST spender"), spawn("m2", "explore", "SLOW writer")], (req) => {
      if (lastUser(req.messages).includes("SLOW")) {
        if (toolResults(req.messages).length === 0)
          return { text: "SLOW_FIRST_STEP", toolCalls: [readPlan("s1")], usage: { inputTokens: 10, outputTokens: 0 } };
        slowStarted();
        return { text: "SLOW_UNFINISHED", hang: true };
      }
      return slowIsWaiting.then(() => ({
        toolCalls: [readPlan(`f${req.messages.length}`)],
        usage: { inputTokens: 2_000, outputTokens: 0 },
      }));
    });
    const run = startTestTurn({ model, workspaceDir: ws.dir, definitions: [explore], limits: { turnBudget: { tokens: 2_000 } } }, "go");
    const result = await run.result;

    expect(result).toMatchObject({ status: "failed", endReason: "budget_exceeded" });
    const slow = await processOfRun(run, "run2");
    expect(slow).toMatchObject({ endReason: "budget_exceeded", error: "Stopped: the turn ran out of its budget: 2,110 of 2,000 tokens." });
    const returned = ofType(run.events, "agent:complete").find((e) => e.runId === "run2")!.response;
    expect(returned).toContain("(no answer)");
    expect(returned).not.toContain("SLOW_FIRST_STEP");
    expect(returned).not.toContain("SLOW_UNFINISHED");
  });
});

describe("a turn's budget", () => {
  it("takes the runtime's default when the turn names none, and its running totals stream as each response is counted", async () => {
    const model = scriptedModel(() => ({ toolCalls: [readPlan("x")], usage: { inputTokens: 400, outputTokens: 100 } }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, limits: { turnBudget: { tokens: 1_000 } } }, "read forever");
    const result = await run.result;
    expect(result).toMatchObject({ status: "failed", endReason: "budget_exceeded" });
    expect(result.turn).toMatchObject({ budget: { tokens: 1_000 }, endReason: "budget_exceeded" });
    expect(model.requests).toHaveLength(2);
    expect(result.stats.chat).toEqual({ inputTokens: 800, outputTokens: 200 });
    const firstResult = run.events.findIndex((e) => e.type === "turn:data" && e.data.kind === "tool_result");
    const firstCount = run.events.findIndex(
      (e) => e.type === "turn:data" && e.data.kind === "usage" && e.data.stats.chat.inputTokens === 400,
    );
    expect(firstCount).toBeGreaterThanOrEqual(0);
    expect(firstCount).toBeLessThan(firstResult);
  });
});
