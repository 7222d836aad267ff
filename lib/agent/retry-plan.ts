import type { ChatTurn, EndReason } from "@/lib/contracts";
import { findRun, retriedAs } from "@/lib/turn/retries";
import type { TurnRetry } from "./retry";
import { subagentArgsSchema, type SubagentArgs } from "./subagent-tool";

/**
 * What a Retry after its turn ended will do, decided from the session's turns alone: which
 * run, with which arguments (the original call's, the task possibly edited), and the
 * prompt the new turn records. Pure, so the refusals are tested without a server.
 */

/**
 * Runs that ended without an answer. A ghost-swept run (the server stopped under it) is one
 * too. A run out of budget is not: run again under the same budget, it would stop again.
 */
export const RETRYABLE_END_REASONS: readonly EndReason[] = ["failed", "killed", "watchdog_timeout", "ghost_sweep"];

export type RetryPlan = { ok: true; prompt: string; retry: TurnRetry } | { ok: false; code: "not_found" | "bad_request"; message: string };

export function planRetry(turns: readonly ChatTurn[], runId: string, task?: string): RetryPlan {
  const found = findRun(turns, runId);
  if (!found) return { ok: false, code: "not_found", message: `Run ${runId} was not found in this chat.` };
  const { process, call } = found;
  if (process.status === "running") return { ok: false, code: "bad_request", message: `Run ${runId} is still running.` };
  if (!process.endReason || !RETRYABLE_END_REASONS.includes(process.endReason) || process.status !== "error") {
    return { ok: false, code: "bad_request", message: `Run ${runId} completed; only a failed, killed or timed-out run can be retried.` };
  }
  const newer = retriedAs(turns).get(runId);
  if (newer) return { ok: false, code: "bad_request", message: `Run ${runId} was already retried as ${newer}; retry that run instead.` };
  const args: SubagentArgs = { ...originalArgs(call.parameters, process.name, process.task), ...(task ? { task } : {}) };
  const edited = task !== undefined && task !== process.task;
  return {
    ok: true,
    prompt: `Retry the ${process.name} subagent${edited ? " with an edited task" : ""}: ${args.task}`,
    retry: { retryOf: runId, args },
  };
}

/** The arguments the parent gave the failed run (objective and files included); its name and task when they cannot be read. */
function originalArgs(parameters: string, name: string, task: string): SubagentArgs {
  try {
    const parsed = subagentArgsSchema.safeParse(JSON.parse(parameters));
    if (parsed.success && parsed.data.agent === name) return parsed.data;
  } catch {
    // Parameters are model output; a run that started had valid ones, but history may be old.
  }
  return { agent: name, task };
}
