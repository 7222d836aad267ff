import { startCluster, type ClusterNode } from "@/test/support/cluster/cluster";
import { isDataEvent } from "@/lib/contracts";
import {
  createChat,
  lastTurnEnded,
  newIdentity,
  openStoredView,
  openViewer,
  publishedSeqs,
  runsOf,
  seqIntegrity,
  type Viewer,
} from "@/test/support/cluster/viewer";
import { request } from "@/test/support/server/live-app";
import { markersIn, startDelegationModel } from "./scripted-delegation";

/**
 * The load scenario across real app processes (`npm run load -- --processes N`): N app
 * processes on one Redis and one database, S sessions each running one turn with three
 * subagents, each watched by three socket clients spread across the processes (the
 * session's first watcher on the process that runs its turn, the others elsewhere). The
 * model is an OpenAI-compatible HTTP server in this process (load/scripted-delegation.ts),
 * so the turns run inside the app processes.
 *
 * Reported: events lost and duplicated per watcher (seq holes and repeats), watchers whose
 * final state differs from the stored turns, and relay latency (model chunk written → text
 * event received, over every text event) for watchers on the owner's process and on the
 * others. With `killOne`, one process is SIGKILLed once every turn is under way; its
 * watchers move to a live process and rejoin with their last seq, and the report says
 * what was swept and what every watcher ended with.
 */
export interface ClusterLoadOptions {
  processes: number;
  sessions: number;
  watchersPerSession?: number;
  /** Text chunks per answer, and the pause before each. */
  chunks?: number;
  chunkDelayMs?: number;
  killOne?: boolean;
  /** The database (server and name); default: the project's test database server, started for the run. */
  mongoUri?: string;
  /** LEASE_MS of the app processes (default: 10000, the app's; 3000 with `killOne`). */
  leaseMs?: number;
  /** Bound on the whole run once the turns are sent. */
  timeoutMs?: number;
  /** A line now and then while the turns run (the command line prints it). */
  progress?: (line: string) => void;
}

