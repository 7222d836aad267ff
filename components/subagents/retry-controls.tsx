"use client";

import { useId, useState, type FormEvent, type KeyboardEvent } from "react";
import { MAX_PROMPT_CHARS, type EndReason } from "@/lib/contracts";
import { ActionError } from "@/components/ui/action-error";
import { useAction } from "@/components/ui/use-action";
import { usePanelActions } from "./panel-actions";
import { useRetriedAs } from "./retry-links";

/** End reasons a person may retry (lib/agent/retry-plan.ts decides on the server). */
const RETRYABLE: readonly EndReason[] = ["failed", "killed", "watchdog_timeout", "ghost_sweep"];

export function canRetry(endReason: EndReason | undefined): boolean {
  return endReason !== undefined && RETRYABLE.includes(endReason);
}

export interface RetryControlsProps {
  runId: string;
  name: string;
  task: string;
}

/**
 * Retry for a run that ended without an answer: one button runs it again with the same
 * task; "Edit task" opens the task, prefilled, to change before retrying. While its
 * turn still runs and the parent has not read the failure, the retry's result replaces
 * it; after the turn, a new turn runs it and the agent continues with the new result.
 */
export function RetryControls({ runId, name, task }: RetryControlsProps) {
  const actions = usePanelActions();
  const retriedAs = useRetriedAs(runId);
  const fieldId = useId();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(task);
  const action = useAction();
  const { pending } = action;
  const [started, setStarted] = useState<string | null>(null);
  if (!actions?.retry || retriedAs) return null;
  const retry = actions.retry;

  const run = (edited?: string) => {
    setStarted(null);
    void action.run(() => retry(runId, edited !== undefined && edited.trim() !== task.trim() ? edited.trim() : undefined), {
      verb: "retry",
      onOk: (data) => {
        setEditing(false);
        setStarted(data.mode === "in_turn" ? "Retrying: its result will replace this one." : "Retrying in a new turn.");
      },
    });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft.trim()) run(draft);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      setEditing(false);
      setDraft(task);
    } else if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
      submit(e);
    }
  };

  const button = "rounded-md px-3 py-1 text-sm font-medium disabled:opacity-40";
  return (
    <div className="space-y-2 border-t border-zinc-200 pt-3 dark:border-zinc-800" data-testid="retry-controls">
      {editing ? (
        <form onSubmit={submit} className="space-y-2">
          <label htmlFor={fieldId} className="block text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            Task for the retry of {name}
          </label>
          <textarea
            id={fieldId}
            data-testid="retry-task"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onKeyDown}
            maxLength={MAX_PROMPT_CHARS}
            rows={Math.min(8, Math.max(2, draft.split("\n").length))}
            autoFocus
            className="w-full resize-y rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950"
          />
          <div className="flex flex-wrap items-center gap-2">
            <button
              type="submit"
              data-testid="retry-submit"
              disabled={!draft.trim() || pending}
              className={`${button} bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300`}
            >
              {pending ? "Retrying…" : "Retry with this task"}
            </button>
            <button
              type="button"
              onClick={() => {
                setEditing(false);
                setDraft(task);
              }}
              className={`${button} text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800`}
            >
              Cancel
            </button>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">Ctrl+Enter retries, Esc cancels</span>
          </div>
        </form>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            data-testid="retry"
            onClick={() => run()}
            disabled={pending}
            className={`${button} bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300`}
          >
            {pending ? "Retrying…" : "Retry"}
          </button>
          <button
            type="button"
            data-testid="retry-edit"
            onClick={() => setEditing(true)}
            disabled={pending}
            className={`${button} border border-zinc-300 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800`}
          >
            Edit task and retry
          </button>
        </div>
      )}
      {started ? (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          {started}
        </p>
      ) : null}
      <ActionError error={action.error} className="text-sm" />
    </div>
  );
}
