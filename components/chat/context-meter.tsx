"use client";

import { useEffect, useState } from "react";
import { formatTokens } from "@/lib/format/display";
import { fetchModelCalls } from "@/components/inspector/model-calls-api";
import type { LastTurn } from "./last-turn";

/**
 * How full the master's context was at its last request, against its budget
 * (CONTEXT_TOKENS): the provider's count when it reported one, else the runtime's own
 * estimate. Over the budget, older context is compacted before the next request.
 */
export function ContextMeter({ last, budget }: { last: LastTurn; budget: number }) {
  const [used, setUsed] = useState<{ tokens: number; reported: boolean } | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setUsed(null);
    fetchModelCalls(last.sessionId, last.turnId, abort.signal)
      .then((calls) => {
        const master = calls.filter((c) => c.runId === null && c.purpose === "chat").at(-1);
        if (master) setUsed({ tokens: master.usage?.inputTokens ?? master.estimatedInputTokens, reported: master.usage !== null });
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, [last.sessionId, last.turnId]);
  if (!used) return null;
  const share = Math.min(1, used.tokens / budget);
  const tone = share >= 0.9 ? "bg-red-500" : share >= 0.7 ? "bg-amber-500" : "bg-sky-500";
  const title = `The master's last request held ${used.tokens.toLocaleString()} tokens (${used.reported ? "as the provider counted" : "estimated"}) of its ${budget.toLocaleString()}-token budget; past the budget, older context is summarised.`;
  return (
    <div
      className="hidden items-center gap-1.5 text-xs text-zinc-600 sm:flex dark:text-zinc-400"
      title={title}
      data-testid="context-meter"
      role="img"
      aria-label={title}
    >
      <span className="hidden lg:inline">Context</span>
      <span className="tabular-nums" data-testid="context-meter-figures">
        {formatTokens(used.tokens)} / {formatTokens(budget)}
      </span>
      <span className="h-1.5 w-12 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700" aria-hidden="true">
        <span className={`block h-full rounded-full ${tone}`} style={{ width: `${Math.max(2, Math.round(share * 100))}%` }} />
      </span>
    </div>
  );
}
