import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionReducer } from "@/lib/chat/session-state";
import type { JoinResult, SessionEvent } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import { createDemoModel } from "@/lib/model/demo-model";
import { browserView, storedTurns } from "@/test/support/server/browser-view";
import { openSession, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * Subagents through the whole server with the offline demo model and real workspace
 * tools: what a browser folds live equals what it rebuilds from MongoDB, whenever it
 * joins; kill and steer reach the right run; a restart's leftovers end as ghost_sweep.
 */

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness("subagents", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 3 })) });
});
afterAll(async () => {
  await harness?.close();
});

const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");

describe("subagents through the server", () => {
  it("a live viewer, a mid-run joiner and the rebuild from MongoDB all end with the same turn and markup", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const live = browserView(socket, sessionId);
    await live.join();
    await request(socket, "turn:send", { sessionId: sessionId, text: "Investigate the open bugs and the release plan" });

    // A second tab opens while subagents are running.
    await waitFor(() => live.events.some((e) => e.type === "subagent_data"), 10_000, "subagent activity");
    const late = browserView(await harness.client(cookie), sessionId);
    await late.join();
    expect(late.sync().turns).toHaveLength(1);

    await waitFor(() => ended(live.events) && ended(late.events), 30_000, "turn end");
    const liveState = live.sync();
    const lateState = late.sync();
    expect(liveState.needsResync).toBe(false);
    expect(lateState.needsResync).toBe(false);

    const stored = await storedTurns(harness, sessionId);
    expect(liveState.turns).toStrictEqual(stored);
    expect(lateState.turns).toStrictEqual(stored);
    const markup = serializeTurn(stored[0]!);
    expect(markup).toContain("<SubagentExecution");
    expect((markup.match(/<SubagentExecution /g) ?? []).length).toBe(2);

    // Full processes are stored: the runs, and their nested tool calls with results.
    const runs = await harness.models.SubagentRun.find({ sessionId: sessionId }).lean();
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run.status).toBe("success");
      expect(run.response.length).toBeGreaterThan(20);
      const calls = await harness.models.ToolCall.find({ sessionId: sessionId, runId: run._id }).lean();
      expect(calls.map((c) => c.name)).toEqual(expect.arrayContaining(["list_files", "grep", "file_read"]));
      expect(calls.every((c) => c.status === "success" && c.response.length > 0)).toBe(true);
    }
  });

  it("a rejoin with the last sequence number replays the gap and converges", async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId: sessionId, text: "Compare the changelog and the release plan" });
    await waitFor(() => view.events.some((e) => e.type === "subagent_started"), 10_000, "a subagent");
    const seenSeq = view.sync().seq;

    // The connection drops; events keep flowing without this tab.
    socket.disconnect();
    const again = await harness.client(cookie);
    const resumed = browserView(again, sessionId);
    // Another tab, still connected, sees events go by that the dropped one missed.
    const watcher = browserView(await harness.client(cookie), sessionId);
    await watcher.join();
    await waitFor(() => watcher.sync().seq > seenSeq, 10_000, "events the dropped tab missed");
    // Carry over the state this tab already had, then ask only for what it missed.
    const before = view.sync();
    const ack = await request(again, "session:join", { sessionId: sessionId, lastSeq: seenSeq });
    expect(ack).toMatchObject({ ok: true, data: { mode: "replay" } });
    let state = sessionReducer(before, { type: "joined", result: (ack as { data: JoinResult }).data });
    await waitFor(() => ended(resumed.events), 30_000, "turn end after rejoin");
    // The replay starts exactly after what this tab had seen: no gap, no duplicate.
    expect(resumed.events[0]!.seq).toBe(seenSeq + 1);
    for (const event of resumed.events) state = sessionReducer(state, { type: "event", event });
    expect(state.needsResync).toBe(false);
    expect(state.turns).toStrictEqual(await storedTurns(harness, sessionId));
  });

  it("kill ends one running subagent as killed; only the owner may kill", async () => {
    const { socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId: sessionId, text: "Investigate the open bugs and the release plan" });
    await waitFor(() => view.events.some((e) => e.type === "subagent_started"), 10_000, "a subagent");
    const started = view.events.find((e) => e.type === "subagent_started");
    const runId = started?.type === "subagent_started" ? started.runId : "";

    const stranger = await harness.client(await harness.newCookie());
    expect(await request(stranger, "subagent:kill", { sessionId: sessionId, runId })).toMatchObject({ ok: false, code: "not_found" });

    expect(await request(socket, "subagent:kill", { sessionId: sessionId, runId })).toMatchObject({ ok: true });
    await waitFor(() => ended(view.events), 30_000, "turn end");
    const error = view.events.find((e) => e.type === "subagent_error" && e.runId === runId);
    expect(error?.type === "subagent_error" && error.endReason).toBe("killed");
    await (await harness.app.registry.peek(sessionId))?.drain();
    expect((await harness.models.SubagentRun.findById(runId).lean())?.endReason).toBe("killed");
    expect(await request(socket, "subagent:kill", { sessionId: sessionId, runId })).toMatchObject({ ok: false, code: "not_found" });
  });

  it("steer reaches a running subagent; steering a finished run is refused", async () => {
    const { socket, sessionId } = await openSession(harness);
    const view = browserView(socket, sessionId);
    await view.join();
    await request(socket, "turn:send", { sessionId: sessionId, text: "Deep dive into the tide predictor" });
    await waitFor(() => view.events.some((e) => e.type === "subagent_started"), 10_000, "a subagent");
    const started = view.events.find((e) => e.type === "subagent_started");
    const runId = started?.type === "subagent_started" ? started.runId : "";
    const steer = await request(socket, "subagent:steer", { sessionId: sessionId, runId, message: "Focus on datum conversion." });
    expect(steer).toMatchObject({ ok: true });
    await waitFor(() => ended(view.events), 30_000, "turn end");
    const late = await request(socket, "subagent:steer", { sessionId: sessionId, runId, message: "too late" });
    expect(late).toMatchObject({ ok: false, code: "not_found" });
  });
});

