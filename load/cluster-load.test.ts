import { describe, expect, it } from "vitest";
import { testDatabaseUri } from "@/test/support/server/database";
import { runClusterLoad } from "./cluster-load";

/**
 * `npm run load -- --processes N` at a tiny size, so the mode cannot rot: real app
 * processes (production build), one Redis, the scripted model over HTTP. The full size
 * (3 processes, 50 sessions, 150 watchers) is `npm run load -- --processes 3`.
 */
describe("load across app processes (small)", () => {
  it(
    "two processes, four sessions watched from both: nothing lost or duplicated, every watcher equal to the stored turns",
    { timeout: 300_000 },
    async () => {
      const report = await runClusterLoad({
        processes: 2,
        sessions: 4,
        watchersPerSession: 2,
        chunks: 6,
        chunkDelayMs: 2,
        mongoUri: testDatabaseUri("cluster_load"),
        timeoutMs: 180_000,
      });
      expect(report.sendsRefused).toBe(0);
      expect(report.subagentsPerTurn).toEqual(Array(4).fill(3));
      expect(report.mismatched, report.mismatched.join("\n")).toEqual([]);
      expect(report.lost).toBe(0);
      expect(report.duplicated).toBe(0);
      // Half the watchers sit on the process that runs their session's turn, half elsewhere.
      expect(report.latencyMs.owner.samples).toBeGreaterThan(4 * 20);
      expect(report.latencyMs.others.samples).toBeGreaterThan(4 * 20);
    },
  );

  it(
    "killing one of three processes mid-load: its turns are swept by the others, every watcher ends with the stored state",
    { timeout: 300_000 },
    async () => {
      const report = await runClusterLoad({
        processes: 3,
        sessions: 6,
        chunks: 30,
        chunkDelayMs: 40,
        killOne: true,
        // Short, so the takeover comes soon after the kill, but not so short that a live
        // process slowed by other work on the machine misses a renewal and loses its turn.
        leaseMs: 6_000,
        mongoUri: testDatabaseUri("cluster_load_kill"),
        timeoutMs: 180_000,
      });
      const killed = report.killed!;
      expect(killed.turnsRunning).toBe(2);
      expect(killed.turnsSwept).toBe(killed.turnsRunning);
      expect(killed.othersCompleted).toBe(killed.othersTotal);
      expect(killed.watchersMoved).toBe(6);
      expect(report.mismatched, report.mismatched.join("\n")).toEqual([]);
      expect(report.lost + report.duplicated).toBe(0);
    },
  );
});
