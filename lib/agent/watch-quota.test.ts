import { describe, expect, it } from "vitest";
import type { Spend } from "@/lib/budgets/spend";
import { watchQuota, type BudgetStop, type SpendGate } from "./budget-stop";
import { UsageMeter } from "./usage-meter";

type QuotaStop = Extract<BudgetStop, { whose: "quota" }>;
const STOP: QuotaStop = { whose: "quota", overrun: { unit: "tokens", spent: 1_000, limit: 1_000 }, text: "your daily quota" };

/** A gate that knows nothing at once and learns from its counts that the quota was reached at the `reachedAt`th addition. */
function countingGate(reachedAt: number) {
  const added: Spend[] = [];
  let answers: Array<(stop: QuotaStop | undefined) => void> = [];
  const gate: SpendGate = {
    add: (delta) => {
      added.push(delta);
      return undefined;
    },
    counted: () => new Promise((resolve) => answers.push(resolve)),
  };
  /** The database answers every count asked so far. */
  const answer = () => {
    const waiting = answers;
    answers = [];
    for (const resolve of waiting) resolve(added.length >= reachedAt ? STOP : undefined);
  };
  return { gate, added, answer };
}

describe("a turn's quota gate", () => {
  it("is told each addition, and stops the turn, once, when a count shows the quota reached elsewhere", async () => {
    const meter = new UsageMeter();
    const { gate, added, answer } = countingGate(2);
    const stops: BudgetStop[] = [];
    const stopped = new Promise<void>((resolve) =>
      watchQuota(meter, gate, (why) => {
        stops.push(why);
        resolve();
      }),
    );

    meter.addChat({ inputTokens: 100, outputTokens: 20 });
    answer();
    // The answer's reaction runs before this continuation, queued after it.
    await Promise.resolve();
    expect(stops).toEqual([]);

    meter.addChat({ inputTokens: 300, outputTokens: 0 });
    meter.addChat({ inputTokens: 5, outputTokens: 0 });
    answer();
    await stopped;
    expect(added).toEqual([
      { tokens: 120, usd: 0 },
      { tokens: 300, usd: 0 },
      { tokens: 5, usd: 0 },
    ]);
    await Promise.resolve();
    expect(stops).toEqual([STOP]);
  });
});
