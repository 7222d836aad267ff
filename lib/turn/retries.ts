import type { ChatTurn, SubagentProcess, ToolCall } from "@/lib/contracts";
import { callAt, runPath } from "./paths";

/**
 * Retry links across a session's turns. A run knows what it retried (`retryOf`); the
 * older run's "retried as" is derived here instead of being a second stored fact that
 * could disagree with the first.
 */

/** Old run id → the run that retried it, for every retry in these turns. */
export function retriedAs(turns: readonly ChatTurn[]): Map<string, string> {
  const links = new Map<string, string>();
  const visit = (process: SubagentProcess) => {
    if (process.retryOf) links.set(process.retryOf, process.runId);
    for (const step of process.steps) for (const call of step.toolCalls) if (call.subagent) visit(call.subagent);
  };
  for (const turn of turns) for (const step of turn.steps) for (const call of step.toolCalls) if (call.subagent) visit(call.subagent);
  return links;
}

/** Where run `runId` sits: its turn, the call that spawned it, and its process. */
export function findRun(turns: readonly ChatTurn[], runId: string): { turn: ChatTurn; call: ToolCall; process: SubagentProcess } | undefined {
  for (const turn of turns) {
    const path = runPath(turn, runId);
    const call = path && callAt(turn, path);
    if (call?.subagent) return { turn, call, process: call.subagent };
  }
  return undefined;
}
