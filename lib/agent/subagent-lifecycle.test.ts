import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@/lib/model/types";
import { BUILTIN_DEFINITIONS, type SubagentDefinition } from "./definitions";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { hangingTool, masterText, ofType, readNoteTool, startTestTurn, tempWorkspace, processOfRun } from "@/test/support/agent/harness";
import { lastUser, scriptedModel, systemOf, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";
import { dataOf } from "@/test/support/turn/agent-data";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace({ "plan.txt": "Release 2.0 ships on May 3." });
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const isGeneral = (r: ModelRequest) => systemOf(r).includes("general subagent");
const spawn = (id: string, agent: string, task: string) => ({ id, name: "subagent", args: { agent, task } });

/** Master: spawn the given calls once, then answer with every result it got. */
function master(calls: ReturnType<typeof spawn>[], child: (req: ModelRequest) => ScriptedReply | Promise<ScriptedReply>) {
  return scriptedModel((req) => {
    if (!isMaster(req)) return child(req);
    const results = toolResults(req.messages);
    return results.length === 0 ? { toolCalls: calls } : { text: results.map((r) => r.content).join("\n=====\n") };
  });
}

describe("subagent tree", () => {
  it("lets a general child spawn an explore grandchild, tagged with parentRunId and depth 2", async () => {
    const model = master([spawn("m1", "general", "Deep dive into the plan")], (req) => {
      if (isGeneral(req)) {
        const results = toolResults(req.messages);
        return results.length === 0
          ? { toolCalls: [spawn("g1", "explore", "Read the plan")] }
          : { text: `General summary of: ${results[0]!.content.split("\n")[4]}` };
      }
      return { text: "Grandchild found: May 3", thinking: "GRANDCHILD_THINKING" };
    });
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "deep dive");
    const result = await run.result;
    expect(result.status).toBe("completed");
    const started = ofType(run.events, "subagent_started");
    expect(started.map((s) => [s.runId, s.parentRunId, s.depth, s.callId])).toEqual([
      ["run1", null, 1, "m1"],
      ["run2", "run1", 2, "g1"],
    ]);
    const childCall = ofType(run.events, "subagent_data").find((e) => e.runId === "run1" && e.data.kind === "tool_call");
    expect(childCall?.data).toMatchObject({ callId: "g1", name: "subagent" });
    expect(run.events.indexOf(childCall!)).toBeLessThan(run.events.indexOf(started[1]!));
    const completes = ofType(run.events, "agent:complete");
    expect(completes.map((c) => [c.runId, c.parentRunId])).toEqual([
      ["run2", "run1"],
      ["run1", null],
    ]);
    const nested = (await processOfRun(run, completes[1]!.runId)).steps[0]!.toolCalls[0]!;
    expect(nested.subagent).toMatchObject({ runId: "run2", depth: 2, response: "Grandchild found: May 3" });
    expect(nested.subagent!.steps.map((s) => s.thinking)).toContain("GRANDCHILD_THINKING");
    expect(nested.response).toBe(completes[0]!.response);
    expect(masterText(result.turn)).toContain("General summary of: Grandchild found: May 3");
    expect(JSON.stringify(model.requests.filter(isMaster))).not.toContain("GRANDCHILD_THINKING");
  });

  it("refuses a spawn at the depth limit with a structured error, without crashing", async () => {
    const model = master([spawn("m1", "general", "level one")], (req) => {
      const depth = Number(/Depth: (\d)/.exec(systemOf(req))?.[1]);
      const results = toolResults(req.messages);
      if (results.length === 0) return { toolCalls: [spawn(`d${depth}`, "general", `level ${depth + 1}`)] };
      return { text: `depth ${depth} got: ${results[0]!.content.slice(0, 400)}` };
    });
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "go deep");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(ofType(run.events, "subagent_started").map((s) => s.depth)).toEqual([1, 2]);
    const depth2Result = ofType(run.events, "subagent_data").find((e) => e.depth === 2 && e.data.kind === "tool_result");
    expect(depth2Result?.data).toMatchObject({ status: "error" });
    expect(depth2Result?.data.kind === "tool_result" && depth2Result.data.response).toContain(
      "Error [depth_limit]: Spawn refused: this agent is at depth 2 and the maximum spawn depth is 3",
    );
  });

  it("refuses a sixth concurrently active child of one agent", async () => {
    const calls = Array.from({ length: 7 }, (_, i) => spawn(`m${i}`, "explore", `aspect ${i}`));
    const model = master(calls, (req) => ({ text: `answer for ${lastUser(req.messages)}` }));
    const run = startTestTurn({ model, workspaceDir: ws.dir }, "many");
    const result = await run.result;
    expect(ofType(run.events, "subagent_started")).toHaveLength(5);
    const errors = dataOf(run.events, "tool_result", "master").filter((r) => r.status === "error");
    expect(errors.map((e) => e.callId)).toEqual(["m5", "m6"]);
    expect(errors[0]!.response).toContain("Error [children_limit]: Spawn refused: this agent already has 5 active subagents (limit 5)");
    expect(masterText(result.turn)).toContain("answer for aspect 4");
  });

  it("runs parallelizable children of one step concurrently and the others one at a time", async () => {
    // Each child records when it starts and ends. A parallel child ends only once every
    // parallel child has started (or a bound passed): run one at a time, the first would
    // end before the second started, so the overlap below cannot happen by luck. A serial
    // child waits the same way for the other serial one, which a serial runner never
    // starts meanwhile: it waits its bound, and a slow machine can only delay it.
    const intervals = new Map<string, { start: number; end?: number }>();
    let clock = 0;
    const group = (task: string) => (["A", "B"].includes(task) ? ["A", "B"] : ["C", "D"]);
    const allStarted = (tasks: string[]) => tasks.every((t) => intervals.has(t));
    const child = async (req: ModelRequest) => {
      const task = lastUser(req.messages);
      intervals.set(task, { start: clock++ });
      const bound = Date.now() + (group(task)[0] === "A" ? 10_000 : 250);
      while (!allStarted(group(task)) && Date.now() < bound) await new Promise((r) => setTimeout(r, 5));
      intervals.get(task)!.end = clock++;
      return { text: `done ${task}` };
    };
    const definitions: SubagentDefinition[] = [
      ...BUILTIN_DEFINITIONS,
      { ...BUILTIN_DEFINITIONS[0]!, name: "serial", parallelizable: false },
    ];
    const calls = [spawn("a", "explore", "A"), spawn("b", "explore", "B"), spawn("c", "serial", "C"), spawn("d", "serial", "D")];
    const run = startTestTurn({ model: master(calls, child), workspaceDir: ws.dir, definitions }, "parallel please");
    await run.result;
    const [a, b, c, d] = ["A", "B", "C", "D"].map((t) => intervals.get(t)!);
    // A and B overlap: each started before either ended.
    expect(Math.max(a!.start, b!.start)).toBeLessThan(Math.min(a!.end!, b!.end!));
    // C and D come after both, one after the other.
    expect(c!.start).toBeGreaterThan(Math.max(a!.end!, b!.end!));
    expect(c!.end).toBeLessThan(d!.start);
  });
});

