"use client";

import { createContext, useContext } from "react";
import { ChevronLeftIcon, ChevronRightIcon } from "@/components/ui/icons";

/**
 * What a chat's owner can do with its branches, for the prompt and answer controls: edit a
 * prompt, regenerate an answer, go to another version of a turn, fork. Absent (a shared
 * view): the controls are not shown.
 */
export interface BranchActions {
  /** For each turn shown that has alternatives: all of them, oldest first. */
  siblings: Record<string, string[]>;
  /** The last turn shown (Continue is offered under it only), and no turn is running. */
  lastTurnId: string | null;
  /** The turn whose prompt is being edited in place, if any. */
  editing: string | null;
  setEditing(turnId: string | null): void;
  edit(turnId: string, text: string): Promise<boolean>;
  regenerate(turnId: string): void;
  switchTo(turnId: string): void;
  fork(turnId: string): void;
  /** After a stopped last turn: the agent goes on from what it had said, in a turn of its own. */
  continueStopped(): void;
}

/** The prompt Continue sends: the stopped answer is in the context the model reads, as it was cut. */
export const CONTINUE_PROMPT = "Continue from where you stopped.";

const BranchActionsContext = createContext<BranchActions | null>(null);
export const BranchActionsProvider = BranchActionsContext.Provider;

export function useBranchActions(): BranchActions | null {
  return useContext(BranchActionsContext);
}

const navButton =
  "rounded p-0.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-800 disabled:opacity-30 disabled:hover:bg-transparent dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/** ‹ 2 / 3 ›: which version of this turn is shown, and the way to the others. */
export function BranchNavigator({ turnId }: { turnId: string }) {
  const actions = useBranchActions();
  const all = actions?.siblings[turnId];
  if (!actions || !all || all.length < 2) return null;
  const index = all.indexOf(turnId);
  return (
    <span data-testid="branch-nav" className="inline-flex items-center gap-0.5 text-xs text-zinc-500 tabular-nums dark:text-zinc-400">
      <button
        type="button"
        className={navButton}
        aria-label="Previous version"
        title="Previous version"
        disabled={index <= 0}
        onClick={() => actions.switchTo(all[index - 1]!)}
      >
        <ChevronLeftIcon size={14} />
      </button>
      <span data-testid="branch-position">
        {index + 1} / {all.length}
      </span>
      <button
        type="button"
        className={navButton}
        aria-label="Next version"
        title="Next version"
        disabled={index >= all.length - 1}
        onClick={() => actions.switchTo(all[index + 1]!)}
      >
        <ChevronRightIcon size={14} />
      </button>
    </span>
  );
}