export interface LatencyFigures {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

export interface KillReport {
  node: string;
  /** Seconds after the sends. */
  atSeconds: number;
  /** Turns the killed process was running at that moment. */
  turnsRunning: number;
  /** Of those, turns ended by another process's sweep (a subagent or the turn ended `ghost_sweep`). */
  turnsSwept: number;
  runsSwept: number;
  /** Kill → the swept end reaching a watcher elsewhere, slowest. */
  sweepSeconds: number;
  /** Turns on the live processes that completed. */
  othersCompleted: number;
  othersTotal: number;
  watchersMoved: number;
  /** What every watcher ended with: `<turn status> (equal to stored | differs)` → count. */
  endStates: Record<string, number>;
}

export interface ClusterLoadReport {
  processes: number;
  sessions: number;
  watchers: number;
  subagentsPerTurn: number[];
  sendsRefused: number;
  /** Events received, all watchers together. */
  events: number;
  seconds: number;
  lost: number;
  duplicated: number;
  /** Snapshot joins watchers asked for after a gap in the numbering (the browser does the same). */
  resyncs: number;
  /** Watchers whose final state is not the stored one (labels), or that never saw the end. */
  mismatched: string[];
  neverEnded: number;
  latencyMs: { owner: LatencyFigures; others: LatencyFigures };
  killed?: KillReport;
}

interface LoadSession {
  sessionId: string;
  owner: ClusterNode;
  viewers: Viewer[];
}

function figures(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
  return { samples: sorted.length, p50: at(50), p99: at(99), max: sorted.at(-1) ?? 0 };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runClusterLoad(options: ClusterLoadOptions): Promise<ClusterLoadReport> {
  const watchersPerSession = options.watchersPerSession ?? 3;
  options.progress?.(
    `starting ${options.processes} app process${options.processes === 1 ? "" : "es"}${options.processes > 1 ? " and Redis" : ""}`,
  );
  const model = await startDelegationModel({ chunks: options.chunks ?? 20, chunkDelayMs: options.chunkDelayMs ?? 5 });
  const cluster = await startCluster({
    processes: options.processes,
    mongoUri: options.mongoUri,
    redis: options.processes > 1,
    // The app's default lease, except when a process is killed: then a short one, so the
    // sweep is seconds away (as in the process tests).
    leaseMs: options.leaseMs ?? (options.killOne ? 3_000 : 10_000),
    env: { MODEL: "scripted-load", OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "load-test", SYSTEM_MODEL: "" },
  });
  const stored = await openStoredView(cluster.mongoUri);
  const sessions: LoadSession[] = [];
  try {
    const nodes = cluster.nodes;
    // Set up in small batches: each person is an HTTP request and a few sockets.
    for (let start = 0; start < options.sessions; start += 10) {
      const batch = Array.from({ length: Math.min(10, options.sessions - start) }, (_, k) => start + k);
      sessions.push(
        ...(await Promise.all(
          batch.map(async (i) => {
            const owner = nodes[i % nodes.length]!;
            const cookie = await newIdentity(owner);
            const sessionId = await createChat(owner, cookie);
            const viewers = await Promise.all(
              Array.from({ length: watchersPerSession }, (_, w) => {
                const node = nodes[(i + w) % nodes.length]!;
                return openViewer(node, cookie, sessionId, `session ${i} watcher ${w} on ${node.name}${node === owner ? " (owner)" : ""}`);
              }),
            );
            return { sessionId, owner, viewers };
          }),
        )),
      );
    }
    const home = new Map(sessions.flatMap((s) => s.viewers.map((v) => [v, v.node] as const)));
    /** Events each watcher received before it moved (only those count for latency by placement). */
    const receivedAtHome = new Map<Viewer, number>();

    options.progress?.(`${sessions.length} sessions, ${sessions.length * watchersPerSession} watchers joined; sending`);
    const started = performance.now();
    const acks = await Promise.all(
      sessions.map((s) =>
        request(
          s.viewers[0]!.socket,
          "turn:send",
          { sessionId: s.sessionId, text: "Investigate the open bugs, the release plan and the changelog" },
          30_000,
        ),
      ),
    );
    const sendsRefused = acks.filter((a) => !a.ok).length;
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
    const allViewers = sessions.flatMap((s) => s.viewers);

    let killed: { node: ClusterNode; at: number; atSeconds: number; running: LoadSession[] } | undefined;
    if (options.killOne && nodes.length > 1) {
      // Once every turn is under way (its subagents started), the second process dies.
      while (!sessions.every((s) => runsOf(s.viewers[0]!.state().turns.at(-1)).length >= 1) && Date.now() < deadline) await pause(20);
      const victim = nodes[1]!;
      const running = sessions.filter((s) => s.owner === victim && !lastTurnEnded(s.viewers[0]!.state()));
      await victim.kill();
      killed = { node: victim, at: performance.now(), atSeconds: (performance.now() - started) / 1000, running };
    }

    // Watch until every watcher has the end; move the ones whose process died, resync gaps.
    const endedAt = new Map<Viewer, number>();
    let moved = 0;
    let lastProgress = performance.now();
    let lastChange = performance.now();
    let endedBefore = 0;
    while (Date.now() < deadline) {
      const live = cluster.alive();
      for (const [k, viewer] of allViewers.entries()) {
        if (viewer.disconnected && !viewer.node.alive) {
          receivedAtHome.set(viewer, viewer.events.length);
          await viewer.moveTo(live[k % live.length]!).catch(() => undefined);
          moved++;
        }
        viewer.resyncIfNeeded();
        if (!endedAt.has(viewer) && lastTurnEnded(viewer.state())) endedAt.set(viewer, performance.now());
      }
      if (endedAt.size === allViewers.length) break;
      // Stalled: nobody new has the end for a minute, and no stored turn is running.
      if (endedAt.size !== endedBefore) {
        endedBefore = endedAt.size;
        lastChange = performance.now();
      } else if (performance.now() - lastChange > 60_000) {
        const running = await Promise.all(sessions.map(async (s) => (await stored.turns(s.sessionId)).at(-1)?.status === "running"));
        if (!running.some(Boolean)) break;
        lastChange = performance.now();
      }
      if (performance.now() - lastProgress > 10_000) {
        lastProgress = performance.now();
        options.progress?.(`${endedAt.size} of ${allViewers.length} watchers have the end of their turn`);
      }
      await pause(50);
    }
    const seconds = (performance.now() - started) / 1000;

    let lost = 0;
    let duplicated = 0;
    const mismatched: string[] = [];
    const owner: number[] = [];
    const others: number[] = [];
    const endStates: Record<string, number> = {};
    // The writes trail the relay: wait (bounded) until no stored turn runs, then compare
    // every watcher once, a few at a time.
    const settle = Date.now() + 30_000;
    for (const session of sessions) {
      while ((await stored.turns(session.sessionId)).at(-1)?.status === "running" && Date.now() < settle) await pause(200);
    }
    const differences = new Map<Viewer, string | null>();
    for (let i = 0; i < allViewers.length; i += 10) {
      const batch = allViewers.slice(i, i + 10);
      const found = await Promise.all(batch.map((v) => stored.converged(() => v.state())));
      batch.forEach((v, k) => differences.set(v, found[k]!));
    }
    let resyncs = 0;
    for (const session of sessions) {
      const published = publishedSeqs(session.viewers);
      for (const viewer of session.viewers) {
        const integrity = seqIntegrity(viewer, published);
        resyncs += viewer.resyncs;
        lost += integrity.lost;
        duplicated += integrity.duplicated;
        const difference = differences.get(viewer) ?? null;
        if (!endedAt.has(viewer)) mismatched.push(`${viewer.label}: never saw the end (${viewer.describe()})`);
        else if (difference !== null) mismatched.push(`${viewer.label}: ${difference}`);
        const status = viewer.state().turns.at(-1)?.status ?? "none";
        const key = `${status}, ${difference === null ? "equal to stored" : "differs from stored"}`;
        endStates[key] = (endStates[key] ?? 0) + 1;

        const counted = receivedAtHome.get(viewer) ?? viewer.events.length;
        const bucket = home.get(viewer) === session.owner ? owner : others;
        for (let k = 0; k < counted; k++) {
          const event = viewer.events[k]!;
          const text = isDataEvent(event) && event.data.kind === "token" ? event.data.text : undefined;
          if (text === undefined) continue;
          const sentAt = markersIn(text)
            .map((m) => model.sentAt(m))
            .filter((t): t is number => t !== undefined)
            .at(-1);
          if (sentAt !== undefined) bucket.push(viewer.arrivals[k]! - sentAt);
        }
      }
    }

    let killReport: KillReport | undefined;
    if (killed) {
      let turnsSwept = 0;
      let runsSwept = 0;
      let sweepSeconds = 0;
      for (const session of killed.running) {
        const turn = (await stored.turns(session.sessionId)).at(-1);
        const swept = runsOf(turn).filter((r) => r.endReason === "ghost_sweep").length;
        runsSwept += swept;
        if (swept > 0 || (turn?.status === "failed" && /restart|ghost|sweep/i.test(turn.error ?? ""))) turnsSwept++;
        for (const viewer of session.viewers) {
          const at = endedAt.get(viewer);
          if (at !== undefined && home.get(viewer) !== killed.node) sweepSeconds = Math.max(sweepSeconds, (at - killed.at) / 1000);
        }
      }
      const elsewhere = sessions.filter((s) => s.owner !== killed!.node);
      const completed = await Promise.all(elsewhere.map(async (s) => (await stored.turns(s.sessionId)).at(-1)?.status === "completed"));
      killReport = {
        node: killed.node.name,
        atSeconds: killed.atSeconds,
        turnsRunning: killed.running.length,
        turnsSwept,
        runsSwept,
        sweepSeconds,
        othersCompleted: completed.filter(Boolean).length,
        othersTotal: elsewhere.length,
        watchersMoved: moved,
        endStates,
      };
    }

    const subagentsPerTurn = await Promise.all(sessions.map(async (s) => runsOf((await stored.turns(s.sessionId)).at(-1)).length));
    return {
      processes: options.processes,
      sessions: sessions.length,
      watchers: allViewers.length,
      subagentsPerTurn,
      sendsRefused,
      events: allViewers.reduce((n, v) => n + v.events.length, 0),
      seconds,
      lost,
      duplicated,
      resyncs,
      mismatched,
      neverEnded: allViewers.length - endedAt.size,
      latencyMs: { owner: figures(owner), others: figures(others) },
      ...(killReport ? { killed: killReport } : {}),
    };
  } finally {
    for (const s of sessions) for (const v of s.viewers) v.close();
    await stored.close();
    await cluster.close();
    await model.close();
  }
}
