import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS, type SubagentDefinition } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { Budget, ChatTurn, SessionEvent, SubagentProcess } from "@/lib/contracts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { createAppMetrics } from "@/server/metrics/app-metrics";
import { parseExposition, valueOf } from "@/test/support/metrics/prom-text";

/**
 * Budgets with a hard stop, through everything real: the OpenAI adapter over HTTP to a
 * scripted model server that reports usage, the server's DroneSession, MongoDB and a
 * restarted app process. Every figure is the provider's: the server below counts what it
 * reported for each request, and the tests compare the turn's figures with those counts.
 */

/** Marks the over-budget run's internals: reasoning, interim text, what its tools read. */
const MARK = "ZZBUDGET";
const PARTIAL_B = "PARTIAL_B: two of three areas checked.";
const MASTER_ANSWER = "From what came back: A and C are done; B ran out of budget halfway.";

type WireMessage = { role: string; content: string | null; tool_call_id?: string };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const taskOf = (r: ScriptedRequest) => String(messagesOf(r).find((m) => m.role === "user")?.content ?? "");
const stepOf = (r: ScriptedRequest) => messagesOf(r).filter((m) => m.role === "assistant").length;
const args = (value: unknown) => [JSON.stringify(value)];
const spawn = (id: string, agent: string, task: string) => ({ id, name: "subagent", argumentChunks: args({ agent, task }) });
const read = (id: string) => ({ id, name: "file_read", argumentChunks: args({ path: "plan.md" }) });

/** Usage the provider reported, by who was asked: "master", or the task's tag ("TASK_B"). */
const reported = new Map<string, { promptTokens: number; completionTokens: number }>();
function usage(who: string, promptTokens: number, completionTokens: number) {
  const sum = reported.get(who) ?? { promptTokens: 0, completionTokens: 0 };
  reported.set(who, { promptTokens: sum.promptTokens + promptTokens, completionTokens: sum.completionTokens + completionTokens });
  return { promptTokens, completionTokens };
}
const reportedTokens = () => [...reported.values()].reduce((n, u) => n + u.promptTokens + u.completionTokens, 0);

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  if (isMaster(r)) {
    if (last.role === "tool") return scriptedReply({ text: [MASTER_ANSWER], usage: usage("master", 900, 30) });
    if (String(last.content).startsWith("Survey")) {
      return scriptedReply({
        text: ["Three helpers at once. "],
        toolCalls: [
          spawn("m_a", "explore", "TASK_A: the schedule"),
          spawn("m_b", "capped", "TASK_B: the risks"),
          spawn("m_c", "explore", "TASK_C: the staff"),
        ],
        usage: usage("master", 200, 20),
      });
    }
    // "Run the long survey": one subagent that never answers, under a turn budget.
    return scriptedReply({ toolCalls: [spawn("m_loop", "explore", "TASK_LOOP: read forever")], usage: usage("master", 300, 0) });
  }
  const task = taskOf(r);
  const step = stepOf(r);
  if (task.includes("TASK_B")) {
    // 770 tokens a step: 770, 1,540, then 2,310 crosses the 2,000-token budget in the third response.
    if (step < 2) {
      return scriptedReply({
        reasoning: [`${MARK}_REASONING_${step}`],
        text: [`${MARK}_INTERIM_${step} reading on.`],
        toolCalls: [read(`b_read_${step}`)],
        usage: usage("TASK_B", 700, 70),
      });
    }
    return scriptedReply({
      reasoning: [`${MARK}_REASONING_${step}`],
      text: [PARTIAL_B],
      toolCalls: [read(`b_read_${step}`)],
      usage: usage("TASK_B", 700, 70),
    });
  }
  if (task.includes("TASK_LOOP")) return scriptedReply({ toolCalls: [read(`loop_${step}`)], usage: usage("TASK_LOOP", 400, 0) });
  const tag = task.includes("TASK_A") ? "TASK_A" : "TASK_C";
  if (step === 0) return scriptedReply({ toolCalls: [read(`${tag}_read`)], usage: usage(tag, 300, 30) });
  return scriptedReply({ text: [`${tag} answered.`], usage: usage(tag, 400, 40) });
}

const CAPPED: SubagentDefinition = {
  ...BUILTIN_DEFINITIONS.find((d) => d.name === "explore")!,
  name: "capped",
  description: "An explore subagent on a budget.",
  budget: { tokens: 2_000 },
};

let harness: Harness;
let server: ScriptedOpenAIServer;
let workspace: string;
/** Kept across the restart, as one process's would be across its sessions. */
const metrics = createAppMetrics({ defaultMetrics: false });
const budgetStops = async (whose: string) =>
  valueOf(parseExposition(await metrics.registry.metrics()), "delegate_budget_stops_total", { whose });

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "delegate-budget-"));
  writeFileSync(path.join(workspace, "plan.md"), `# Plan\n${MARK}_FILE_CONTENTS\n`);
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  harness = await startHarness("budget-stop", {
    metrics,
    runner: runtimeWith(model, { workspaceDir: workspace, definitions: [...BUILTIN_DEFINITIONS, CAPPED] }),
  });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
  rmSync(workspace, { recursive: true, force: true });
});

async function runTurn(cookie: string, sessionId: string, text: string, budget?: Budget): Promise<SessionEvent[]> {
  const socket = await harness.client(cookie);
  const events = recordEvents(socket);
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok) throw new Error(joined.message);
  const sent = await request(socket, "turn:send", { sessionId, text, ...(budget ? { budget } : {}) });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the turn to end");
  socket.disconnect();
  return events;
}

