import type { SessionEvent } from "@/lib/contracts";
import { sequenceStep } from "@/lib/turn/sequence";

/**
 * What a process that does not run a chat's turn does with the next event of that chat
 * read from the shared stream. Pure, so the rules are tested alone. The numbering rule is
 * the one every reader follows (lib/turn/sequence.ts), with one addition:
 * - a `turn:started` further on while no turn runs here: a turn another process started
 *   (its numbering may begin past ours) — apply from there, the replay window restarts;
 * - anything else further on: events were lost (Redis was down, the stream was trimmed)
 *   — resynchronise from the owner.
 */
export type FollowStep = "skip" | "apply" | "jump" | "gap";

export function followStep(state: { seq: number; running: boolean }, event: Pick<SessionEvent, "seq" | "type">): FollowStep {
  const step = sequenceStep(state.seq, event.seq);
  if (step === "duplicate") return "skip";
  if (step === "next") return "apply";
  return event.type === "turn:started" && !state.running ? "jump" : "gap";
}
