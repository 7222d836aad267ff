import type { AgentEvent, AgentEventOf, ChatTurn, SubagentProcess } from "@/lib/contracts";
import { GHOST_RUN_ERROR, GHOST_TURN_ERROR } from "@/server/data/store";

/**
 * The events that end a turn whose process died (its lease expired, issue 15): an error
 * for every subagent still running, deepest first so no parent ends before its child,
 * with the `ghost_sweep` end reason; then the turn's end. Viewers fold them like any
 * other events and so converge on what the store's sweep writes, without reloading.
 */
export function ghostEndEvents(turn: ChatTurn, endedAt: string): AgentEvent[] {
  if (turn.status !== "running") return [];
  const runs: SubagentProcess[] = [];
  collectRunning(turn.steps, runs);
  const events: AgentEvent[] = runs.reverse().map(
    (run): AgentEventOf<"subagent_error"> => ({
      type: "subagent_error",
      turnId: turn.turnId,
      runId: run.runId,
      parentRunId: run.parentRunId,
      depth: run.depth,
      error: GHOST_RUN_ERROR,
      stats: run.stats,
      endReason: "ghost_sweep",
      endedAt,
    }),
  );
  events.push({ type: "turn:ended", turnId: turn.turnId, status: "failed", stats: turn.stats, error: GHOST_TURN_ERROR, endedAt });
  return events;
}

/** Running processes, parents before their children. */
function collectRunning(steps: ChatTurn["steps"], into: SubagentProcess[]): void {
  for (const step of steps) {
    for (const call of step.toolCalls) {
      const run = call.subagent;
      if (!run) continue;
      if (run.status === "running") into.push(run);
      collectRunning(run.steps, into);
    }
  }
}
