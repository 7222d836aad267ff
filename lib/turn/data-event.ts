import type { AgentData, AgentDataEvent } from "@/lib/contracts";

/** Which agent acted: the master (null) or a subagent run, with its place in the tree. */
export type RunRef = { runId: string; parentRunId: string | null; depth: number } | null;

/** The event that carries `data` for the agent `run` names: one builder for the master and every subagent. */
export function dataEvent(turnId: string, run: RunRef, data: AgentData): AgentDataEvent {
  if (run === null) return { type: "turn:data", turnId, runId: null, data };
  return { type: "subagent_data", turnId, runId: run.runId, parentRunId: run.parentRunId, depth: run.depth, data };
}
