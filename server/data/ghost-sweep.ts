import { SubagentRunModel } from "@/models/subagent-run";
import { ToolCallModel } from "@/models/tool-call";
import { TurnModel } from "@/models/turn";

export const GHOST_TURN_ERROR = "The server restarted while this turn was running; it was stopped.";
export const GHOST_RUN_ERROR = "The server restarted while this subagent was running (ghost sweep).";

/**
 * At start, nothing can still be running: whatever the last process left as running ended
 * with it. Mark it so, instead of leaving spinners forever (end reason `ghost_sweep`).
 */
export async function ghostSweep(now = new Date()): Promise<{ turns: number; runs: number; calls: number }> {
  const runs = await SubagentRunModel.updateMany(
    { status: "running" },
    { $set: { status: "error", endReason: "ghost_sweep", error: GHOST_RUN_ERROR, endedAt: now } },
  );
  const calls = await ToolCallModel.updateMany({ status: "running" }, { $set: { status: "error" } });
  const turns = await TurnModel.updateMany({ status: "running" }, { $set: { status: "failed", error: GHOST_TURN_ERROR } });
  return { turns: turns.modifiedCount, runs: runs.modifiedCount, calls: calls.modifiedCount };
}