describe("subagent lifecycle controls", () => {
  it("ends a hanging child with watchdog_timeout and hands the parent an error result", async () => {
    const model = master([spawn("m1", "explore", "hang")], () => ({ text: "working…", hang: true }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, limits: { subagentTimeoutMs: 100 } }, "go");
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(ofType(run.events, "subagent_error")[0]).toMatchObject({
      endReason: "watchdog_timeout",
      error: "Stopped by the watchdog after 100 ms.",
    });
    // What it wrote before the watchdog stays in its step for audit; it gave no answer.
    const process = await processOfRun(run, ofType(run.events, "agent:complete")[0]!.runId);
    expect(process).toMatchObject({ status: "error", endReason: "watchdog_timeout", response: "" });
    expect(process.steps.map((s) => s.text)).toEqual(["working…"]);
    expect(dataOf(run.events, "tool_result", "master")[0]).toMatchObject({ status: "error" });
    expect(masterText(result.turn)).toContain("Status: Timed out (watchdog)");
  });

  it("a definition's own timeout is its watchdog, whatever SUBAGENT_TIMEOUT_MS says", async () => {
    const model = master([spawn("m1", "quick", "hang")], () => ({ text: "working…", hang: true }));
    const quick: SubagentDefinition = { ...BUILTIN_DEFINITIONS[0]!, name: "quick", timeoutMs: 1_000 };
    const run = startTestTurn({ model, workspaceDir: ws.dir, definitions: [quick], limits: { subagentTimeoutMs: 600_000 } }, "go");
    await run.result;
    expect(ofType(run.events, "subagent_error")[0]).toMatchObject({
      endReason: "watchdog_timeout",
      error: "Stopped by the watchdog after 1000 ms.",
    });
  });

  it("kills a running child: end reason killed, the parent gets an error result, a second kill is refused", async () => {
    const outcomes: unknown[] = [];
    const model = master([spawn("m1", "explore", "hang")], () => ({ hang: true }));
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (e, r) => {
          if (e.type === "subagent_started") setTimeout(() => outcomes.push(r.handle.kill(e.runId), r.handle.kill("ghost")), 10);
        },
      },
      "go",
    );
    const result = await run.result;
    expect(outcomes[0]).toEqual({ ok: true });
    expect(outcomes[1]).toEqual({ ok: false, message: "Run ghost was not found in this turn" });
    expect(ofType(run.events, "subagent_error")[0]).toMatchObject({ endReason: "killed" });
    expect(result.status).toBe("completed");
    expect(masterText(result.turn)).toContain("Status: Killed");
    expect(run.handle.kill("run1")).toEqual({ ok: false, message: "Run run1 is not running (status: killed) -- cannot kill." });
  });

  it("kills a child while its tool runs: the child's call ends cancelled, with the text its model would have read", async () => {
    // Ignores the abort signal: the runtime must not wait for it.
    const { tool: waitForever, started: running } = hangingTool();
    const model = master([spawn("m1", "explore", "wait")], () => ({ toolCalls: [{ id: "x1", name: "wait_forever", args: {} }] }));
    const definitions = BUILTIN_DEFINITIONS.map((d) => ({ ...d, allowedTools: [...d.allowedTools, "wait_forever"] }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [readNoteTool, waitForever], definitions }, "go");
    await running;
    expect(run.handle.kill("run1")).toEqual({ ok: true });
    const result = await run.result;
    expect(result.status).toBe("completed");
    const child = await processOfRun(run, "run1");
    expect(child).toMatchObject({ status: "error", endReason: "killed" });
    expect(child.steps[0]!.toolCalls[0]).toMatchObject({
      callId: "x1",
      status: "cancelled",
      response: 'Error [cancelled]: "wait_forever" was stopped before it finished.',
    });
  });

  it("injects a steer at the child's next step boundary and keeps its transcript", async () => {
    let steered: unknown;
    const model = master([spawn("m1", "explore", "read the plan")], (req) => {
      const results = toolResults(req.messages);
      if (results.length === 0) return { toolCalls: [{ id: "x1", name: "read_note", args: { name: "plan" } }] };
      return { text: `Done; last user message was: ${lastUser(req.messages)}` };
    });
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (e, r) => {
          if (e.type === "subagent_data" && e.data.kind === "tool_call") steered = r.handle.steer(e.runId, "Focus on the date only");
        },
      },
      "go",
    );
    await run.result;
    expect(steered).toEqual({ ok: true });
    const second = model.requests.filter((r) => !isMaster(r))[1]!;
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(second.messages[3]!.content).toBe("Release 2.0 ships on May 3.");
    expect(lastUser(second.messages)).toBe("[Steering message]\nFocus on the date only");
    // Recorded where it was injected: before the child's second step, in the process the UI and storage keep.
    const recorded = ofType(run.events, "subagent_data").filter((e) => e.data.kind === "steer");
    expect(recorded.map((e) => e.data)).toEqual([
      { kind: "steer", step: 1, index: 0, message: "Focus on the date only", at: expect.any(String) },
    ]);
    const process = await processOfRun(run, ofType(run.events, "agent:complete")[0]!.runId);
    expect(process.steering).toEqual([{ step: 1, message: "Focus on the date only", at: (recorded[0]!.data as { at: string }).at }]);
    expect(run.handle.steer("run1", "too late")).toEqual({
      ok: false,
      message: "Run run1 is not running (status: completed) -- cannot steer; use kill+respawn instead.",
    });
  });

  it("cancelling the turn stops running children, still reports their end, then ends the turn once", async () => {
    const model = master([spawn("m1", "general", "a"), spawn("m2", "explore", "b")], (req) =>
      isGeneral(req) && toolResults(req.messages).length === 0 ? { toolCalls: [spawn("g1", "explore", "c")] } : { hang: true },
    );
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (e, r) => e.type === "subagent_started" && e.depth === 2 && setTimeout(() => r.handle.cancel(), 10),
      },
      "go",
    );
    const result = await run.result;
    expect(result.status).toBe("cancelled");
    expect(
      ofType(run.events, "subagent_error")
        .map((e) => [e.runId, e.endReason])
        .sort(),
    ).toEqual([
      ["run1", "killed"],
      ["run2", "killed"],
      ["run3", "killed"],
    ]);
    expect(ofType(run.events, "agent:complete")).toHaveLength(3);
    expect(dataOf(run.events, "tool_result", "master").map((e) => e.status)).toEqual(["error", "error"]);
    expect(ofType(run.events, "turn:ended")).toHaveLength(1);
    expect(run.events.at(-1)).toMatchObject({ type: "turn:ended", status: "cancelled" });
  });

  it("fails a child that exceeds its definition's maxSteps and tells the parent", async () => {
    const definitions = [{ ...BUILTIN_DEFINITIONS[0]!, maxSteps: 2 }];
    let n = 0;
    const model = master([spawn("m1", "explore", "loop")], () => ({
      toolCalls: [{ id: `x${n++}`, name: "read_note", args: { name: "plan" } }],
    }));
    const run = startTestTurn(
      { model, workspaceDir: ws.dir, definitions: definitions.map((d) => ({ ...d, allowedTools: ["read_note"] })) },
      "go",
    );
    const result = await run.result;
    expect(ofType(run.events, "subagent_error")[0]).toMatchObject({
      endReason: "failed",
      error: "Reached its limit of 2 steps without a final answer.",
    });
    expect(masterText(result.turn)).toContain("Status: Failed\nError: Reached its limit of 2 steps without a final answer.");
  });
});

describe("steering an idle child", () => {
  it("delivers a steer that arrives during the child's final answer as a follow-up step, whose answer is the result", async () => {
    let answered = 0;
    const model = master([spawn("m1", "explore", "summarise")], (req) => {
      answered++;
      return { text: answered === 1 ? "first answer" : ` / follow-up to: ${lastUser(req.messages)}` };
    });
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (e, r) =>
          e.type === "subagent_data" && e.data.kind === "token" && answered === 1 && r.handle.steer(e.runId, "also mention risks"),
      },
      "go",
    );
    await run.result;
    const completed = ofType(run.events, "subagent_completed")[0]!;
    expect(completed.response).toBe(" / follow-up to: [Steering message]\nalso mention risks");
    expect(completed.stats.steps).toBe(2);
    const process = await processOfRun(run, ofType(run.events, "agent:complete")[0]!.runId);
    expect(process.steps.map((s) => s.text)).toEqual(["first answer", completed.response]);
  });
});
