import type { SessionEvent } from "@/lib/contracts";

/**
 * What a process that does not run a chat's turn does with the next event of that chat
 * read from the shared stream (issue 15). Pure, so the rules are tested alone:
 * - at or below what it has: a duplicate (the stream is read from an offset, and a
 *   resync may already cover it) — skip;
 * - the next number: apply;
 * - a `turn:started` further on while no turn runs here: a turn another process started
 *   (its numbering may begin past ours) — apply from there, the replay window restarts;
 * - anything else further on: events were lost (Redis was down, the stream was trimmed)
 *   — resynchronise from the owner.
 */
export type FollowStep = "skip" | "apply" | "jump" | "gap";

export function followStep(state: { seq: number; running: boolean }, event: Pick<SessionEvent, "seq" | "type">): FollowStep {
  if (event.seq <= state.seq) return "skip";
  if (event.seq === state.seq + 1) return "apply";
  if (event.type === "turn:started" && !state.running) return "jump";
  return "gap";
}
