import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "@/test/support/server/live-app";
import { testDatabaseUri } from "@/test/support/server/database";
import { startCluster, type Cluster, type ClusterNode } from "@/test/support/cluster/cluster";
import {
  createChat,
  lastTurnEnded,
  newIdentity,
  openStoredView,
  openViewer,
  publishedSeqs,
  runsOf,
  seqIntegrity,
  type StoredView,
  type Viewer,
} from "@/test/support/cluster/viewer";

/**
 * Scale-out at the process level: three real app processes (`tsx server/index.ts`, the
 * production build, the offline demo model) on one Debian redis-server and one database,
 * socket clients on different processes. The tests run in order on one cluster: the last
 * two end processes (SIGTERM of c, then SIGKILL of a).
 *
 * Every wait is bounded, so without the scale-out mechanism these fail with what each
 * viewer saw instead of hanging.
 */

const LEASE_MS = 2_000;
/** A dead owner is swept within its lease, plus the sweeper's interval and the relay: generous, still seconds. */
const SWEEP_WITHIN_MS = LEASE_MS + 6_000;
const TURN_MS = 60_000;
/** Two explore subagents, each three model steps of about DEMO_REPLY_DELAY_MS: a turn of a few seconds. */
const PROMPT = "Investigate the open bugs and the release plan";

let cluster: Cluster;
let stored: StoredView;
const viewers: Viewer[] = [];

beforeAll(async () => {
  cluster = await startCluster({
    processes: 3,
    mongoUri: testDatabaseUri("scale_out"),
    leaseMs: LEASE_MS,
    env: { DEMO_CHUNK_DELAY_MS: "20", DEMO_REPLY_DELAY_MS: "900" },
  });
  stored = await openStoredView(cluster.mongoUri);
}, 240_000);

afterAll(async () => {
  for (const v of viewers) v.close();
  await stored?.close();
  await cluster?.close();
}, 60_000);

async function viewerOn(node: ClusterNode, cookie: string, sessionId: string, label?: string): Promise<Viewer> {
  const viewer = await openViewer(node, cookie, sessionId, label);
  viewers.push(viewer);
  return viewer;
}

/** A person, a new chat made through `home`, and a viewer of it on each of `on`. */
async function chatWatchedFrom(home: ClusterNode, on: ClusterNode[]) {
  const cookie = await newIdentity(home);
  const sessionId = await createChat(home, cookie);
  const watching = await Promise.all(on.map((node) => viewerOn(node, cookie, sessionId)));
  return { cookie, sessionId, viewers: watching };
}

async function send(viewer: Viewer, text = PROMPT): Promise<string> {
  const sent = await request(viewer.socket, "turn:send", { sessionId: viewer.sessionId, text }, 15_000);
  if (!sent.ok) throw new Error(`turn:send on node ${viewer.node.name} refused: ${sent.code} ${sent.message}`);
  return sent.data.turnId;
}

async function expectConverged(viewer: Viewer): Promise<void> {
  const difference = await stored.converged(() => viewer.state());
  if (difference !== null) throw new Error(`${viewer.label} does not show what the database holds: ${difference}`);
}

