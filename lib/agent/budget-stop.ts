import type { Budget } from "@/lib/contracts";
import { overrunFigure, overrunOf, spendOf, type Overrun, type Spend } from "@/lib/budgets/spend";
import type { UsageMeter } from "./usage-meter";

/**
 * Budgets with a hard stop. A run's meter holds its descendants' spending too, so a budget
 * armed on a meter is checked after every model response counted anywhere below it; the
 * first that reaches it stops the run (its signal aborts with `budget_exceeded`), and the
 * runs below it stop with it for the same reason.
 */

/**
 * Which budget stopped a run: a run's own (its definition's), the turn's, or the person's
 * quota (`text` says which and when it resets, in the quota's own words).
 */
export type BudgetStop = { whose: "run" | "turn"; overrun: Overrun } | { whose: "quota"; overrun: Overrun; text: string };

/**
 * What the person's quota makes of the turn's spending (the server counts it across
 * processes): told each addition to the turn's spend, it answers the stop once the quota
 * is reached, so every run of the turn stops at its next step.
 */
export interface SpendGate {
  /** Answers at once, from what the gate knows (this turn's own spending included). */
  add(delta: Spend): Extract<BudgetStop, { whose: "quota" }> | undefined;
  /**
   * Answers once every addition so far is counted, from the counts the server returned:
   * what other turns and processes spent meanwhile included.
   */
  counted(): Promise<Extract<BudgetStop, { whose: "quota" }> | undefined>;
}

/**
 * Tells `gate` of each addition to `meter` (the master's: the whole turn) and stops at its
 * answer, once: the immediate one, or the one after the count, which stops a step already
 * begun when another turn's spending reached the quota meanwhile.
 */
export function watchQuota(meter: UsageMeter, gate: SpendGate | undefined, stop: (why: BudgetStop) => void): void {
  if (!gate) return;
  let counted = spendOf(meter.stats(0));
  let fired = false;
  const fire = (why: BudgetStop | undefined) => {
    if (!why || fired) return;
    fired = true;
    stop(why);
  };
  meter.onAdd(() => {
    const now = spendOf(meter.stats(0));
    const delta = { tokens: now.tokens - counted.tokens, usd: now.usd - counted.usd };
    counted = now;
    fire(gate.add(delta));
    if (!fired) void gate.counted().then(fire, () => undefined);
  });
}

/** The abort reason of a run stopped by a budget, its own or one above it. */
export const BUDGET_EXCEEDED = "budget_exceeded";

/** Arms `budget` on `meter`: the first addition that reaches it calls `stop`, once. */
export function watchBudget(meter: UsageMeter, budget: Budget | undefined, whose: "run" | "turn", stop: (why: BudgetStop) => void): void {
  if (!budget) return;
  let fired = false;
  meter.onAdd(() => {
    if (fired) return;
    const overrun = overrunOf(spendOf(meter.stats(0)), budget);
    if (!overrun) return;
    fired = true;
    stop({ whose, overrun });
  });
}

/**
 * A stopped run's error, as its panel shows it and its parent's model reads it:
 * "Ran out of its budget: 2,140 of 2,000 tokens." for its own budget, else whose it was.
 * `inherited`: the budget was a run's above this one.
 */
export function budgetStopText(why: BudgetStop, inherited: boolean): string {
  if (why.whose === "quota") return `Stopped: you reached ${why.text}.`;
  const figure = overrunFigure(why.overrun);
  if (why.whose === "turn") return `Stopped: the turn ran out of its budget: ${figure}.`;
  return inherited ? `Stopped: a run above it ran out of its budget: ${figure}.` : `Ran out of its budget: ${figure}.`;
}

/** The turn's error when its budget stopped the master: what its answer says under the text it had written. */
export function turnBudgetText(why: BudgetStop): string {
  if (why.whose === "quota") return `You reached ${why.text}. The turn stopped before finishing its answer.`;
  return `The turn used ${overrunFigure(why.overrun)} and stopped before finishing its answer.`;
}

/**
 * Which budget a stop's error names, read back from the words `budgetStopText` and
 * `turnBudgetText` write (kept here, beside them, so the two cannot drift apart):
 * `inherited` for a run stopped because a budget above it was reached. Undefined for any
 * other text. Metrics count each stop once, where it happened, from this.
 */
export function budgetStopOf(error: string | undefined): BudgetStop["whose"] | "inherited" | undefined {
  if (!error) return undefined;
  if (error.startsWith("Ran out of its budget: ")) return "run";
  if (error.startsWith("Stopped: a run above it ran out of its budget: ")) return "inherited";
  if (error.startsWith("Stopped: the turn ran out of its budget: ") || error.startsWith("The turn used ")) return "turn";
  if (error.startsWith("Stopped: you reached ") || error.startsWith("You reached ")) return "quota";
  return undefined;
}
