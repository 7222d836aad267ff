import type { ChatTurn, Step, SubagentProcess, ToolCall } from "@/lib/contracts";

/**
 * Where approvals (and tools' questions) wait in a turn tree, for the page to make them
 * hard to miss: a collapsed panel shows that something inside it waits, and the page
 * lists every waiting call with the runs that lead to it (to open them).
 */
export interface PendingApproval {
  turnId: string;
  callId: string;
  /** The tool that waits. */
  name: string;
  /** The run that made the call; null for the master. */
  runId: string | null;
  /** Who asked: the subagent's name, or null for the master. */
  agent: string | null;
  /** Run ids from the outermost panel down to the one holding the call. */
  runPath: string[];
}

export function pendingApprovals(turns: readonly ChatTurn[]): PendingApproval[] {
  return pendingCalls(turns, (call) => call.approval?.state === "pending");
}

/** The calls whose question waits for a person's answer, found and described as approvals are. */
export function pendingInputs(turns: readonly ChatTurn[]): PendingApproval[] {
  return pendingCalls(turns, (call) => call.inputs?.some((input) => input.state === "pending") === true);
}

function pendingCalls(turns: readonly ChatTurn[], waits: (call: ToolCall) => boolean): PendingApproval[] {
  const found: PendingApproval[] = [];
  for (const turn of turns) {
    if (turn.status === "running") collect(turn.steps, turn.turnId, null, [], found, waits);
  }
  return found;
}

/** True when a call of this run, or of any run below it, waits for approval. */
export function waitsForApproval(process: SubagentProcess): boolean {
  return (
    process.status === "running" &&
    process.steps.some((step) =>
      step.toolCalls.some((call) => call.approval?.state === "pending" || (call.subagent !== undefined && waitsForApproval(call.subagent))),
    )
  );
}

/** True when a call of this run, or of any run below it, waits for a person's answer to its question. */
export function waitsForAnswer(process: SubagentProcess): boolean {
  return (
    process.status === "running" &&
    process.steps.some((step) =>
      step.toolCalls.some(
        (call) => call.inputs?.some((input) => input.state === "pending") || (call.subagent !== undefined && waitsForAnswer(call.subagent)),
      ),
    )
  );
}

function collect(
  steps: readonly Step[],
  turnId: string,
  owner: SubagentProcess | null,
  runPath: string[],
  found: PendingApproval[],
  waits: (call: ToolCall) => boolean,
): void {
  for (const step of steps) {
    for (const call of step.toolCalls) {
      // A call that spawned a run and asks is that run asking (a remote agent's question): named by it, found in its panel.
      if (waits(call) && call.subagent) {
        const asker = call.subagent;
        found.push({
          turnId,
          callId: call.callId,
          name: asker.model ?? asker.name,
          runId: owner?.runId ?? null,
          agent: asker.name,
          runPath: [...runPath, asker.runId],
        });
      } else if (waits(call)) {
        found.push({ turnId, callId: call.callId, name: call.name, runId: owner?.runId ?? null, agent: owner?.name ?? null, runPath });
      }
      if (call.subagent) collect(call.subagent.steps, turnId, call.subagent, [...runPath, call.subagent.runId], found, waits);
    }
  }
}
