import type { ChatTurn, Step } from "@/lib/contracts";

/**
 * The ids of everyone a turn names as having acted: who sent each prompt, who decided each
 * approval and who answered each question, at any depth, each once. An export names them
 * (`session.people`) so its reader sees who did what.
 */
export function actorsOf(turns: readonly ChatTurn[]): string[] {
  const ids = new Set<string>();
  const walk = (steps: readonly Step[]) => {
    for (const step of steps) {
      for (const call of step.toolCalls) {
        if (call.approval?.decidedBy) ids.add(call.approval.decidedBy);
        for (const input of call.inputs ?? []) if (input.answeredBy) ids.add(input.answeredBy);
        if (call.subagent) walk(call.subagent.steps);
      }
    }
  };
  for (const turn of turns) {
    if (turn.sentBy) ids.add(turn.sentBy);
    walk(turn.steps);
  }
  return [...ids];
}
