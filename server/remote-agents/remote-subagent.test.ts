import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, ChatTurn, SubagentProcess } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import { processInTurn } from "@/lib/turn/paths";
import { delegatingMaster, isMasterRequest, remoteAgentsEnv } from "@/test/support/a2a/delegating-master";
import { startTestA2AAgent, type TestA2AAgent } from "@/test/support/a2a/test-agent";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { buildRuntime } from "@/server/agent/build-runtime";

/**
 * Subagents on a remote A2A agent, through the real wiring: buildRuntime from env and a
 * definitions file, the real server and database, a real OpenAI-compatible server for the
 * master, and a real A2A agent built with the SDK's own server classes. The master asks
 * for "Delegate: <task>" and the test agent picks its behaviour by the task's first word.
 */

let master: ScriptedOpenAIServer;
let agent: TestA2AAgent;
let dir: string;
let harness: Harness;

beforeAll(async () => {
  master = await startScriptedOpenAIServer(delegatingMaster({ agent: "warehouse", answer: "The warehouse has answered." }));
  agent = await startTestA2AAgent();
  dir = await mkdtemp(path.join(tmpdir(), "delegate-remote-"));
  const env = await remoteAgentsEnv({
    masterUrl: master.url,
    dir,
    subagents: [{ name: "warehouse", a2a: { cardUrl: agent.cardUrl } }],
    idleMs: 1000,
  });
  const { runtime } = buildRuntime(env, { warn: () => undefined, info: () => undefined });
  harness = await startHarness("remote-subagent", { runner: runtime });
});
afterAll(async () => {
  await harness?.close();
  await agent?.close();
  await master?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Sends "Delegate: <task>" in a new chat; `during` runs once the remote run has shown its first step. */
async function delegate(
  task: string,
  during?: (run: {
    runId: string;
    socket: Awaited<ReturnType<typeof openSession>>["socket"];
    sessionId: string;
    events: AgentEvent[];
  }) => Promise<void>,
) {
  const { socket, sessionId } = await openSession(harness);
  const events = recordEvents(socket) as AgentEvent[];
  expect((await request(socket, "session:join", { sessionId })).ok).toBe(true);
  const before = master.requests.length;
  expect((await request(socket, "turn:send", { sessionId, text: `Delegate: ${task}` })).ok).toBe(true);
  if (during) {
    await waitFor(() => events.some((e) => e.type === "subagent_data" && e.data.kind === "token"), 15_000, "the remote run's first step");
    const started = events.find((e) => e.type === "subagent_started")!;
    await during({ runId: started.runId!, socket, sessionId, events });
  }
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "turn end");
  await (await harness.app.registry.peek(sessionId))?.drain();
  const [turn] = (await harness.store.loadHistory(sessionId)) as [ChatTurn];
  const run = turn.steps[0]!.toolCalls.find((c) => c.callId === "c-remote")!.subagent!;
  return { turn, run, events, requests: master.requests.slice(before) };
}

const stepTexts = (run: SubagentProcess) => run.steps.map((s) => s.text);

describe("a subagent on a remote A2A agent", () => {
  it("streams the remote task's messages and artifact as the run's steps, stores them, and hands the master only the clean result", async () => {
    const { turn, run, events, requests } = await delegate("stream the sales report");
    expect(turn.status).toBe("completed");
    expect(run.status).toBe("success");
    expect(run.model).toBe(`A2A · ${new URL(agent.cardUrl).host}`);
    expect(stepTexts(run)).toEqual(["Reading the data", "Summarising", "**report**\n\nSales rose 4 % in the third quarter."]);
    expect(run.response).toBe("Sales rose 4 % in the third quarter.");
    expect(run.steps.every((s) => s.startedAt && s.endedAt)).toBe(true);
    expect(run.stats.steps).toBe(3);
    // Live: the artifact streamed in two pieces before the run completed.
    const tokens = events.filter((e) => e.type === "subagent_data" && e.data.kind === "token");
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    expect(agent.messages.some((m) => m.startsWith("stream the sales report"))).toBe(true);

    // The master read the card's description as it started, and the remote's answer, never its steps.
    const [first, second] = requests.filter(isMasterRequest);
    expect(JSON.stringify(first!.body)).toContain("Answers questions about the warehouse's sales data.");
    const read = JSON.stringify(second!.body.messages.at(-1));
    expect(read).toContain("Sales rose 4 % in the third quarter.");
    expect(read).not.toMatch(/Reading the data|Summarising/);

    // What a reload reads is what was stored.
    expect(processInTurn(turn, run.runId)).toEqual(run);
    expect(serializeTurn(turn)).toContain(`model="A2A · ${new URL(agent.cardUrl).host}"`);
  });

  it("refuses a steer the remote cannot take, and cancels the remote task when the person kills the run: the remote agent sees the cancel", async () => {
    const cancelsBefore = agent.cancels.length;
    const { turn, run } = await delegate("slow count the pallets", async ({ runId, socket, sessionId }) => {
      // Steering a remote that takes no follow-ups is refused, saying why; the run goes on.
      const steer = await request(socket, "subagent:steer", { sessionId, runId, message: "Count faster" });
      expect(steer).toMatchObject({ ok: false });
      expect(JSON.stringify(steer)).toContain("takes no follow-up messages");
      expect(await request(socket, "subagent:kill", { sessionId, runId })).toMatchObject({ ok: true });
    });
    expect(turn.status).toBe("completed");
    expect(run.endReason).toBe("killed");
    await waitFor(() => agent.cancels.length > cancelsBefore, 10_000, "the remote agent to see the cancel");
  });

  it.each([
    ["a remote that hangs", "hang on", /sent nothing for 1 s; its task was cancelled/],
    ["a remote that sends garbage", "garbage please", /at 127\.0\.0\.1:\d+ answered something A2A does not allow/],
    ["a remote that fails", "fail the report", /at 127\.0\.0\.1:\d+ failed: The warehouse is offline/],
  ])("ends only that run, with a clear error, for %s", async (_name, task, message) => {
    const cancelsBefore = agent.cancels.length;
    const { turn, run, requests } = await delegate(task);
    // A remote that fell silent has its task cancelled.
    if (task.startsWith("hang")) await waitFor(() => agent.cancels.length > cancelsBefore, 10_000, "the cancel");
    expect(turn.status).toBe("completed");
    expect(run.status).toBe("error");
    expect(run.endReason).toBe("failed");
    expect(run.error).toMatch(message);
    // The master read the failure and answered anyway.
    expect(JSON.stringify(requests.filter(isMasterRequest).at(-1)!.body.messages.at(-1))).toContain("warehouse");
    expect(turn.steps.at(-1)!.text).toBe("The warehouse has answered.");
  });

  it.each([
    ["answered: the remote task goes on with the answer and completes", { action: "accept", content: { answer: "EMEA" } }],
    ["declined: the run ends with the question in its error, and the remote task is cancelled", { action: "decline" }],
  ] as const)("puts the remote's question to the person on the run's panel; %s", async (_name, reply) => {
    const cancelsBefore = agent.cancels.length;
    let question: unknown;
    const { run, turn } = await delegate("ask about sales", async ({ socket, sessionId, events }) => {
      await waitFor(() => events.some((e) => e.type === "turn:data" && e.data.kind === "input"), 15_000, "the question");
      question = events.find((e) => e.type === "turn:data" && e.data.kind === "input");
      expect(await request(socket, "tool:answer", { sessionId, callId: "c-remote", runId: null, ...reply })).toMatchObject({ ok: true });
    });
    // Asked by the master's call that spawned the run, with the remote's own words.
    expect(question).toMatchObject({ data: { callId: "c-remote", input: { state: "pending", message: "Which region?" } } });
    const call = turn.steps[0]!.toolCalls.find((c) => c.callId === "c-remote")!;
    if (reply.action === "accept") {
      expect(run.status).toBe("success");
      expect(run.response).toBe("Sales in EMEA: 42");
      expect(agent.messages).toContain("EMEA");
      expect(call.inputs).toMatchObject([{ state: "accepted", content: { answer: "EMEA" } }]);
    } else {
      expect(run.status).toBe("error");
      expect(run.error).toMatch(/asked "Which region\?", and the question was declined or not answered/);
      expect(call.inputs).toMatchObject([{ state: "declined" }]);
      await waitFor(() => agent.cancels.length > cancelsBefore, 10_000, "the cancel");
    }
  });
});
