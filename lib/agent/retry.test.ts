import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatTurn } from "@/lib/contracts";
import { buildSessionContext } from "@/lib/context/build-session-context";
import type { ModelRequest } from "@/lib/model/types";
import { MASTER_PROMPT_MARKER } from "./prompts";
import type { RetryResult } from "./retry";
import { masterText, ofType, startTestTurn, tempWorkspace, type TurnRun } from "@/test/support/agent/harness";
import { lastUser, scriptedModel, systemOf, toolResults, type ScriptedModel } from "@/test/support/agent/scripted-model";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.cleanup());

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const spawn = (id: string, task: string) => ({ id, name: "subagent", args: { agent: "explore", task } });
const taskOf = (r: ModelRequest) => lastUser(r.messages).split("## Task\n").at(-1)!.trim();
const childRequests = (model: ScriptedModel, task: string) => model.requests.filter((r) => !isMaster(r) && taskOf(r) === task);

/**
 * Master: spawns `calls` in one step, then answers with every result it read. Children:
 * "alpha" hangs until killed, "beta" answers when `releaseBeta` is called, anything else
 * answers at once with its task.
 */
function scenario(calls: ReturnType<typeof spawn>[], onMasterRead?: () => void) {
  let releaseBeta!: () => void;
  const betaGate = new Promise<void>((resolve) => (releaseBeta = resolve));
  const model = scriptedModel(async (req) => {
    if (isMaster(req)) {
      const results = toolResults(req.messages.slice(req.messages.findLastIndex((m) => m.role === "user")));
      if (results.length === 0) return { toolCalls: calls };
      onMasterRead?.();
      return { text: results.map((r) => `[${r.toolCallId}] ${r.content}`).join("\n=====\n") };
    }
    const task = taskOf(req);
    if (task === "alpha") return { text: "ALPHA_INTERNAL_NOTES", hang: true };
    if (task === "beta") {
      await betaGate;
      return { text: "beta done" };
    }
    return { text: `fixed: ${task}` };
  });
  return { model, releaseBeta };
}

/** Kills the first "alpha" run as soon as it starts; calls `onKilled` once its failure has been handed back. */
function killAlpha(onKilled: (run: TurnRun, runId: string) => void) {
  let alpha: string | undefined;
  return (event: Parameters<NonNullable<Parameters<typeof startTestTurn>[0]["onEvent"]>>[0], run: TurnRun) => {
    if (event.type === "subagent_started" && event.task === "alpha" && alpha === undefined) {
      alpha = event.runId;
      setTimeout(() => run.handle.kill(event.runId), 0);
    }
    // The failure is retryable once the call has returned to its parent, just after agent:complete.
    if (event.type === "agent:complete" && event.runId === alpha) setTimeout(() => onKilled(run, alpha!), 5);
  };
}

