"use client";

import { lazy, Suspense, useState } from "react";
import type { ChatTurn, SubagentProcess, ToolCall } from "@/lib/contracts";
import { CHARS_PER_TOKEN } from "@/lib/context/tokens";
import { formatTokens, totalTokens } from "@/lib/format/display";
import { usePanelActions, useTurnId } from "@/components/subagents/panel-actions";
import { SpinnerIcon } from "@/components/ui/icons";

// The inspector is code-split: most people never open it, and the chat should not pay for it.
// Its code starts loading when the pointer or the focus reaches the button, before the click.
const loadInspector = () => import("./context-inspector");
const ContextInspector = lazy(() => loadInspector().then((m) => ({ default: m.ContextInspector })));

/** "Context" — opens the inspector on one agent's model requests in this turn. */
export function InspectContextButton({ runId, who, turnId: given }: { runId: string | null; who: string; turnId?: string }) {
  const actions = usePanelActions();
  const contextTurnId = useTurnId();
  const turnId = given ?? contextTurnId;
  const [open, setOpen] = useState(false);
  if (!actions || !turnId || actions.inspector === false) return null;
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        onPointerEnter={() => void loadInspector()}
        onFocus={() => void loadInspector()}
        data-testid="inspect-context"
        className="rounded px-1.5 py-0.5 text-xs text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
      >
        Inspect context
      </button>
      {open ? (
        <Suspense
          fallback={
            // On a slow connection or a busy machine the click shows at once that it was heard.
            <span role="status" className="inline-flex items-center gap-1 text-xs text-zinc-600 dark:text-zinc-400">
              <SpinnerIcon size={12} />
              Opening the inspector…
            </span>
          }
        >
          <ContextInspector
            target={{ sessionId: actions.sessionId, turnId, runId, who, apiBase: actions.apiBase }}
            onClose={() => setOpen(false)}
          />
        </Suspense>
      ) : null}
    </>
  );
}

/**
 * A run's context ledger: the tokens it consumed doing its work against the tokens its
 * result put into its parent's context (the point of delegating), with the inspector.
 */
export function ContextLedger({ process, returned }: { process: SubagentProcess; returned?: ToolCall }) {
  const consumed = totalTokens(process.stats);
  const handedBack = returned && returned.status !== "running" ? Math.ceil(returned.responseSize / CHARS_PER_TOKEN) : null;
  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="context-ledger">
      <span>
        Context: consumed <span className="font-medium text-zinc-800 tabular-nums dark:text-zinc-200">{formatTokens(consumed)}</span> tok
        {handedBack !== null ? (
          <>
            {" "}
            → returned <span className="font-medium text-zinc-800 tabular-nums dark:text-zinc-200">~{formatTokens(handedBack)}</span> tok to
            its parent
            {consumed > 0 ? ` (${Math.max(1, Math.round((handedBack / consumed) * 100))} %)` : ""}
          </>
        ) : null}
      </span>
      <InspectContextButton runId={process.runId} who={`${process.name}: ${process.task}`} />
    </div>
  );
}

/** The master's "Inspect context" beside a turn's stats (finished turns). */
export function TurnContextButton({ turn }: { turn: ChatTurn }) {
  return <InspectContextButton runId={null} who="Master agent" turnId={turn.turnId} />;
}
