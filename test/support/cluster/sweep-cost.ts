import type { Models } from "@/models";
import { EXPIRED_BATCH, expiredFilter } from "@/server/cluster/lease";

/**
 * What the lease sweeper's query costs the database at `now`. With `explain` (MongoDB,
 * FerretDB) the documents and index keys the plan examined; mongo-java-server has no
 * `explain`, so there the figure is the number of documents inside the `{expiresAt: 1}`
 * range the query asks for, which is what an index range scan on that key walks.
 */
export interface SweepCost {
  via: "explain" | "range count";
  /** Documents examined (explain) or lying in the query's expiresAt range. */
  examined: number;
  /** Index keys examined, when explain reports them. */
  keysExamined?: number;
  returned: number;
}

export async function sweepCost(models: Pick<Models, "TurnLease">, now: Date): Promise<SweepCost> {
  const { TurnLease } = models;
  const query = () => TurnLease.find(expiredFilter(now)).limit(EXPIRED_BATCH);
  type Stats = { totalDocsExamined?: number; totalKeysExamined?: number; nReturned?: number };
  const plan = (await query()
    .explain("executionStats")
    .catch(() => null)) as unknown as { executionStats?: Stats } | { executionStats?: Stats }[] | null;
  const stats = (Array.isArray(plan) ? plan[0] : plan)?.executionStats;
  if (typeof stats?.totalDocsExamined === "number") {
    return {
      via: "explain",
      examined: stats.totalDocsExamined,
      keysExamined: stats.totalKeysExamined,
      returned: stats.nReturned ?? 0,
    };
  }
  const [examined, returned] = await Promise.all([
    TurnLease.countDocuments({ expiresAt: { $lte: now } }),
    query()
      .lean()
      .then((rows) => rows.length),
  ]);
  return { via: "range count", examined, returned };
}