describe("retry inside a running turn", () => {
  it("replaces the killed run's result with the retry's, with the edited task, and never re-runs the sibling", async () => {
    const { model, releaseBeta } = scenario([spawn("a", "alpha"), spawn("b", "beta")]);
    let retried: RetryResult | undefined;
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: killAlpha((r, runId) => {
          retried = r.handle.retry!(runId, "alpha again");
          releaseBeta();
        }),
      },
      "go",
    );
    const result = await run.result;
    expect(result.status).toBe("completed");
    expect(retried).toEqual({ ok: true, runId: expect.any(String) });
    const newRunId = retried!.ok ? retried!.runId : "";

    // The parent read the retry's clean result under its own call id; the sibling's result is untouched.
    const masters = model.requests.filter(isMaster);
    expect(masters).toHaveLength(2);
    const read = toolResults(masters[1]!.messages);
    expect(read.map((m) => m.toolCallId)).toEqual(["a", "b"]);
    expect(read[0]!.content).toContain("fixed: alpha again");
    expect(read[0]!.content).not.toMatch(/killed/i);
    expect(read[1]!.content).toContain("beta done");
    expect(JSON.stringify(masters)).not.toContain("ALPHA_INTERNAL_NOTES");
    expect(masterText(result.turn)).toContain("[a] [Subagent Result:");

    // One model request per run: alpha, its retry, and beta exactly once.
    expect(childRequests(model, "alpha")).toHaveLength(1);
    expect(childRequests(model, "alpha again")).toHaveLength(1);
    expect(childRequests(model, "beta")).toHaveLength(1);

    // Both runs stay in the audit, linked.
    const calls = result.turn.steps[0]!.toolCalls;
    expect(calls.map((c) => c.subagent?.task)).toEqual(["alpha", "beta", "alpha again"]);
    const [original, , retryCall] = calls;
    expect(original!.subagent).toMatchObject({ status: "error", endReason: "killed" });
    expect(original!.response).toContain("fixed: alpha again");
    expect(retryCall!.subagent).toMatchObject({ runId: newRunId, retryOf: original!.subagent!.runId, status: "success" });
    expect(ofType(run.events, "subagent_started").find((e) => e.runId === newRunId)?.retryOf).toBe(original!.subagent!.runId);

    // The history rebuild shows the model exactly what it read live: no call it never made.
    const rebuilt = buildSessionContext([result.turn]);
    expect(toolResults(rebuilt).map((m) => m.toolCallId)).toEqual(["a", "b"]);
    expect(toolResults(rebuilt)[0]!.content).toBe(read[0]!.content);
  });

  it("retries a retry that failed too, and the parent reads the last one", async () => {
    const { model, releaseBeta } = scenario([spawn("a", "alpha"), spawn("b", "beta")]);
    const results: RetryResult[] = [];
    const killer = killAlpha((r2, runId) => results.push(r2.handle.retry!(runId)));
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (event, r) => {
          killer(event, r);
          // The first retry keeps the task "alpha" and hangs too: kill it, then retry it with a task that works.
          if (event.type === "subagent_started" && event.retryOf && event.task === "alpha") setTimeout(() => r.handle.kill(event.runId), 0);
          const first = results[0];
          if (first?.ok && event.type === "agent:complete" && event.runId === first.runId) {
            setTimeout(() => {
              results.push(r.handle.retry!(first.runId, "third time"));
              releaseBeta();
            }, 5);
          }
        },
      },
      "go",
    );
    const result = await run.result;
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    const read = toolResults(model.requests.filter(isMaster)[1]!.messages);
    expect(read[0]!.content).toContain("fixed: third time");
    const subagents = result.turn.steps[0]!.toolCalls.map((c) => c.subagent!);
    expect(subagents.map((s) => [s.task, s.retryOf ?? null])).toEqual([
      ["alpha", null],
      ["beta", null],
      ["alpha", subagents[0]!.runId],
      ["third time", subagents[2]!.runId],
    ]);
    expect(childRequests(model, "beta")).toHaveLength(1);
  });

  it("refuses once the parent has read the failed result, and refuses running and completed runs", async () => {
    const outcomes: Record<string, RetryResult> = {};
    let run!: TurnRun;
    const runIds = new Map<string, string>();
    const { model, releaseBeta } = scenario([spawn("a", "alpha")], () => {
      outcomes.alreadyRead = run.handle.retry!(runIds.get("alpha")!);
      outcomes.unknown = run.handle.retry!("no-such-run");
    });
    releaseBeta();
    run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: (event, r) => {
          if (event.type === "subagent_started") runIds.set(event.task, event.runId);
          if (event.type === "subagent_started" && event.task === "alpha") {
            outcomes.running = r.handle.retry!(event.runId);
            setTimeout(() => r.handle.kill(event.runId), 0);
          }
        },
      },
      "go",
    );
    await run.result;
    expect(outcomes.running).toMatchObject({ ok: false, reason: "not_retryable", message: expect.stringContaining("still running") });
    expect(outcomes.alreadyRead).toMatchObject({
      ok: false,
      reason: "already_read",
      message: expect.stringContaining("already read the failed result"),
    });
    expect(outcomes.unknown).toMatchObject({ ok: false, reason: "not_found" });
  });

  it("refuses to retry a run that completed", async () => {
    let outcome: RetryResult | undefined;
    let run!: TurnRun;
    let betaRun = "";
    const { model, releaseBeta } = scenario([spawn("b", "beta")], () => {
      outcome = run.handle.retry!(betaRun);
    });
    releaseBeta();
    run = startTestTurn({ model, workspaceDir: ws.dir, onEvent: (e) => void (e.type === "subagent_started" && (betaRun = e.runId)) }, "go");
    await run.result;
    expect(outcome).toMatchObject({
      ok: false,
      reason: "not_retryable",
      message: `Run ${betaRun} completed; only a failed, killed or timed-out run can be retried.`,
    });
  });
});

