import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/contracts";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { scriptedModel, systemOf } from "@/test/support/agent/scripted-model";
import { tempWorkspace } from "@/test/support/agent/harness";
import { request, runtimeWith, waitFor } from "@/test/support/server/app-harness";
import { liveView, startClusterApps, type ClusterApps, type ClusterMember } from "@/test/support/server/cluster-apps";
import { parseExposition, valueOf } from "@/test/support/metrics/prom-text";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * What happens to a turn when its process dies or Redis goes away, with three
 * apps on one database and a real redis-server. The model here answers slowly on cue:
 * a subagent that hangs ("HANG") keeps a turn running as long as the test needs.
 */

const LEASE_MS = 1_500;
let cluster: ClusterApps;
/** Released by the test: subagents told to "WAIT" answer once it resolves. */
let releaseWaiters: () => void = () => undefined;
let waiters = new Promise<void>((resolve) => (releaseWaiters = resolve));
/** Released by the test: the master's answer to a "LATE" helper waits for it. */
let releaseAnswer: () => void = () => undefined;
const answer = new Promise<void>((resolve) => (releaseAnswer = resolve));

const model = scriptedModel(async (request) => {
  const last = request.messages.at(-1)!;
  if (systemOf(request).startsWith(MASTER_PROMPT_MARKER)) {
    if (last.role === "tool") {
      const prompt = String(request.messages.find((m) => m.role === "user" && String(m.content).includes("LATE"))?.content ?? "");
      if (prompt) await answer;
      return { text: "The helper reported." };
    }
    const task = last.role === "user" ? String(last.content) : "";
    if (task.startsWith("EDIT"))
      return {
        text: "Fixing the typo.",
        toolCalls: [{ id: "e1", name: "file_edit", args: { path: "notes.md", old_string: "tied", new_string: "tide" } }],
      };
    return { text: "Asking a helper. ", toolCalls: [{ id: "m1", name: "subagent", args: { agent: "explore", task } }] };
  }
  const task = String(request.messages.find((m) => m.role === "user")?.content ?? "");
  if (task.includes("HANG")) return { text: "Looking into it, slowly. ", hang: true };
  if (task.includes("WAIT")) {
    await waiters;
    return { text: "Found it after the wait: all clear." };
  }
  return { text: "All clear." };
});

let ws: Awaited<ReturnType<typeof tempWorkspace>>;

beforeAll(async () => {
  ws = await tempWorkspace({ "notes.md": "The tied is high.\n" });
  cluster = await startClusterApps("cluster-failure", { leaseMs: LEASE_MS, runnerFor: () => runtimeWith(model, { workspaceDir: ws.dir }) });
});
afterAll(async () => {
  await ws?.cleanup();
  releaseWaiters();
  releaseAnswer();
  await cluster?.close();
});

const ended = (events: SessionEvent[]) => events.some((e) => e.type === "turn:ended");

async function newChat(memberIndex: number) {
  const cookie = await cluster.members[0]!.newCookie();
  const socket = await cluster.members[memberIndex]!.client(cookie);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  return { cookie, socket, sessionId: created.data.sessionId };
}

describe("an approval waiting in a turn on another process", () => {
  it("is shown on B and decided from B: the decision reaches the owner, is answered, and every viewer sees it", async () => {
    const [, b] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const onA = liveView(socket, sessionId);
    await onA.join();
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    await request(socket, "turn:send", { sessionId, text: "EDIT the typo in notes.md" });
    await waitFor(() => dataOf(onB.events, "approval").length > 0, 10_000, "the pending approval on B");
    // Counted once, by the owner: B only shows A's turn.
    const waiting = async (m: ClusterMember) => valueOf(parseExposition(await m.metrics.registry.metrics()), "delegate_approvals_waiting");
    expect([await waiting(cluster.members[0]!), await waiting(b!)]).toEqual([1, 0]);
    const socketB = await b!.client(cookie);
    expect(await request(socketB, "tool:decide", { sessionId, callId: "e1", runId: null, decision: "deny", reason: "Keep it" })).toEqual({
      ok: true,
      data: { callId: "e1" },
    });
    await waitFor(() => ended(onA.events) && ended(onB.events), 10_000, "the end on both");
    const states = (events: SessionEvent[]) => dataOf(events, "approval").map((d) => d.approval.state);
    expect(states(onB.events)).toEqual(["pending", "denied"]);
    expect(states(onA.events)).toEqual(["pending", "denied"]);
    expect(onB.sync().turns).toStrictEqual(await cluster.storedTurns(sessionId));
    expect([await waiting(cluster.members[0]!), await waiting(b!)]).toEqual([0, 0]);
  });
});

