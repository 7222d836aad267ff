import { describe, expect, it } from "vitest";
import { testDatabaseUri } from "@/test/support/server/database";
import { NOISY_RATE_LIMIT, runLoad } from "./load-scenario";

/** The load scenario at a small size, so it cannot rot; `npm run load` runs it at 50. */
describe("load (small)", () => {
  it("six concurrent sessions with three subagents each lose and duplicate nothing", { timeout: 120_000 }, async () => {
    const report = await runLoad({ sessions: 6, mongoUri: testDatabaseUri("load"), chunkDelayMs: 2 });
    expect(report.subagentsPerTurn).toEqual(Array(6).fill(3));
    expect(report.lost).toBe(0);
    expect(report.duplicated).toBe(0);
    expect(report.mismatchedSessions).toEqual([]);
    expect(report.events).toBeGreaterThan(6 * 50);
  });

  it("a noisy neighbour is refused past its caps while four others lose nothing", { timeout: 120_000 }, async () => {
    const report = await runLoad({ sessions: 4, mongoUri: testDatabaseUri("load-noisy"), chunkDelayMs: 2, noisyNeighbour: true });
    expect(report.noisy).toMatchObject({ sockets: 20, socketsRefused: 20 });
    expect(report.noisy!.turns).toBeGreaterThan(0);
    expect(report.noisy!.turnsRefused).toBeGreaterThan(0);
    // Twenty sockets share one person's command budget: its salvo is refused past the
    // budget, and all it got through is within the budget of the seconds it flooded.
    const { commands, rateLimited, seconds } = report.noisy!;
    expect(rateLimited).toBeGreaterThan(0);
    expect(commands - rateLimited).toBeLessThanOrEqual(NOISY_RATE_LIMIT.burst * (Math.ceil(seconds) + 1));
    expect(report.lost + report.duplicated).toBe(0);
    expect(report.mismatchedSessions).toEqual([]);
    expect(report.subagentsPerTurn).toEqual(Array(4).fill(3));
  });
});
