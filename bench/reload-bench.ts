import { isDeepStrictEqual } from "node:util";
import { TURN_PAGE_SIZE, type ChatTurn } from "@/lib/contracts";
import { command, startBenchApp, type BenchApp } from "./bench-app";
import type { BenchDatabase } from "./bench-database";
import { createScriptedRunner } from "./scripted-runner";
import { generateHistory, insertHistory, type SeedShape } from "./seed-session";
import { median, nowMs, round } from "./stats";

/**
 * Benchmark 3 (server side): reloading a long session. The history is bulk-inserted,
 * read back through `loadHistory` and compared with what was written, then fetched the
 * way a browser does — the `session:join` snapshot over a real socket with the owner's
 * cookie — while the database commands one join sends are counted (mongodb driver
 * command monitoring on this process's connection).
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
  /** Every turn, read page by page with `session:older` after the join, equals what was written. */
  pagesExact: boolean;
  /** Time to read every older page after the join (a reader scrolling to the very top). */
  allPagesMs: number;
  /** The snapshot's JSON size (the newest page of turns). */
  bytes: number;
  /** First join: opens the DroneSession (reserves sequence numbers) as well. */
  coldJoinMs: number;
  /** Median of the following joins, each on a fresh socket. */
  warmJoinMs: number;
  /** Commands one warm join sends, by name, and the totals. */
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
    db.store,
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
  const shape = await insertHistory(db.models, turns);
  const insertMs = nowMs() - insertStart;
  const readBackExact = isDeepStrictEqual(await db.store.loadHistory(sessionId), turns);

  const cold = await timedJoin(bench, cookie, sessionId, size.turns);
  const warm: number[] = [];
  for (let i = 0; i < WARM_REPS; i++) warm.push((await timedJoin(bench, cookie, sessionId, size.turns)).ms);
  const { commands } = await db.countCommands(() => timedJoin(bench, cookie, sessionId, size.turns));

  const pages = await walkPages(bench, cookie, sessionId);
  const pagesExact = isDeepStrictEqual(pages.turns, turns);

  const total = Object.values(commands).reduce((a, b) => a + b, 0);
  return {
    sessionId,
    lastTurnId: turns.at(-1)!.turnId,
    ...shape,
    insertMs: round(insertMs, 0),
    readBackExact,
    pagesExact,
    allPagesMs: round(pages.ms, 1),
    bytes: cold.bytes,
    coldJoinMs: round(cold.ms, 1),
    warmJoinMs: round(median(warm), 1),
    commands,
    queries: total - (commands.getMore ?? 0),
    roundTrips: total,
  };
}

/** The join's page, then every page before it, as a reader scrolling to the top loads them. */
async function walkPages(bench: BenchApp, cookie: string, sessionId: string): Promise<{ ms: number; turns: ChatTurn[] }> {
  const socket = await bench.client(cookie);
  try {
    const joined = await command(socket, "session:join", { sessionId });
    if (joined.mode !== "snapshot") throw new Error("session:join did not answer with a snapshot");
    const pages = [joined.turns];
    const start = nowMs();
    for (let cursor = joined.older; cursor !== null;) {
      const page = await command(socket, "session:older", { sessionId, before: cursor });
      pages.unshift(page.turns);
      cursor = page.older;
    }
    return { ms: nowMs() - start, turns: pages.flat() };
  } finally {
    socket.disconnect();
  }
}

/** One `session:join` on a fresh socket (as a reloaded page makes): its time and snapshot size. */
async function timedJoin(bench: BenchApp, cookie: string, sessionId: string, turns: number): Promise<{ ms: number; bytes: number }> {
  const socket = await bench.client(cookie);
  try {
    const start = nowMs();
    const result = await command(socket, "session:join", { sessionId });
    const ms = nowMs() - start;
    if (result.mode !== "snapshot" || result.turns.length !== Math.min(turns, TURN_PAGE_SIZE))
      throw new Error("session:join did not return the newest page of turns");
    return { ms, bytes: Buffer.byteLength(JSON.stringify(result)) };
  } finally {
    socket.disconnect();
  }
}
