"use client";

import { createContext, useContext, useEffect } from "react";
import type { Budget, ChatTurn } from "@/lib/contracts";
import { spendAgainst, spendOf, type Spend } from "@/lib/budgets/spend";

/**
 * The running turn's spend against its budget, told by the chat view to the header above
 * it (the two are siblings in the shell, as with the context meter's last turn). The
 * figures are the turn's own stats as they stream: the master's totals, its subagents'
 * spending included, updated as each response is counted.
 */
export interface TurnSpend {
  sessionId: string;
  spend: Spend;
  budget: Budget;
}

export const TurnSpendContext = createContext<(spend: TurnSpend | null) => void>(() => undefined);

/** Reports `turn`'s spend while it runs with a budget; nothing otherwise. */
export function useReportTurnSpend(sessionId: string, turn: ChatTurn | undefined): void {
  const report = useContext(TurnSpendContext);
  const running = turn?.status === "running" && turn.budget ? turn : undefined;
  const spend = running ? spendOf(running.stats) : undefined;
  const budget = running?.budget;
  const tokens = spend?.tokens;
  const usd = spend?.usd;
  useEffect(() => {
    report(budget && tokens !== undefined && usd !== undefined ? { sessionId, spend: { tokens, usd }, budget } : null);
  }, [report, sessionId, budget, tokens, usd]);
  useEffect(() => () => report(null), [report]);
}

/** "1,240 / 5,000 tokens" in the header while a turn with a budget runs. */
export function TurnBudgetMeter({ spend }: { spend: TurnSpend }) {
  const share = shareOf(spend);
  const tone = share >= 0.9 ? "bg-amber-500" : "bg-sky-500";
  const figures = spendAgainst(spend.spend, spend.budget);
  return (
    <div
      className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400"
      title={`This turn has spent ${figures} of its budget, its subagents included; at the limit it stops.`}
      data-testid="turn-budget"
    >
      <span className="hidden lg:inline">Budget</span>
      <span className="tabular-nums" data-testid="turn-budget-figures">
        {figures}
      </span>
      <span className="hidden h-1.5 w-12 overflow-hidden rounded-full bg-zinc-200 sm:block dark:bg-zinc-700" aria-hidden="true">
        <span className={`block h-full rounded-full ${tone}`} style={{ width: `${Math.max(2, Math.round(share * 100))}%` }} />
      </span>
    </div>
  );
}

/** The larger of the shares spent, of each limit set. */
function shareOf({ spend, budget }: TurnSpend): number {
  const shares = [budget.tokens !== undefined ? spend.tokens / budget.tokens : 0, budget.usd !== undefined ? spend.usd / budget.usd : 0];
  return Math.min(1, Math.max(...shares));
}
