import { createLogger } from "@/server/log";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import type { ChatTurn, JoinResult, SessionEvent } from "@/lib/contracts";
import { Cluster } from "@/server/cluster/cluster";
import { mongoLeases } from "@/server/cluster/lease";
import type { TurnRunner } from "@/server/sessions/turn-runner";
import { startTestRedis, type TestRedis } from "../redis/redis-server";
import { openTestDatabase, type TestDatabase } from "./database";
import { request, startLiveApp, type LiveApp, type LiveClient } from "./live-app";
import type { AppOptions } from "@/server/app";
import { createAppMetrics, type AppMetrics } from "@/server/metrics/app-metrics";

/**
 * Several app processes' worth of apps in one test process: each its own
 * HTTP + Socket.IO server, registry and Cluster member, all on one test database and one
 * real redis-server, as separate processes would be. Sockets connect to whichever the
 * test picks. (The process-level tests run real processes; this is the in-process kind.)
 */
export interface ClusterMember extends LiveApp {
  cluster: Cluster;
  instanceId: string;
  /** The member's own metrics, which its cluster reports to as well (relay lag, takeovers). */
  metrics: AppMetrics;
}

export interface ClusterApps {
  redis: TestRedis;
  db: TestDatabase;
  members: ClusterMember[];
  /** Every member's sessions written out, then the turns from MongoDB alone. */
  storedTurns(sessionId: string): Promise<ChatTurn[]>;
  /**
   * `member` dies as after a SIGKILL, as far as one test process can: no more lease
   * renewals, heartbeats, sweeps or Redis, its sockets dropped, nothing written for it
   * afterwards by this harness. Its turns stay as they were, in memory and in MongoDB.
   */
  kill(member: ClusterMember): Promise<void>;
  close(): Promise<void>;
}

export async function startClusterApps(
  label: string,
  options: {
    count?: number;
    leaseMs?: number;
    runnerFor: (index: number) => TurnRunner;
    /** Options that need the database's models (API tokens, A2A tasks). */
    optionsFor?: (db: TestDatabase) => Partial<AppOptions>;
  } & Omit<Partial<AppOptions>, "runner" | "store" | "cluster">,
): Promise<ClusterApps> {
  const { count = 3, leaseMs = 10_000, runnerFor, optionsFor, ...appOptions } = options;
  const redis = await startTestRedis();
  const db = await openTestDatabase(label);
  const members: ClusterMember[] = [];
  for (let i = 0; i < count; i++) {
    const instanceId = `app-${String.fromCharCode(97 + i)}`;
    // As server/index.ts does: made before the cluster, which reports to them.
    const metrics = createAppMetrics({ defaultMetrics: false });
    const cluster = await Cluster.connect(
      { redisUrl: redis.url, instanceId, leaseMs, observe: metrics.cluster },
      { leases: mongoLeases(db.models), store: db.store, log: process.env.CLUSTER_TEST_LOG ? createLogger() : undefined },
    );
    const live = await startLiveApp({
      flushMs: 20,
      agentModels: db.models,
      metrics,
      ...appOptions,
      ...optionsFor?.(db),
      store: db.store,
      runner: runnerFor(i),
      cluster,
    });
    members.push({ ...live, cluster, instanceId, metrics });
  }
  await waitForPeers(members, count);
  const dead = new Set<ClusterMember>();
  return {
    redis,
    db,
    members,
    async storedTurns(sessionId) {
      for (const m of members) if (!dead.has(m)) await (await m.app.registry.peek(sessionId).catch(() => undefined))?.drain();
      return db.store.loadHistory(sessionId);
    },
    async kill(member) {
      dead.add(member);
      // Closing its Cluster alone is what the others see of a SIGKILL: its renewals and sweeps
      // stop at once and its Redis connections go, while its leases and turns stay as they
      // were (a graceful shutdown ends the turns first, in the registry). Its adapters are
      // closed after Redis, so their goodbye to the others never leaves, and with them go the
      // adapters' own connections: no more heartbeats, nothing read.
      const closing = member.cluster.close();
      member.app.io.local.disconnectSockets(true);
      await closing;
      for (const namespace of member.app.io._nsps.values()) await namespace.adapter.close();
    },
    async close() {
      await Promise.all(members.map((m) => m.close().catch(() => undefined)));
      await redis.stop();
      await db.close();
    },
  };
}

/** The adapter learns of the other processes through heartbeats; commands are only routed to known ones. */
async function waitForPeers(members: ClusterMember[], count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (const m of members) {
    const adapter = m.app.io.of("/").adapter as unknown as { serverCount(): Promise<number> };
    while ((await adapter.serverCount()) < count) {
      if (Date.now() > deadline) throw new Error("cluster members did not see each other within 10 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * A browser's view of one chat fed from a real socket, doing what components/chat/
 * use-session.ts does: events received before a join's answer are applied first, then the
 * answer; a gap the reducer detects, or a `replay:complete` past what it has, makes it
 * ask for a snapshot again. `rejoins` counts those.
 */
export function liveView(socket: LiveClient, sessionId: string) {
  let state: SessionState = initialSessionState(sessionId);
  const events: SessionEvent[] = [];
  let applied = 0;
  let rejoins = 0;
  let joining: Promise<void> | undefined;
  const sync = (): SessionState => {
    for (; applied < events.length; applied++) state = sessionReducer(state, { type: "event", event: events[applied]! });
    if (state.needsResync && !joining) void rejoin();
    return state;
  };
  const join = async () => {
    const ack = await request(socket, "session:join", { sessionId });
    if (!ack.ok) throw new Error(ack.message);
    for (; applied < events.length; applied++) state = sessionReducer(state, { type: "event", event: events[applied]! });
    state = sessionReducer(state, { type: "joined", result: ack.data as JoinResult });
  };
  const rejoin = () => {
    rejoins++;
    joining = join().finally(() => (joining = undefined));
    return joining;
  };
  socket.on("agent:event", (event) => {
    events.push(event);
    sync();
  });
  socket.on("replay:complete", ({ seq }) => {
    sync();
    if (seq > state.seq && !joining) void rejoin();
  });
  return { join: () => join(), sync, events, rejoins: () => rejoins };
}
