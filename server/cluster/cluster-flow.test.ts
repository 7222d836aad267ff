import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { request, runtimeWith, waitFor } from "@/test/support/server/app-harness";
import { liveView, startClusterApps, type ClusterApps } from "@/test/support/server/cluster-apps";

/**
 * Three app processes' worth of apps on one database and one real Redis: a
 * turn runs in exactly one of them, and a browser connected to any of them sees it live,
 * in order, and can steer, kill and stop it.
 */

let cluster: ClusterApps;
/** Which member each turn started on, by turn id. */
const ranOn = new Map<string, number>();

beforeAll(async () => {
  cluster = await startClusterApps("cluster-flow", {
    runnerFor: (index) => {
      const runtime = runtimeWith(createDemoModel({ chunkDelayMs: 5 }));
      return {
        startTurn: (args) => {
          ranOn.set(args.turnId, index);
          return runtime.startTurn(args);
        },
      };
    },
  });
});
afterAll(async () => {
  await cluster?.close();
});

const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");

async function newChat(memberIndex = 0) {
  const [a] = cluster.members;
  const cookie = await a!.newCookie();
  const socket = await cluster.members[memberIndex]!.client(cookie);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  return { cookie, socket, sessionId: created.data.sessionId };
}

/** Sequence numbers of one turn's events as a viewer received them: consecutive, no repeat. */
function expectContinuous(events: SessionEvent[]) {
  const seqs = events.map((e) => e.seq);
  for (let i = 1; i < seqs.length; i++) expect(seqs[i], `event ${i} (${events[i]!.type})`).toBe(seqs[i - 1]! + 1);
}

