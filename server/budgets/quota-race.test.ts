import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpendGate } from "@/lib/agent/budget-stop";
import { openTestDatabase, testDatabaseUri, type TestDatabase } from "@/test/support/server/database";
import { lacks } from "@/test/support/server/ferretdb-gaps";
import { QuotaLedger } from "./quota-ledger";

/**
 * One person's turns spending at once in two processes (two ledgers, each on its own
 * connection to the same database), every run adding a model step's spend until its gate
 * says stop. A run begins its next step only once its gate answers from the counts
 * (`counted`): in the runtime the step already begun is cut by that answer instead, so
 * it adds nothing to the counters either. The day counter may pass the quota by at most
 * one step per run: each run's last step, the one during which the quota was reached.
 *
 * Were each gate to read only its own process's spending, each process's runs would spend
 * up to the quota on their own and the counter would end near twice the quota, far above
 * the bound; read only its own turn's, near eight times.
 */
const STEP = { tokens: 300, usd: 0 };
const QUOTA = { day: { tokens: 30_000 } };
const RUNS_PER_PROCESS = 4;

let a: TestDatabase;
let b: TestDatabase;

beforeAll(async () => {
  const uri = testDatabaseUri("quota-race");
  a = await openTestDatabase("quota-race-a", { uri });
  b = await openTestDatabase("quota-race-b", { uri });
});
afterAll(async () => {
  await a?.connection.close();
  await b?.connection.close();
});

/** Steps until the gate says stop; the number of steps it spent. */
async function run(gate: SpendGate): Promise<number> {
  for (let steps = 1; steps <= 1_000; steps++) {
    const stop = gate.add(STEP) ?? (await gate.counted());
    if (stop) return steps;
  }
  throw new Error("a run never stopped");
}

describe("one person's runs in two processes", () => {
  it.skipIf(lacks("atomicInc"))("stop with the day counter past the quota by at most one step per run", async () => {
    const person = `racer-${Date.now().toString(36)}`;
    const ledgers = [new QuotaLedger(a.models.QuotaUsage, QUOTA), new QuotaLedger(b.models.QuotaUsage, QUOTA)];
    const gates = await Promise.all(ledgers.flatMap((ledger) => Array.from({ length: RUNS_PER_PROCESS }, () => ledger.open(person))));
    expect(gates.every((g) => g !== undefined)).toBe(true);

    const steps = await Promise.all(gates.map((gate) => run(gate!)));
    // Every count has landed once each run's last answer came from it.
    await Promise.all(gates.map((gate) => gate!.counted()));

    const runs = gates.length;
    const day = await a.models.QuotaUsage.findOne({ person, period: "day" }).lean();
    const counted = day?.tokens ?? 0;
    const spent = steps.reduce((sum, n) => sum + n, 0) * STEP.tokens;
    expect(counted).toBe(spent);
    expect(counted).toBeGreaterThanOrEqual(QUOTA.day.tokens);
    expect(counted).toBeLessThanOrEqual(QUOTA.day.tokens + runs * STEP.tokens);
    // Every process refuses the next turn.
    for (const ledger of ledgers) await expect(ledger.open(person)).rejects.toMatchObject({ code: "limit_reached" });
  });
});
