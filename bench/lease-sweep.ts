import os from "node:os";
import { EXPIRED_BATCH, expiredFilter, mongoLeases } from "@/server/cluster/lease";
import { sweepCost, type SweepCost } from "@/test/support/cluster/sweep-cost";
import { openBenchDatabase } from "./bench-database";
import { median, round } from "./stats";

/**
 * `npx tsx bench/lease-sweep.ts [chats] [held] [runs]` — what the lease sweeper's query
 * (every third of a lease, on every process) costs with many chats, most of them idle.
 * Writes `chats` lease rows as an earlier version left them (every free lease with an
 * expiry at the epoch), `held` of them held and half of those expired, then measures the
 * query; then lets the store move the free rows out of the range (what a process does
 * before its first sweep) and measures again. Printed per shape: the documents examined
 * (from `explain` where the server has it, else the documents inside the query's
 * expiresAt range, which an index range scan on that key walks — said which), the
 * documents returned, and the median time of the query and of `leasedSessions()`.
 */
async function main(): Promise<void> {
  const [chats = 10_000, held = 10, runs = 30] = process.argv.slice(2).map(Number);
  const load = os.loadavg().map((n) => round(n, 2));
  const db = await openBenchDatabase();
  try {
    const now = new Date();
    const rows = Array.from({ length: chats }, (_, i) => {
      const holding = i < held;
      // Half the held leases ran out a minute ago (a stalled process), half run for another minute.
      const expiresAt = holding ? new Date(now.getTime() + (i % 2 === 0 ? -60_000 : 60_000)) : new Date(0);
      return {
        _id: `chat-${i}` as never,
        instanceId: holding ? `node-${i % 3}` : null,
        turnId: holding ? `turn-${i}` : null,
        ownerId: holding ? `person-${i}` : null,
        expiresAt,
        seq: i,
      };
    });
    for (let i = 0; i < rows.length; i += 1_000) await db.models.TurnLease.collection.insertMany(rows.slice(i, i + 1_000));

    const leases = mongoLeases(db.models);
    const measure = async (label: string) => {
      const cost: SweepCost = await sweepCost(db.models, now);
      const sweepMs: number[] = [];
      const leasedMs: number[] = [];
      // The first runs warm the server's JIT and the driver; only the later ones count.
      for (let r = 0; r < 2 * runs; r++) {
        let t = performance.now();
        await db.models.TurnLease.find(expiredFilter(now)).limit(EXPIRED_BATCH).lean();
        if (r >= runs) sweepMs.push(performance.now() - t);
        t = performance.now();
        await leases.leasedSessions();
        if (r >= runs) leasedMs.push(performance.now() - t);
      }
      return { label, ...cost, sweepMedianMs: round(median(sweepMs), 2), leasedSessionsMedianMs: round(median(leasedMs), 2) };
    };

    const before = await measure("before (free leases carry expiresAt = epoch)");
    // The store's first sweep unsets the free rows' expiry, as a process does after start.
    await leases.expired(now);
    const after = await measure("after (free leases carry no expiresAt)");

    process.stdout.write(
      `Lease sweep at ${chats} chats (${chats - held} free, ${held} held, ${Math.ceil(held / 2)} of them expired), ` +
        `${db.kind}, load ${load.join(" / ")}, median of ${runs} runs\n\n`,
    );
    process.stdout.write("| shape | documents examined | via | keys examined | returned | sweep query ms | leasedSessions ms |\n");
    process.stdout.write("|---|---:|---|---:|---:|---:|---:|\n");
    for (const m of [before, after]) {
      process.stdout.write(
        `| ${m.label} | ${m.examined} | ${m.via} | ${m.keysExamined ?? "–"} | ${m.returned} | ${m.sweepMedianMs} | ${m.leasedSessionsMedianMs} |\n`,
      );
    }
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
