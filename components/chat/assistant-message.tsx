"use client";

import { memo, useMemo } from "react";
import { stepsText, type ChatTurn } from "@/lib/contracts";
import { formatCost, formatDuration, formatTokens, totalTokens } from "@/lib/format/display";
import { TurnIdProvider } from "@/components/subagents/panel-actions";
import { MasterSteps } from "@/components/steps/step-list";
import { ToolCallView } from "@/components/subagents/subagent-execution";
import { GaugeIcon } from "@/components/subagents/status-icon";
import { CopyButton } from "@/components/ui/copy-button";
import { AlertIcon, ForkIcon, RefreshIcon } from "@/components/ui/icons";
import { useBranchActions } from "./branch-actions";
import { TurnContextButton } from "@/components/inspector/inspect-context";
import { TimelineToggle, TurnTimeline } from "@/components/timeline/turn-timeline";

export interface AssistantMessageProps {
  turn: ChatTurn;
}

/**
 * The agent's answer, rendered from the turn: each step (its reasoning folded, its text
 * as markdown, its tool calls as chips and subagent calls as panels) through the same
 * step view as a subagent's, in the order they happened.
 * Memoized on the turn object, which the reducer replaces only when one of its events
 * arrives.
 */
export const AssistantMessage = memo(function AssistantMessage({ turn }: AssistantMessageProps) {
  const live = turn.status === "running";
  const steps = turn.steps;
  const fullText = useMemo(() => stepsText(steps), [steps]);
  const last = steps[steps.length - 1];
  const waiting = live && (!last || last.toolCalls.length > 0 || last.text === "");

  return (
    <TurnIdProvider turnId={turn.turnId}>
      <article
        data-testid="message-assistant"
        data-turn-id={turn.turnId}
        data-status={turn.status}
        aria-busy={live}
        className="group min-w-0 space-y-3"
      >
        <MasterSteps steps={steps} live={live} CallView={ToolCallView} />
        {waiting ? <Working label={steps.length === 0 ? "Thinking…" : "Working…"} /> : null}
        {turn.status === "failed" && turn.endReason === "budget_exceeded" ? (
          <div
            role="status"
            data-testid="turn-out-of-budget"
            className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 px-3 py-2.5 text-sm text-amber-900 dark:border-amber-800/70 dark:bg-amber-950/40 dark:text-amber-200"
          >
            <GaugeIcon size={16} className="mt-0.5 shrink-0" />
            <div className="min-w-0">
              <p className="font-medium">Out of budget</p>
              {turn.error ? <p className="mt-0.5 break-words whitespace-pre-wrap">{turn.error}</p> : null}
            </div>
          </div>
        ) : turn.status === "failed" ? (
          <div
            role="alert"
            data-testid="turn-error"
            className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300"
          >
            <AlertIcon className="mt-0.5 shrink-0" />
            <div className="min-w-0">
              <p className="font-medium">This turn failed.</p>
              {turn.error ? <p className="mt-0.5 break-words whitespace-pre-wrap">{turn.error}</p> : null}
            </div>
          </div>
        ) : null}
        {turn.status === "cancelled" ? (
          <div className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-zinc-500 italic dark:text-zinc-400">Stopped{turn.error ? ` — ${turn.error}` : "."}</p>
            <ContinueButton turnId={turn.turnId} />
          </div>
        ) : null}
        {!live ? <MessageFooter text={fullText} turn={turn} /> : null}
        {live ? (
          <div className="flex text-xs">
            <TimelineToggle turnId={turn.turnId} />
          </div>
        ) : null}
        <TurnTimeline turn={turn} />
      </article>
    </TurnIdProvider>
  );
});

export function Working({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400" role="status">
      <span className="flex gap-1" aria-hidden="true">
        <span className="size-1.5 animate-pulse rounded-full bg-current" />
        <span className="size-1.5 animate-pulse rounded-full bg-current [animation-delay:150ms]" />
        <span className="size-1.5 animate-pulse rounded-full bg-current [animation-delay:300ms]" />
      </span>
      {label}
    </div>
  );
}

function MessageFooter({ text, turn }: { text: string; turn: ChatTurn }) {
  const stats = turn.stats;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400" data-testid="turn-stats">
      {text ? <CopyButton text={text} label="Copy answer" className="-ml-1.5" /> : null}
      {turn.model ? (
        <span data-testid="turn-model" className="max-w-[16rem] truncate" title={`Answered by ${turn.model}`}>
          {turn.model}
        </span>
      ) : null}
      {stats && (totalTokens(stats) > 0 || stats.runtimeMs > 0) ? (
        <span className="tabular-nums" title={`${totalTokens(stats).toLocaleString()} tokens · ${stats.steps} steps`}>
          {formatTokens(totalTokens(stats))} tokens · {formatDuration(stats.runtimeMs)}
          {stats.cost > 0 ? ` · ${formatCost(stats.cost)}` : ""}
        </span>
      ) : null}
      <TurnContextButton turn={turn} />
      <TimelineToggle turnId={turn.turnId} />
      <BranchControls turnId={turn.turnId} />
    </div>
  );
}

/** Under the chat's last turn when it was stopped: the agent goes on from what it had said. */
function ContinueButton({ turnId }: { turnId: string }) {
  const actions = useBranchActions();
  if (!actions || actions.lastTurnId !== turnId) return null;
  return (
    <button
      type="button"
      data-testid="continue"
      onClick={() => actions.continueStopped()}
      className="rounded-md border border-zinc-300 px-2 py-0.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
    >
      Continue
    </button>
  );
}

const footerButton =
  "inline-flex items-center gap-1 rounded-md px-1.5 py-1 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/** Regenerate (a new version of this turn, same prompt) and Fork (a new chat up to here); the versions' navigator is under the prompt. */
function BranchControls({ turnId }: { turnId: string }) {
  const actions = useBranchActions();
  if (!actions) return null;
  return (
    <>
      <button
        type="button"
        data-testid="regenerate"
        className={footerButton}
        title="Regenerate: a new version of this answer"
        onClick={() => actions.regenerate(turnId)}
      >
        <RefreshIcon size={13} /> Regenerate
      </button>
      <button
        type="button"
        data-testid="fork"
        className={footerButton}
        title="Fork: a new chat with the turns up to this one"
        onClick={() => actions.fork(turnId)}
      >
        <ForkIcon size={13} /> Fork
      </button>
    </>
  );
}
