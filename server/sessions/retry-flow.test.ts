import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { serializeTurn } from "@/lib/markup/serialize";
import type { ModelRequest } from "@/lib/model/types";
import { retriedAs } from "@/lib/turn/retries";
import { lastUser, scriptedModel, systemOf, toolResults } from "@/test/support/agent/scripted-model";
import { browserView, storedTurns } from "@/test/support/server/browser-view";
import { openSession, request, runtimeWith, startHarness, waitFor, type Harness, type TestClient } from "@/test/support/server/app-harness";

/**
 * Retry through the whole server, over real sockets and the real database server, with a
 * scripted model: the prompt "alpha,beta" makes the master spawn one explore run per
 * name in one step. "alpha" hangs until killed, "beta" answers when the test opens its
 * gate, any other task answers at once with "fixed: <task>". The master answers with
 * every result it read.
 */

const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
const taskOf = (r: ModelRequest) => lastUser(r.messages).split("## Task\n").at(-1)!.trim();

let openBeta: () => void = () => undefined;
let betaGate: Promise<void> = Promise.resolve();
function closeBeta() {
  betaGate = new Promise((resolve) => (openBeta = resolve));
}

const model = scriptedModel(async (req) => {
  if (isMaster(req)) {
    const turnStart = req.messages.findLastIndex((m) => m.role === "user");
    const results = toolResults(req.messages.slice(turnStart));
    const prompt = lastUser(req.messages);
    // "alpha then beta": one run per step, each after the result of the one before.
    const sequence = prompt.split(" then ");
    if (sequence.length > 1 && results.length < sequence.length) {
      return { toolCalls: [{ id: `s${results.length}`, name: "subagent", args: { agent: "explore", task: sequence[results.length]! } }] };
    }
    if (results.length > 0) return { text: results.map((r) => r.content).join("\n=====\n") };
    const tasks = prompt.split(",");
    return { toolCalls: tasks.map((task, i) => ({ id: `c${i}`, name: "subagent", args: { agent: "explore", task } })) };
  }
  const task = taskOf(req);
  if (task === "alpha") return { text: "ALPHA_INTERNALS", hang: true };
  if (task === "beta") {
    await betaGate;
    return { text: "beta done" };
  }
  return { text: `fixed: ${task}` };
});

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("retry", { runner: runtimeWith(model), personLimits: { chats: 50, runningTurns: 2, sockets: 20 } });
});
afterAll(async () => {
  await harness?.close();
});

const endedTurns = (events: SessionEvent[]) => events.filter((e) => e.type === "turn:ended").length;
const started = (events: SessionEvent[], task: string) =>
  events.flatMap((e) => (e.type === "subagent_started" && e.task === task ? [e.runId] : []));

/** Kills the first "alpha" run, and resolves with its id once its failure is back with its parent. */
async function killAlpha(socket: TestClient, sessionId: string, events: SessionEvent[]): Promise<string> {
  await waitFor(() => started(events, "alpha").length > 0, 10_000, "alpha to start");
  const runId = started(events, "alpha")[0]!;
  expect(await request(socket, "subagent:kill", { sessionId, runId })).toMatchObject({ ok: true });
  await waitFor(() => events.some((e) => e.type === "agent:complete" && e.runId === runId), 10_000, "alpha's failure");
  return runId;
}

