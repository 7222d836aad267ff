import type { RunsEnd } from "@/lib/contracts";

/**
 * What a turn that its process left behind (a restart, or a process that died) says when
 * another one ends it: the same words live (ghostEndEvents) and in the database's sweep.
 */
export const GHOST_TURN_ERROR = "The server restarted while this turn was running; it was stopped.";
export const GHOST_RUNS_END: RunsEnd = {
  endReason: "ghost_sweep",
  error: "The server restarted while this subagent was running (ghost sweep).",
  note: "The server restarted before anyone answered (ghost sweep).",
};
