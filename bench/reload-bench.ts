import { request as httpGet } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { loadHistory } from "@/server/data/history";
import { command, startBenchApp, type BenchApp } from "./bench-app";
import type { BenchDatabase } from "./bench-database";
import { createScriptedRunner } from "./scripted-runner";
import { generateHistory, insertHistory, type SeedShape } from "./seed-session";
import { median, nowMs, round } from "./stats";

/**
 * Benchmark 3 (server side): reloading a long session. The history is bulk-inserted,
 * read back through `loadHistory` and compared with what was written, then fetched the
 * way a browser does — `GET /api/sessions/<id>` with the owner's cookie, and the
 * `session:join` snapshot over a real socket — while the database commands each request
 * sends are counted (mongodb driver command monitoring on this process's connection).
 */

export interface ReloadSize {
  turns: number;
  subagents: number;
  nestedToolCalls: number;
}

export const RELOAD_FULL: ReloadSize[] = [
  { turns: 50, subagents: 10, nestedToolCalls: 500 },
  { turns: 500, subagents: 100, nestedToolCalls: 5_000 },
];

export const RELOAD_SMOKE: ReloadSize[] = [
  { turns: 5, subagents: 1, nestedToolCalls: 20 },
  { turns: 50, subagents: 10, nestedToolCalls: 200 },
];

export interface ReloadResult extends SeedShape {
  sessionId: string;
  lastTurnId: string;
  insertMs: number;
  /** `loadHistory` returned exactly the turns that were written. */
  readBackExact: boolean;
  bytes: number;
  /** First request: opens the DroneSession (reserves sequence numbers) as well. */
  cold: { ttfbMs: number; totalMs: number };
  /** Median of the following requests. */
  warm: { ttfbMs: number; totalMs: number };
  joinSnapshotMs: number;
  /** Commands one warm GET sends, by name, and the totals. */
  commands: Record<string, number>;
  queries: number;
  roundTrips: number;
}

export interface ReloadBenchResult {
  cookie: string;
  sizes: ReloadResult[];
}

const WARM_REPS = 5;

/** Runs every size; the sessions stay in the database for the context and browser parts. */
export async function runReloadBench(db: BenchDatabase, sizes: readonly ReloadSize[]): Promise<ReloadBenchResult> {
  const bench = await startBenchApp(
    createScriptedRunner(() => {
      throw new Error("the reload benchmark starts no turns");
    }),
  );
  try {
    const cookie = await bench.newCookie();
    const out: ReloadResult[] = [];
    for (const size of sizes) out.push(await runSize(bench, db, cookie, size));
    return { cookie, sizes: out };
  } finally {
    await bench.close();
  }
}

async function runSize(bench: BenchApp, db: BenchDatabase, cookie: string, size: ReloadSize): Promise<ReloadResult> {
  const { sessionId } = await bench.createSession(cookie, `Reload ${size.turns} turns`);
  const turns = generateHistory({ sessionId, ...size });
  const insertStart = nowMs();
  const shape = await insertHistory(turns);
  const insertMs = nowMs() - insertStart;
  const readBackExact = isDeepStrictEqual(await loadHistory(sessionId), turns);

  const url = `${bench.baseUrl}/api/sessions/${sessionId}`;
  const cold = await timedGet(url, cookie);
  if (cold.status !== 200) throw new Error(`GET ${url} answered ${cold.status}`);
  const warmRuns = [];
  for (let i = 0; i < WARM_REPS; i++) warmRuns.push(await timedGet(url, cookie));
  const { commands } = await db.countCommands(() => timedGet(url, cookie));

  const socket = await bench.client(cookie);
  const joins: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = nowMs();
    const result = await command(socket, "session:join", { sessionId });
    joins.push(nowMs() - start);
    if (result.mode !== "snapshot" || result.turns.length !== size.turns) throw new Error("session:join did not return the whole history");
  }
  socket.disconnect();

  const total = Object.values(commands).reduce((a, b) => a + b, 0);
  return {
    sessionId,
    lastTurnId: turns.at(-1)!.turnId,
    ...shape,
    insertMs: round(insertMs, 0),
    readBackExact,
    bytes: cold.bytes,
    cold: { ttfbMs: round(cold.ttfbMs, 1), totalMs: round(cold.totalMs, 1) },
    warm: { ttfbMs: round(median(warmRuns.map((r) => r.ttfbMs)), 1), totalMs: round(median(warmRuns.map((r) => r.totalMs)), 1) },
    joinSnapshotMs: round(median(joins), 1),
    commands,
    queries: total - (commands.getMore ?? 0),
    roundTrips: total,
  };
}

interface TimedResponse {
  status: number;
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

/** GET with a fresh connection: time to the response head and to the last body byte. */
function timedGet(url: string, cookie: string): Promise<TimedResponse> {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const req = httpGet(url, { headers: { cookie }, agent: false, timeout: 60_000 }, (res) => {
      const ttfbMs = nowMs() - start;
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ttfbMs, totalMs: nowMs() - start, bytes }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on("error", reject);
    req.end();
  });
}