describe("ghost sweep", () => {
  it("ends what a crashed process left running, and the reload shows it", async () => {
    const { cookie, sessionId } = await openSession(harness);
    const now = new Date();
    await harness.models.Turn.create({ _id: "ghostTurn1", sessionId: sessionId, prompt: "p", status: "running" });
    await harness.models.ToolCall.create({
      _id: "ghostTurn1:m:c1",
      sessionId: sessionId,
      turnId: "ghostTurn1",
      runId: null,
      callId: "c1",
      order: 0,
      name: "subagent",
      parameters: "{}",
      status: "running",
      step: 0,
    });
    await harness.models.SubagentRun.create({
      _id: "ghostRun1",
      sessionId: sessionId,
      turnId: "ghostTurn1",
      callId: "c1",
      parentRunId: null,
      depth: 1,
      name: "explore",
      task: "t",
      status: "running",
      startedAt: now,
    });

    const swept = await harness.store.ghostSweep();
    expect(swept).toMatchObject({ turns: 1, runs: 1, calls: 1 });

    const fresh = await harness.client(cookie);
    const ack = await request(fresh, "session:join", { sessionId: sessionId });
    if (!ack.ok || ack.data.mode !== "snapshot") throw new Error("expected a snapshot");
    const turn = ack.data.turns[0]!;
    expect(turn.status).toBe("failed");
    expect(turn.error).toMatch(/restarted/);
    const panel = turn.steps[0]?.toolCalls[0]?.subagent;
    expect(panel).toMatchObject({ status: "error", endReason: "ghost_sweep" });
    expect(serializeTurn(turn)).toContain("ghost_sweep");
  });
});
