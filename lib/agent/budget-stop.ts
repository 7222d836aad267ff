import type { Budget } from "@/lib/contracts";
import { overrunFigure, overrunOf, spendOf, type Overrun } from "@/lib/budgets/spend";
import type { UsageMeter } from "./usage-meter";

/**
 * Budgets with a hard stop. A run's meter holds its descendants' spending too, so a budget
 * armed on a meter is checked after every model response counted anywhere below it; the
 * first that reaches it stops the run (its signal aborts with `budget_exceeded`), and the
 * runs below it stop with it for the same reason.
 */

/** Which budget stopped a run: a run's own (its definition's) or the turn's. */
export interface BudgetStop {
  whose: "run" | "turn";
  overrun: Overrun;
}

/** The abort reason of a run stopped by a budget, its own or one above it. */
export const BUDGET_EXCEEDED = "budget_exceeded";

/** Arms `budget` on `meter`: the first addition that reaches it calls `stop`, once. */
export function watchBudget(
  meter: UsageMeter,
  budget: Budget | undefined,
  whose: BudgetStop["whose"],
  stop: (why: BudgetStop) => void,
): void {
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
  const figure = overrunFigure(why.overrun);
  if (why.whose === "turn") return `Stopped: the turn ran out of its budget: ${figure}.`;
  return inherited ? `Stopped: a run above it ran out of its budget: ${figure}.` : `Ran out of its budget: ${figure}.`;
}

/** The turn's error when its budget stopped the master: what its answer says under the text it had written. */
export function turnBudgetText(why: BudgetStop): string {
  return `Out of budget: the turn used ${overrunFigure(why.overrun)}, so it stopped before finishing its answer.`;
}
