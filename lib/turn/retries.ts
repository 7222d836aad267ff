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
  for (const turn of turns) for (const [from, to] of retriesIn(turn)) links.set(from, to);
  return links;
}

/**
 * Per turn object: the reducer shares unchanged turns, so while one turn streams the
 * browser walks only that one, not the whole history, on every event.
 */
const perTurn = new WeakMap<ChatTurn, [string, string][]>();

function retriesIn(turn: ChatTurn): [string, string][] {
  const known = perTurn.get(turn);
  if (known) return known;
  const pairs: [string, string][] = [];
  const visit = (process: SubagentProcess) => {
    if (process.retryOf) pairs.push([process.retryOf, process.runId]);
    for (const step of process.steps) for (const call of step.toolCalls) if (call.subagent) visit(call.subagent);
  };
  for (const step of turn.steps) for (const call of step.toolCalls) if (call.subagent) visit(call.subagent);
  perTurn.set(turn, pairs);
  return pairs;
}

/** Where run `runId` sits: its turn, the call that spawned it, and its process. */
export function findRun(
  turns: readonly ChatTurn[],
  runId: string,
): { turn: ChatTurn; call: ToolCall; process: SubagentProcess } | undefined {
  for (const turn of turns) {
    const path = runPath(turn, runId);
    const call = path && callAt(turn, path);
    if (call?.subagent) return { turn, call, process: call.subagent };
  }
  return undefined;
}