describe("retry through the server", () => {
  it("in a running turn: the retry's result replaces the killed one, beta runs once, and the reload shows both runs linked", async () => {
    closeBeta();
    const { socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    const before = model.requests.length;
    await request(socket, "turn:send", { sessionId, text: "alpha,beta" });
    const killed = await killAlpha(socket, sessionId, view.events);

    const ack = await request(socket, "subagent:retry", { sessionId, runId: killed, task: "alpha again" });
    expect(ack).toMatchObject({ ok: true, data: { mode: "in_turn", runId: expect.any(String) } });
    const retried = ack.ok ? ack.data.runId! : "";
    openBeta();
    await waitFor(() => endedTurns(view.events) === 1, 20_000, "turn end");

    const stored = await storedTurns(harness, sessionId);
    expect(view.sync().turns).toStrictEqual(stored);
    const turn = stored[0]!;
    expect(turn.status).toBe("completed");
    const answer = turn.steps.at(-1)!.text;
    expect(answer).toContain("fixed: alpha again");
    expect(answer).toContain("beta done");
    expect(answer).not.toMatch(/killed/i);
    expect(answer).not.toContain("ALPHA_INTERNALS");
    const children = model.requests
      .slice(before)
      .filter((r) => !isMaster(r))
      .map(taskOf)
      .sort();
    expect(children).toEqual(["alpha", "alpha again", "beta"]);

    expect(retriedAs(stored).get(killed)).toBe(retried);
    const run = await harness.models.SubagentRun.findById(retried).lean();
    expect(run).toMatchObject({ retryOf: killed, task: "alpha again", status: "success" });
    expect(serializeTurn(turn)).toContain(`retryOf="${killed}"`);
  });

  it("after the turn: a new turn re-runs only that run and its master reads the new result; strangers, completed runs and busy chats are refused", async () => {
    const { socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId, text: "alpha,gamma" });
    const killed = await killAlpha(socket, sessionId, view.events);
    await waitFor(() => endedTurns(view.events) === 1, 20_000, "first turn end");
    const gamma = started(view.events, "gamma")[0]!;

    const stranger = await harness.client(await harness.newCookie());
    expect(await request(stranger, "subagent:retry", { sessionId, runId: killed })).toMatchObject({ ok: false, code: "not_found" });
    expect(await request(socket, "subagent:retry", { sessionId, runId: gamma })).toMatchObject({
      ok: false,
      code: "bad_request",
      message: `Run ${gamma} completed; only a failed, killed or timed-out run can be retried.`,
    });

    const before = model.requests.length;
    const ack = await request(socket, "subagent:retry", { sessionId, runId: killed, task: "alpha again" });
    expect(ack).toMatchObject({ ok: true, data: { mode: "new_turn", turnId: expect.any(String) } });
    await waitFor(() => endedTurns(view.events) === 2, 20_000, "retry turn end");
    const requests = model.requests.slice(before);
    expect(requests.filter((r) => !isMaster(r)).map(taskOf)).toEqual(["alpha again"]);
    expect(requests.filter(isMaster)).toHaveLength(1);

    const stored = await storedTurns(harness, sessionId);
    expect(view.sync().turns).toStrictEqual(stored);
    expect(stored).toHaveLength(2);
    const retryTurn = stored[1]!;
    expect(retryTurn.prompt).toBe("Retry the explore subagent with an edited task: alpha again");
    expect(retryTurn.steps[0]!.toolCalls).toHaveLength(1);
    const runId = retryTurn.steps[0]!.toolCalls[0]!.subagent!.runId;
    expect(retryTurn.steps[0]!.toolCalls[0]!.subagent).toMatchObject({ retryOf: killed, status: "success" });
    expect(retryTurn.steps.at(-1)!.text).toContain("fixed: alpha again");
    expect(retriedAs(stored).get(killed)).toBe(runId);

    // A second retry of the same run is refused: retry the newer one instead.
    expect(await request(socket, "subagent:retry", { sessionId, runId: killed })).toMatchObject({ ok: false, code: "bad_request" });

    // While another turn runs in the chat, a retry of an earlier turn's run waits its turn.
    closeBeta();
    await request(socket, "turn:send", { sessionId, text: "beta" });
    await waitFor(() => started(view.events, "beta").length > 0, 10_000, "beta to start");
    const failed = retryTurn.steps[0]!.toolCalls[0]!.subagent!.runId;
    expect(await request(socket, "subagent:retry", { sessionId, runId: failed })).toMatchObject({ ok: false, code: "busy" });
    openBeta();
    await waitFor(() => endedTurns(view.events) === 3, 20_000, "third turn end");
  });

  it("refuses a retry once the parent has read the failed result, while its turn still runs", async () => {
    closeBeta();
    const { socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId, text: "alpha then beta" });
    const killed = await killAlpha(socket, sessionId, view.events);
    // The master read alpha's failure and went on to its next step: beta.
    await waitFor(() => started(view.events, "beta").length > 0, 10_000, "beta to start");
    const ack = await request(socket, "subagent:retry", { sessionId, runId: killed });
    expect(ack).toMatchObject({ ok: false, code: "busy", message: expect.stringContaining("already read the failed result") });
    openBeta();
    await waitFor(() => endedTurns(view.events) === 1, 20_000, "turn end");
    expect(started(view.events, "alpha")).toHaveLength(1);
  });

  it("a retry that would start a turn counts against the person's running turns, like a send", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId, text: "alpha,gamma" });
    const killed = await killAlpha(socket, sessionId, view.events);
    await waitFor(() => endedTurns(view.events) === 1, 20_000, "turn end");

    closeBeta();
    const others = [await openSession(harness, cookie), await openSession(harness, cookie)];
    for (const other of others)
      expect(await request(other.socket, "turn:send", { sessionId: other.sessionId, text: "beta" })).toMatchObject({ ok: true });
    expect(await request(socket, "subagent:retry", { sessionId, runId: killed, task: "alpha again" })).toMatchObject({
      ok: false,
      code: "limit_reached",
    });
    openBeta();
    for (const other of others) await (await harness.app.registry.peek(other.sessionId))?.settled();
    expect(await request(socket, "subagent:retry", { sessionId, runId: killed, task: "alpha again" })).toMatchObject({
      ok: true,
      data: { mode: "new_turn" },
    });
    await waitFor(() => endedTurns(view.events) === 2, 20_000, "retry turn end");
  });
});