describe("retry of a nested run", () => {
  it("replaces a depth-2 result its general parent has not read yet", async () => {
    let releaseBeta!: () => void;
    const betaGate = new Promise<void>((resolve) => (releaseBeta = resolve));
    const isGeneral = (r: ModelRequest) => systemOf(r).includes("general subagent");
    const model = scriptedModel(async (req) => {
      const results = toolResults(req.messages);
      if (isMaster(req))
        return results.length === 0
          ? { toolCalls: [{ id: "m1", name: "subagent", args: { agent: "general", task: "deep" } }] }
          : { text: results[0]!.content };
      if (isGeneral(req))
        return results.length === 0
          ? { toolCalls: [spawn("g1", "alpha"), spawn("g2", "beta")] }
          : { text: results.map((r) => r.content).join("\n") };
      const task = taskOf(req);
      if (task === "alpha") return { hang: true };
      if (task === "beta") {
        await betaGate;
        return { text: "beta done" };
      }
      return { text: `fixed: ${task}` };
    });
    let retried: RetryResult | undefined;
    const run = startTestTurn(
      {
        model,
        workspaceDir: ws.dir,
        onEvent: killAlpha((r, runId) => {
          retried = r.handle.retry!(runId, "alpha again");
          releaseBeta();
        }),
      },
      "go",
    );
    const result = await run.result;
    expect(retried?.ok).toBe(true);
    const general = result.turn.steps[0]!.toolCalls[0]!.subagent!;
    const calls = general.steps[0]!.toolCalls;
    expect(calls.map((c) => [c.subagent?.task, c.subagent?.depth, c.subagent?.parentRunId])).toEqual([
      ["alpha", 2, general.runId],
      ["beta", 2, general.runId],
      ["alpha again", 2, general.runId],
    ]);
    expect(calls[2]!.subagent!.retryOf).toBe(calls[0]!.subagent!.runId);
    const generalRead = toolResults(model.requests.filter((r) => systemOf(r).includes("general subagent"))[1]!.messages);
    expect(generalRead.map((m) => m.toolCallId)).toEqual(["g1", "g2"]);
    expect(generalRead[0]!.content).toContain("fixed: alpha again");
    expect(masterText(result.turn)).toContain("fixed: alpha again");
    expect(childRequests(model, "beta")).toHaveLength(1);
  });
});

describe("retry after the turn ended", () => {
  it("starts a new turn whose first step re-runs only that subagent, and the master answers from the new clean result", async () => {
    const { model, releaseBeta } = scenario([spawn("a", "alpha"), spawn("b", "beta")]);
    releaseBeta();
    const first = startTestTurn({ model, workspaceDir: ws.dir, onEvent: killAlpha(() => undefined) }, "go");
    const turn1 = (await first.result).turn;
    const killed = turn1.steps[0]!.toolCalls[0]!.subagent!;
    expect(killed).toMatchObject({ task: "alpha", endReason: "killed" });
    const before = model.requests.length;

    const second = startTestTurn({ model, workspaceDir: ws.dir }, "Retry the explore subagent", [turn1], {
      turnId: "t2",
      retry: { retryOf: killed.runId, args: { agent: "explore", task: "alpha again" } },
    });
    const result = await second.result;
    expect(result.status).toBe("completed");
    const requests = model.requests.slice(before);
    // No model request for the synthetic first step: one for the retried child, one for the master's answer.
    expect(requests.filter((r) => !isMaster(r)).map(taskOf)).toEqual(["alpha again"]);
    const masters = requests.filter(isMaster);
    expect(masters).toHaveLength(1);
    const lastTool = masters[0]!.messages.at(-1)!;
    expect(lastTool).toMatchObject({ role: "tool", toolName: "subagent" });
    expect(lastTool.content).toContain("fixed: alpha again");
    expect(JSON.stringify(masters[0]!.messages)).not.toContain("ALPHA_INTERNAL_NOTES");
    expect(masterText(result.turn)).toContain("fixed: alpha again");

    const retryCall = result.turn.steps[0]!.toolCalls[0]!;
    expect(JSON.parse(retryCall.parameters)).toEqual({ agent: "explore", task: "alpha again" });
    expect(retryCall.subagent).toMatchObject({ retryOf: killed.runId, task: "alpha again", status: "success", depth: 1 });
    expect(result.turn.steps[0]!.text).toBe("");

    // A later turn's context holds the retry turn as the master lived it.
    const history: ChatTurn[] = [turn1, result.turn];
    const rebuilt = buildSessionContext(history);
    expect(rebuilt.filter((m) => m.role === "tool").at(-1)!.content).toBe(lastTool.content);
  });
});