async function storedTurn(sessionId: string): Promise<ChatTurn> {
  await (await harness.app.registry.peek(sessionId))?.drain();
  const turns = await harness.store.loadHistory(sessionId);
  return turns.at(-1)!;
}

const runOf = (turn: ChatTurn, callId: string): SubagentProcess => turn.steps[0]!.toolCalls.find((c) => c.callId === callId)!.subagent!;

describe("a subagent's budget", () => {
  it("stops the run within one model step of crossing it, while its siblings complete and the master answers from their results", async () => {
    reported.clear();
    const before = server.requests.length;
    const stopsBefore = await budgetStops("run");
    const { cookie, sessionId } = await openSession(harness);
    const live = await runTurn(cookie, sessionId, "Survey the schedule, the risks and the staff");
    // One stop, the run's own.
    expect((await budgetStops("run")) - stopsBefore).toBe(1);
    const requests = server.requests.slice(before);

    // Ended at once: no request after the response that crossed 2,000 tokens, and its calls were not run.
    expect(requests.filter((r) => taskOf(r).includes("TASK_B"))).toHaveLength(3);
    const ended = live.find((e) => e.type === "subagent_error");
    expect(ended).toMatchObject({ endReason: "budget_exceeded", error: "Ran out of its budget: 2,310 of 2,000 tokens." });

    const turn = await storedTurn(sessionId);
    expect(turn.status).toBe("completed");
    expect(turn.steps.at(-1)!.text).toBe(MASTER_ANSWER);
    const [a, b, c] = ["m_a", "m_b", "m_c"].map((id) => runOf(turn, id));
    expect([a!.status, c!.status]).toEqual(["success", "success"]);
    expect(b).toMatchObject({ status: "error", endReason: "budget_exceeded", budget: { tokens: 2_000 } });
    expect(b!.steps).toHaveLength(3);
    expect(b!.steps[2]!.toolCalls.map((call) => call.status)).toEqual(["cancelled"]);

    // The master read B's clean result (status, figure, its last step's text) and none of its internals.
    const masters = requests.filter(isMaster);
    expect(masters).toHaveLength(2);
    for (const r of masters) expect(JSON.stringify(r.body)).not.toContain(MARK);
    const readB = String(messagesOf(masters[1]!).find((m) => m.tool_call_id === "m_b")!.content);
    expect(readB).toContain("Status: Out of budget\nError: Ran out of its budget: 2,310 of 2,000 tokens.\n");
    expect(readB).toContain(`\n\n${PARTIAL_B}\n`);
    expect(
      messagesOf(masters[1]!)
        .filter((m) => m.role === "tool")
        .map((m) => m.tool_call_id),
    ).toEqual(["m_a", "m_b", "m_c"]);

    // Every figure is the provider's.
    const b_ = reported.get("TASK_B")!;
    expect(b!.stats.chat).toEqual({ inputTokens: b_.promptTokens, outputTokens: b_.completionTokens });
    expect(
      turn.stats.chat.inputTokens + turn.stats.chat.outputTokens + turn.stats.system.inputTokens + turn.stats.system.outputTokens,
    ).toBe(reportedTokens());

    // After a restart the run reads the same: out of budget, with its figure and its budget.
    harness = await harness.restart();
    const [reloaded] = (await harness.store.loadHistory(sessionId)).slice(-1);
    expect(runOf(reloaded!, "m_b")).toEqual(b);
  });
});

describe("a turn's budget", () => {
  it("stops the master and its running subagent when the turn's spend reaches it, and the answer says so", async () => {
    reported.clear();
    const before = server.requests.length;
    const { cookie, sessionId } = await openSession(harness);
    const [runStops, turnStops] = [await budgetStops("run"), await budgetStops("turn")];
    const live = await runTurn(cookie, sessionId, "Run the long survey", { tokens: 1_500 });
    // One stop, the turn's: the subagent it stopped with it is not a stop of its own.
    expect([(await budgetStops("run")) - runStops, (await budgetStops("turn")) - turnStops]).toEqual([0, 1]);
    const requests = server.requests.slice(before);

    // 300 (master) + 400 × 3 (the subagent) reaches 1,500: nothing is asked after that.
    expect(requests.filter(isMaster)).toHaveLength(1);
    expect(requests.filter((r) => taskOf(r).includes("TASK_LOOP"))).toHaveLength(3);
    const figure = "1,500 of 1,500 tokens";
    expect(live.find((e) => e.type === "turn:ended")).toMatchObject({ status: "failed", endReason: "budget_exceeded" });

    const turn = await storedTurn(sessionId);
    expect(turn).toMatchObject({
      status: "failed",
      endReason: "budget_exceeded",
      budget: { tokens: 1_500 },
      error: `The turn used ${figure} and stopped before finishing its answer.`,
    });
    expect(runOf(turn, "m_loop")).toMatchObject({
      status: "error",
      endReason: "budget_exceeded",
      error: `Stopped: the turn ran out of its budget: ${figure}.`,
    });
    const spent =
      turn.stats.chat.inputTokens + turn.stats.chat.outputTokens + turn.stats.system.inputTokens + turn.stats.system.outputTokens;
    expect(spent).toBe(reportedTokens());
    expect(spent).toBe(1_500);
  });

  it("refuses a budget on turn:send that sets no limit", async () => {
    const { socket, sessionId } = await openSession(harness);
    const sent = await request(socket, "turn:send", { sessionId, text: "hello", budget: {} });
    expect(sent).toMatchObject({ ok: false, code: "bad_request" });
    socket.disconnect();
  });
});