describe("when Redis goes away mid-turn", () => {
  it("the turn runs on, the process stays ready, and once Redis is back the viewer on another process converges on the stored turn", async () => {
    const [a, b] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const onA = liveView(socket, sessionId);
    await onA.join();
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    await request(socket, "turn:send", { sessionId, text: "WAIT for the report" });
    await waitFor(() => onB.events.some((e) => e.type === "subagent_started"), 10_000, "the subagent started, seen on B");

    await cluster.redis.stop();
    const health = await (await fetch(`${a!.baseUrl}/api/health`)).json();
    expect(health).toMatchObject({ instance: "app-a", redis: "down" });
    // Still ready, degraded: the proxy keeps sending people here, where their turns run whole.
    const ready = await fetch(`${a!.baseUrl}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ok: true, degraded: ["redis"], redis: "down" });
    // The turn finishes while Redis is away: its viewers on A see all of it, B sees none of it.
    releaseWaiters();
    await waitFor(() => ended(onA.events), 10_000, "the turn's end on A");
    expect(ended(onB.events)).toBe(false);
    expect(onA.sync().turns.at(-1)?.status).toBe("completed");

    await cluster.redis.start();
    await waitFor(() => onB.sync().turns.at(-1)?.status === "completed", 10_000, "B to converge after Redis is back");
    expect(onB.rejoins()).toBeGreaterThan(0);
    const stored = await cluster.storedTurns(sessionId);
    expect(onB.sync().turns).toStrictEqual(stored);
    expect(onA.sync().turns).toStrictEqual(stored);
    await waitFor(() => a!.cluster.redisStatus() === "up", 5_000, "health up again");

    // And the relay across processes works again for the next turn.
    waiters = new Promise<void>((resolve) => (releaseWaiters = resolve));
    releaseWaiters();
    const before = onB.events.length;
    await request(socket, "turn:send", { sessionId, text: "Quick look" });
    await waitFor(() => ended(onB.events.slice(before)), 10_000, "the next turn's end on B");
    expect(onB.sync().turns).toStrictEqual(await cluster.storedTurns(sessionId));
  });
});

describe("when Redis restarts while a turn streams", () => {
  it("the viewer on another process misses the events sent meanwhile, and after a rejoin nothing is lost", async () => {
    const [, b] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(2);
    const onC = liveView(socket, sessionId);
    await onC.join();
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    waiters = new Promise<void>((resolve) => (releaseWaiters = resolve));
    await request(socket, "turn:send", { sessionId, text: "WAIT, then LATE answer" });
    await waitFor(() => onB.events.some((e) => e.type === "subagent_started"), 10_000, "the subagent started, seen on B");

    // Redis goes; the helper finishes meanwhile (B misses that); Redis comes back; the turn goes on.
    await cluster.redis.stop();
    releaseWaiters();
    await waitFor(() => onC.events.some((e) => e.type === "agent:complete"), 10_000, "the helper's result on C");
    await cluster.redis.restart();
    releaseAnswer();
    await waitFor(() => ended(onC.events), 10_000, "the turn's end on C");
    await waitFor(() => onB.sync().turns.at(-1)?.status === "completed", 10_000, "B to converge");

    const stored = await cluster.storedTurns(sessionId);
    expect(stored.at(-1)!.steps.at(-1)!.text).toContain("The helper reported.");
    expect(onB.sync().turns).toStrictEqual(stored);
    expect(onC.sync().turns).toStrictEqual(stored);
    expect(onB.rejoins()).toBeGreaterThan(0);
  });
});

describe("when the owner of a turn dies", () => {
  it("another process sweeps its turn within the lease time and the viewers elsewhere see it end as ghost_sweep", async () => {
    const [a, b, c] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(0);
    const onB = liveView(await b!.client(cookie), sessionId);
    await onB.join();
    await request(socket, "turn:send", { sessionId, text: "HANG on the logs" });
    await waitFor(() => onB.events.some((e) => e.type === "subagent_data"), 10_000, "the subagent working, seen on B");

    // A dies: no more renewals, heartbeats or Redis; its sockets drop; its turn stays "running" in MongoDB.
    const diedAt = Date.now();
    await cluster.kill(a!);

    await waitFor(() => ended(onB.events), LEASE_MS * 4, "the sweep's end on B");
    // Expiry, then the next sweep round (a third of the lease), with room for a loaded machine.
    expect(Date.now() - diedAt).toBeLessThan(LEASE_MS * 3);
    const end = onB.events.find((e) => e.type === "turn:ended");
    expect(end).toMatchObject({ status: "failed" });
    // The end says how the runs it leaves running end (every viewer folds them so): ghost_sweep.
    expect(end?.type === "turn:ended" && end.runsEnd).toMatchObject({ endReason: "ghost_sweep" });

    // The sweep numbers its events past every reservation (the dead owner may have relayed
    // numbers that never reached the stream), so B sees a jump and rejoins: a snapshot.
    await waitFor(() => !onB.sync().needsResync, 10_000, "B's rejoin after the sweep's jump");
    const viewed = onB.sync();
    const stored = (await cluster.storedTurns(sessionId)).at(-1)!;
    const turn = viewed.turns.at(-1)!;
    expect([turn.status, turn.error]).toEqual([stored.status, stored.error]);
    const storedRun = stored.steps[0]!.toolCalls[0]!.subagent!;
    expect(turn.steps[0]!.toolCalls[0]!.subagent).toMatchObject({
      status: storedRun.status,
      endReason: "ghost_sweep",
      error: storedRun.error,
    });
    expect(storedRun.endReason).toBe("ghost_sweep");

    // A viewer arriving now, on C, sees the same; and the chat takes a new turn.
    const onC = liveView(await c!.client(cookie), sessionId);
    await onC.join();
    expect(onC.sync().turns.at(-1)).toMatchObject({ status: "failed", error: stored.error });
    const lease = await cluster.db.models.TurnLease.findById(sessionId).lean();
    expect(lease?.instanceId).toBeNull();
    // Exactly one member took the lease over, and counted it; B read A's events through Redis, and timed them.
    const scraped = await Promise.all([b!, c!].map(async (m) => parseExposition(await m.metrics.registry.metrics())));
    expect(scraped.map((p) => valueOf(p, "delegate_cluster_lease_takeovers_total")).reduce((x, y) => x + y)).toBe(1);
    expect(valueOf(scraped[0]!, "delegate_cluster_relay_lag_seconds_count")).toBeGreaterThan(0);
    const socketC = await c!.client(cookie);
    expect(await request(socketC, "turn:send", { sessionId, text: "Again, quickly" })).toMatchObject({ ok: true });
    await waitFor(() => ended(onC.events) && onC.sync().turns.at(-1)?.status === "completed", 10_000, "the new turn to complete");
  });
});

describe("when a process shuts down gracefully (SIGTERM)", () => {
  it("ends its running turn, tells the viewers on other processes, stores it, reports it and frees the chat", async () => {
    const [, b, c] = cluster.members;
    const { cookie, socket, sessionId } = await newChat(1);
    const onC = liveView(await c!.client(cookie), sessionId);
    await onC.join();
    const sent = await request(socket, "turn:send", { sessionId, text: "HANG on the metrics" });
    if (!sent.ok) throw new Error(sent.message);
    await waitFor(() => onC.events.some((e) => e.type === "subagent_data"), 10_000, "the subagent working, seen on C");

    const { ended: report } = await b!.app.close();
    expect(report).toEqual([{ sessionId, turnId: sent.data.turnId }]);
    await waitFor(() => ended(onC.events), 5_000, "the end on C");
    const stored = await cluster.storedTurns(sessionId);
    expect(stored.at(-1)?.status).toBe("cancelled");
    expect(onC.sync().needsResync).toBe(false);
    expect(onC.sync().turns).toStrictEqual(stored);
    expect((await cluster.db.models.TurnLease.findById(sessionId).lean())?.instanceId).toBeNull();
    // Nothing waits for a lease to expire: the chat takes a turn on C at once.
    const socketC = await c!.client(cookie);
    expect(await request(socketC, "turn:send", { sessionId, text: "Again, quickly" })).toMatchObject({ ok: true });
  });
});
