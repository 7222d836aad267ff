import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { GHOST_RUNS_END, GHOST_TURN_ERROR } from "@/lib/turn/ghost-sweep";

/**
 * The event that ends a turn whose process died (its lease expired): the turn fails, and
 * every run, call and approval it left running ends as the restart sweep ends them
 * (`endRunning`). Viewers fold it like any other event and so converge on what the store's
 * sweep writes, without reloading.
 */
export function ghostEndEvents(turn: ChatTurn, endedAt: string): AgentEvent[] {
  if (turn.status !== "running") return [];
  return [
    {
      type: "turn:ended",
      turnId: turn.turnId,
      status: "failed",
      stats: turn.stats,
      error: GHOST_TURN_ERROR,
      endedAt,
      runsEnd: GHOST_RUNS_END,
    },
  ];
}