const withLogs = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${cluster.logs()}`);
  }
};

describe("three app processes on one Redis and one database", () => {
  it("each process answers health with its own instance id, Redis up and the database up", async () => {
    const answers = await Promise.all(cluster.nodes.map((n) => n.health()));
    expect(answers).toEqual(
      cluster.nodes.map((n) => expect.objectContaining({ ok: true, database: "up", instance: n.instanceId, redis: "up" })),
    );
  });

  it("a viewer on b sees the turn a runs, live and in order, and ends with the stored turn", { timeout: 90_000 }, () =>
    withLogs(async () => {
      const a = cluster.node("a");
      const b = cluster.node("b");
      const {
        viewers: [onA, onB],
      } = await chatWatchedFrom(a, [a, b]);
      await send(onA!);
      // Live: b sees the subagents while they run, not only the end.
      await onB!.waitFor("running subagent", (s) => runsOf(s.turns.at(-1)).some((r) => r.status === "running"), 20_000);
      await onB!.waitFor("end of the turn", lastTurnEnded, TURN_MS);
      await onA!.waitFor("end of the turn", lastTurnEnded, 10_000);

      expect(onB!.state().turns.at(-1)!.status).toBe("completed");
      expect(runsOf(onB!.state().turns.at(-1)).map((r) => r.status)).toEqual(["success", "success"]);
      // One ordered stream: b received every event of the turn once, in order (or had it in
      // the snapshot it asked for after a jump in numbering, as the browser does).
      expect(seqIntegrity(onB!, publishedSeqs([onA!, onB!]))).toEqual({ duplicated: 0, lost: 0 });
      expect(seqIntegrity(onA!, publishedSeqs([onA!, onB!]))).toEqual({ duplicated: 0, lost: 0 });
      expect(onB!.events.map((e) => e.seq)).toEqual([...onB!.events.map((e) => e.seq)].sort((x, y) => x - y));
      await expectConverged(onB!);
      await expectConverged(onA!);
    }),
  );

  it("steer and kill sent to b reach the subagents a runs, and both viewers see them", { timeout: 90_000 }, () =>
    withLogs(async () => {
      const a = cluster.node("a");
      const b = cluster.node("b");
      const {
        viewers: [onA, onB],
      } = await chatWatchedFrom(a, [a, b]);
      await send(onA!);
      await onB!.waitFor("two running subagents", (s) => runsOf(s.turns.at(-1)).filter((r) => r.status === "running").length === 2, 20_000);
      const [first, second] = runsOf(onB!.state().turns.at(-1));

      const steered = await request(
        onB!.socket,
        "subagent:steer",
        { sessionId: onB!.sessionId, runId: first!.runId, message: "Also look at the changelog" },
        10_000,
      );
      expect(steered, "steer through b").toEqual({ ok: true, data: { runId: first!.runId } });
      const killed = await request(onB!.socket, "subagent:kill", { sessionId: onB!.sessionId, runId: second!.runId }, 10_000);
      expect(killed, "kill through b").toEqual({ ok: true, data: { runId: second!.runId } });

      await onB!.waitFor("end of the turn", lastTurnEnded, TURN_MS);
      await onA!.waitFor("end of the turn", lastTurnEnded, 10_000);
      for (const viewer of [onA!, onB!]) {
        const runs = runsOf(viewer.state().turns.at(-1));
        expect(
          runs.find((r) => r.runId === first!.runId)?.steering?.map((s) => s.message),
          viewer.label,
        ).toEqual(["Also look at the changelog"]);
        expect(
          runs.find((r) => r.runId === second!.runId),
          viewer.label,
        ).toMatchObject({ status: "error", endReason: "killed" });
        await expectConverged(viewer);
      }
    }),
  );

  it("two sends to one chat on a and c at once: one turn runs, the other sender is told busy", { timeout: 90_000 }, () =>
    withLogs(async () => {
      const a = cluster.node("a");
      const c = cluster.node("c");
      const {
        viewers: [onA, onC],
      } = await chatWatchedFrom(a, [a, c]);
      const acks = await Promise.all(
        [onA!, onC!].map((v) => request(v.socket, "turn:send", { sessionId: v.sessionId, text: PROMPT }, 15_000)),
      );
      const won = acks.filter((ack) => ack.ok);
      const refused = acks.filter((ack) => !ack.ok);
      expect(won, JSON.stringify(acks)).toHaveLength(1);
      expect(refused).toEqual([expect.objectContaining({ ok: false, code: "busy" })]);

      await onA!.waitFor("end of the turn", lastTurnEnded, TURN_MS);
      await onC!.waitFor("end of the turn", lastTurnEnded, 10_000);
      expect(onC!.state().turns).toHaveLength(1);
      expect(await stored.turns(onC!.sessionId)).toHaveLength(1);
      await expectConverged(onA!);
      await expectConverged(onC!);
    }),
  );

  it("a Redis restart mid-turn loses nothing: the turn completes and every viewer converges after rejoining", { timeout: 120_000 }, () =>
    withLogs(async () => {
      const a = cluster.node("a");
      const { sessionId, viewers: watching } = await chatWatchedFrom(a, cluster.nodes);
      await send(watching[0]!);
      await watching[1]!.waitFor("a running subagent", (s) => runsOf(s.turns.at(-1)).some((r) => r.status === "running"), 20_000);
      await cluster.redis!.stop();
      await new Promise((r) => setTimeout(r, 1_500));
      await cluster.redis!.start();

      // The turn goes on in a (MongoDB holds it); wait for it there, not for the relay.
      const deadline = Date.now() + TURN_MS;
      while ((await stored.turns(sessionId)).at(-1)?.status === "running") {
        if (Date.now() > deadline) throw new Error("the turn never ended in the database after the Redis restart");
        await new Promise((r) => setTimeout(r, 250));
      }
      const turn = (await stored.turns(sessionId)).at(-1)!;
      expect(turn.status).toBe("completed");
      expect(runsOf(turn).map((r) => r.status)).toEqual(["success", "success"]);
      // Let the relay settle, then each viewer rejoins as a reconnecting browser does.
      await new Promise((r) => setTimeout(r, 1_000));
      for (const viewer of watching) {
        await viewer.join();
        await viewer.waitFor("end of the turn after rejoining", lastTurnEnded, 15_000);
        expect(seqIntegrity(viewer, publishedSeqs(watching)).duplicated, viewer.label).toBe(0);
        await expectConverged(viewer);
      }
    }),
  );

  it("SIGTERM of c with a turn running: it ends the turn, says so to every viewer, releases the chat and exits", { timeout: 90_000 }, () =>
    withLogs(async () => {
      const [a, b, c] = [cluster.node("a"), cluster.node("b"), cluster.node("c")];
      const {
        viewers: [onC, onA, onB],
      } = await chatWatchedFrom(c, [c, a, b]);
      await send(onC!);
      await onA!.waitFor("a running subagent", (s) => runsOf(s.turns.at(-1)).some((r) => r.status === "running"), 20_000);

      const terminated = c.terminate();
      // c's own viewer is told before its connection closes.
      await onC!.waitFor("end of the turn before c went away", lastTurnEnded, 12_000);
      await terminated;
      expect(c.alive).toBe(false);
      expect(c.exitCode, "c exits by itself, cleanly").toBe(0);

      for (const viewer of [onA!, onB!]) {
        await viewer.waitFor("end of the turn", lastTurnEnded, 10_000);
        const turn = viewer.state().turns.at(-1)!;
        expect(turn.status, viewer.label).toBe("cancelled");
        expect(
          runsOf(turn).every((r) => r.status !== "running"),
          viewer.label,
        ).toBe(true);
        await expectConverged(viewer);
      }
      expect(onC!.state().turns.at(-1)!.status).toBe("cancelled");
      // The lease went with it: the chat takes a new turn at once, elsewhere.
      await send(onB!, "hello");
      await onB!.waitFor("end of the next turn", (s) => s.turns.length === 2 && lastTurnEnded(s), TURN_MS);
      expect(onB!.state().turns.at(-1)!.status).toBe("completed");
    }),
  );

  it("SIGKILL of the owner mid-turn: another process sweeps it within the lease time and every viewer converges", { timeout: 90_000 }, () =>
    withLogs(async () => {
      const [a, b] = [cluster.node("a"), cluster.node("b")];
      const {
        viewers: [onA, onB],
      } = await chatWatchedFrom(a, [a, b]);
      await send(onA!);
      await onB!.waitFor("a running subagent", (s) => runsOf(s.turns.at(-1)).some((r) => r.status === "running"), 20_000);
      const runningAtKill = runsOf(onB!.state().turns.at(-1))
        .filter((r) => r.status === "running")
        .map((r) => r.runId);

      await a.kill();
      const killedAt = Date.now();
      await onB!.waitFor("sweep of the dead owner's turn", lastTurnEnded, SWEEP_WITHIN_MS);
      expect(Date.now() - killedAt).toBeLessThan(SWEEP_WITHIN_MS);

      const turn = onB!.state().turns.at(-1)!;
      expect(turn.status).not.toBe("running");
      const runs = runsOf(turn);
      expect(runs.every((r) => r.status !== "running")).toBe(true);
      for (const runId of runningAtKill) {
        const run = runs.find((r) => r.runId === runId)!;
        // Swept, unless it finished in the moment before the kill.
        if (run.status === "error") expect(run.endReason).toBe("ghost_sweep");
      }
      expect(runs.some((r) => r.endReason === "ghost_sweep")).toBe(true);
      await expectConverged(onB!);

      // a's viewer lost its process; it reconnects to b and rejoins with its last seq.
      expect(onA!.disconnected).toBe(true);
      await onA!.moveTo(b);
      await onA!.waitFor("the swept end after rejoining on b", lastTurnEnded, 10_000);
      expect(seqIntegrity(onA!, publishedSeqs([onA!, onB!]))).toEqual({ duplicated: 0, lost: 0 });
      await expectConverged(onA!);

      // Nothing holds the chat any more: b takes the next turn.
      await send(onB!, "hello");
      await onB!.waitFor("end of the next turn", (s) => s.turns.length === 2 && lastTurnEnded(s), TURN_MS);
      expect(onB!.state().turns.at(-1)!.status).toBe("completed");
    }),
  );
});