describe("a turn owned by one process, watched from the others", () => {
  it("a viewer on B gets every event of A's turn in order, and a joiner on C converges; both equal the stored turn", async () => {
    const [, b, c] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const onA = liveView(socket, sessionId);
    await onA.join();
    const socketB = await b!.client(cookie);
    const onB = liveView(socketB, sessionId);
    await onB.join();
    // When each event reached a viewer on the owner and one on another process.
    const arrivedA = new Map<number, number>();
    const arrivedB = new Map<number, number>();
    socket.on("agent:event", (e) => arrivedA.set(e.seq, performance.now()));
    socketB.on("agent:event", (e) => arrivedB.set(e.seq, performance.now()));

    expect(await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" })).toMatchObject({
      ok: true,
    });
    await waitFor(() => onB.events.some((e) => e.type === "subagent_data"), 15_000, "subagent activity on B");
    const onC = liveView(await c!.client(cookie), sessionId);
    await onC.join();
    expect(onC.sync().turns.at(-1)?.status).toBe("running");

    await waitFor(() => ended(onA.events) && ended(onB.events) && ended(onC.events), 30_000, "turn end everywhere");
    // The turn ran on A alone.
    const turnId = onA.events[0]!.turnId;
    expect(ranOn.get(turnId)).toBe(0);
    expect(onB.events.map((e) => e.seq)).toEqual(onA.events.map((e) => e.seq));
    expectContinuous(onB.events);
    expect(onB.events[0]!.type).toBe("turn:started");

    const stored = await cluster.storedTurns(sessionId);
    for (const view of [onA, onB, onC]) {
      const state = view.sync();
      expect(state.needsResync).toBe(false);
      expect(state.turns).toStrictEqual(stored);
    }

    // The cross-process hop: how much later the viewer on B got each event than the one on A.
    const hops = [...arrivedA].map(([seq, t]) => arrivedB.get(seq)! - t).sort((x, y) => x - y);
    const pct = (p: number) => hops[Math.min(hops.length - 1, Math.floor((p / 100) * hops.length))]!.toFixed(2);
    console.info(`cross-process relay: ${hops.length} events, extra latency on B vs A p50 ${pct(50)} ms, p99 ${pct(99)} ms`);
    expect(hops.length).toBe(onA.events.length);
  });

  it("steer and kill sent to B reach the subagent running on A and are answered; an unknown run is not_found", async () => {
    const [, b] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const onB = liveView(await b!.client(cookie), sessionId);
    const socketB = await b!.client(cookie);
    await onB.join();
    await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    const started = () =>
      onB.events.filter((e) => e.type === "subagent_started").map((e) => (e.type === "subagent_started" ? e.runId : ""));
    // Each as soon as B sees it start (the demo's subagents are quick).
    await waitFor(() => started().length >= 1, 15_000, "a subagent seen on B");
    const first = started()[0]!;
    expect(await request(socketB, "subagent:steer", { sessionId, runId: first, message: "Focus on the release blockers." })).toMatchObject({
      ok: true,
      data: { runId: first },
    });
    await waitFor(() => started().length >= 2, 15_000, "a second subagent seen on B");
    const second = started()[1]!;
    expect(await request(socketB, "subagent:kill", { sessionId, runId: second })).toMatchObject({ ok: true, data: { runId: second } });
    expect(await request(socketB, "subagent:kill", { sessionId, runId: "no-such-run" })).toMatchObject({ ok: false, code: "not_found" });
    // Someone else's socket on B gets what a stranger gets on the owner: nothing.
    const stranger = await b!.client(await b!.newCookie());
    expect(await request(stranger, "subagent:kill", { sessionId, runId: first })).toMatchObject({ ok: false, code: "not_found" });

    await waitFor(() => ended(onB.events), 30_000, "turn end on B");
    const steered = onB.events.find((e) => e.type === "subagent_data" && e.runId === first && e.data.kind === "steer");
    expect(steered?.type === "subagent_data" && steered.data.kind === "steer" && steered.data.message).toBe(
      "Focus on the release blockers.",
    );
    const killed = onB.events.find((e) => e.type === "subagent_error" && e.runId === second);
    expect(killed?.type === "subagent_error" && killed.endReason).toBe("killed");
    expect(onB.sync().turns).toStrictEqual(await cluster.storedTurns(sessionId));
  });

  it("a stop sent to C ends the turn running on A", async () => {
    const [, , c] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const sent = await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    if (!sent.ok) throw new Error(sent.message);
    const onC = liveView(await c!.client(cookie), sessionId);
    await onC.join();
    const socketC = await c!.client(cookie);
    expect(await request(socketC, "turn:cancel", { sessionId, turnId: sent.data.turnId })).toMatchObject({ ok: true });
    await waitFor(() => ended(onC.events), 15_000, "turn end on C");
    // The view folds what it received (after a rejoin, if the stream had a gap on a loaded machine).
    await waitFor(() => onC.sync().turns.at(-1)?.status === "cancelled", 10_000, "C's view of the turn: cancelled");
  });

  it("two sends at once on A and C for one chat: exactly one turn starts, the other is busy", async () => {
    const [, , c] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const socketC = await c!.client(cookie);
    // Both processes have the chat open, so neither waits on a first load.
    await request(socketC, "session:join", { sessionId });
    await request(socket, "session:join", { sessionId });
    const answers = await Promise.all([
      request(socket, "turn:send", { sessionId, text: "Hello from A" }),
      request(socketC, "turn:send", { sessionId, text: "Hello from C" }),
    ]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => !a.ok)).toMatchObject([{ code: "busy" }]);
    const view = liveView(socket, sessionId);
    await view.join();
    await waitFor(() => view.sync().turns.every((t) => t.status !== "running"), 20_000, "the one turn to end");
    const stored = await cluster.storedTurns(sessionId);
    expect(stored).toHaveLength(1);
    // And the chat is free again for whichever process is asked next.
    await waitFor(() => cluster.members.every((m) => !m.app.registry.peekReady(sessionId)?.runningTurnId), 5_000, "lease released");
    expect(await request(socketC, "turn:send", { sessionId, text: "Next, from C" })).toMatchObject({ ok: true });
  });

  it("the running-turn cap counts a person's turns on every process", async () => {
    const [a, b, c] = cluster.members;
    const cookie = await a!.newCookie();
    const sockets = [await a!.client(cookie), await b!.client(cookie), await c!.client(cookie), await a!.client(cookie)];
    const chats: string[] = [];
    for (const s of sockets) {
      const created = await request(s, "session:create", {});
      if (!created.ok) throw new Error(created.message);
      chats.push(created.data.sessionId);
    }
    // Three turns on three processes (the default cap is 3), then a fourth anywhere is refused.
    for (let i = 0; i < 3; i++)
      expect(
        await request(sockets[i]!, "turn:send", { sessionId: chats[i], text: "Investigate the open bugs and the release plan" }),
      ).toMatchObject({ ok: true });
    expect(await request(sockets[3]!, "turn:send", { sessionId: chats[3], text: "One more" })).toMatchObject({
      ok: false,
      code: "limit_reached",
    });
    for (let i = 0; i < 3; i++) await request(sockets[i]!, "session:delete", { sessionId: chats[i] });
  });

  it("deleting a chat on B stops its turn on A first, and nothing of it is written afterwards", async () => {
    const [a, b] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    const socketB = await b!.client(cookie);
    const onA = a!.app.registry.peekReady(sessionId);
    expect(onA).toBeDefined();
    expect(await request(socketB, "session:delete", { sessionId })).toMatchObject({ ok: true });
    expect(a!.app.registry.peekReady(sessionId)?.runningTurnId).toBeUndefined();
    // Everything A had queued is written (or given up) before the counts.
    await onA!.settled();
    expect(await cluster.db.models.Turn.countDocuments({ sessionId })).toBe(0);
    expect(await cluster.db.models.SubagentRun.countDocuments({ sessionId })).toBe(0);
  });

  it("reports which process answered and that Redis is up", async () => {
    const res = await fetch(`${cluster.members[1]!.baseUrl}/api/health`);
    expect(await res.json()).toMatchObject({ ok: true, database: "up", instance: "app-b", redis: "up" });
  });
});
