import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SessionEvent } from "@/lib/contracts";
import { parseEnv } from "@/lib/env";
import type { TurnTracer } from "@/lib/telemetry/turn-tracer";
import { buildRuntime } from "@/server/agent/build-runtime";
import { command, startBenchApp } from "./bench-app";
import { openBenchDatabase } from "./bench-database";
import { RELAY_FULL, RELAY_SMOKE, runRelayBench, type RelayCase, type RelayResult } from "./relay-bench";
import { median, round } from "./stats";

/**
 * What one process measures for the tracing benchmark, traced or not (its caller decides):
 *
 * - the relay: the relay benchmark's "1 session, 10 clients" case (runtime events through
 *   the real DroneSession's sequence, fold and persist, then Socket.IO to ten clients),
 *   where the Socket.IO instrumentation sits on every emit when tracing is on;
 * - whole turns: the demo model's deep-dive turn (the master, a `general` subagent and two
 *   `explore` subagents, each streaming and calling workspace tools) through the runtime
 *   the server builds, the app and a socket, where the turn tracer opens a span per agent,
 *   model request and tool call. The demo model streams without pauses, so a turn is as
 *   dense in events as the machine allows.
 */
export interface TracingSize {
  relay: RelayCase;
  warmUpTurns: number;
  measuredTurns: number;
}

export const TRACING_FULL: TracingSize = {
  relay: RELAY_FULL.find((c) => c.label === "1 session, 10 clients")!,
  warmUpTurns: 2,
  measuredTurns: 8,
};
export const TRACING_SMOKE: TracingSize = {
  relay: RELAY_SMOKE.find((c) => c.label === "1 session, 3 clients")!,
  warmUpTurns: 0,
  measuredTurns: 1,
};
const PROMPT = "Deep dive into the tide predictor and the datum conversion";
const TURN_TIMEOUT_MS = 120_000;

export interface TracingCaseFigures {
  relay: RelayResult;
  turns: {
    count: number;
    /** Send → `turn:ended` at the client, median over the measured turns. */
    wallMedianMs: number;
    /** This process's CPU time (user + system) per turn, median; the client shares the process. */
    cpuMedianMs: number;
    /** Events the client received per turn, median (the demo turn always sends the same). */
    eventsPerTurn: number;
  };
}

export async function runTracingCase(options: {
  tracer: TurnTracer | undefined;
  baseUri: string;
  size: TracingSize;
}): Promise<TracingCaseFigures> {
  const db = await openBenchDatabase({ baseUri: options.baseUri });
  const workspace = mkdtempSync(path.join(tmpdir(), "delegate-tracing-bench-"));
  try {
    const [relay] = await runRelayBench(db.store, [options.size.relay]);
    cpSync(path.resolve("workspace"), workspace, { recursive: true });
    const turns = await measureTurns(db.store, workspace, options.tracer, options.size);
    return { relay: relay!, turns };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    await db.close();
  }
}

async function measureTurns(
  store: Parameters<typeof startBenchApp>[1],
  workspace: string,
  tracer: TurnTracer | undefined,
  size: TracingSize,
): Promise<TracingCaseFigures["turns"]> {
  const env = parseEnv({ WORKSPACE_DIR: workspace, DEMO_CHUNK_DELAY_MS: "0", DEMO_REPLY_DELAY_MS: "0" });
  const quiet = { info: () => undefined, warn: () => undefined };
  const { runtime } = buildRuntime(env, quiet, undefined, tracer);
  const bench = await startBenchApp(runtime, store);
  try {
    const cookie = await bench.newCookie();
    const walls: number[] = [];
    const cpus: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < size.warmUpTurns + size.measuredTurns; i++) {
      // A fresh chat per turn: every turn's context is the same size.
      const { sessionId } = await bench.createSession(cookie, `Tracing ${i + 1}`);
      const socket = await bench.client(cookie);
      try {
        await command(socket, "session:join", { sessionId });
        let events = 0;
        let ended: () => void = () => undefined;
        const end = new Promise<void>((resolve) => (ended = resolve));
        socket.on("agent:event", (event: SessionEvent) => {
          if (event.sessionId !== sessionId) return;
          events++;
          if (event.type === "turn:ended") ended();
        });
        const cpu = process.cpuUsage();
        const started = performance.now();
        await command(socket, "turn:send", { sessionId, text: PROMPT });
        await withTimeout(end, TURN_TIMEOUT_MS, "a benchmark turn did not end");
        const wall = performance.now() - started;
        const used = process.cpuUsage(cpu);
        // Written in full before the next turn, so no turn pays for another's writes.
        await (await bench.app.registry.peek(sessionId))?.settled();
        if (i < size.warmUpTurns) continue;
        walls.push(wall);
        cpus.push((used.user + used.system) / 1000);
        counts.push(events);
      } finally {
        socket.disconnect();
      }
    }
    return {
      count: walls.length,
      wallMedianMs: round(median(walls), 1),
      cpuMedianMs: round(median(cpus), 1),
      eventsPerTurn: median(counts),
    };
  } finally {
    await bench.close();
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
