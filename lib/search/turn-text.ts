import type { ChatTurn, Step } from "@/lib/contracts";
import { termsOf } from "./terms";

/** Characters of each text kept for excerpts; terms are taken from the whole text. */
export const EXCERPT_SOURCE_CHARS = 10_000;

/** The master's answer: the text of its steps, in order (the final step is the answer a person reads). */
export function answerOf(turn: ChatTurn): string {
  return turn.steps
    .map((s) => s.text)
    .filter(Boolean)
    .join("\n\n");
}

/** Every subagent's final result in the turn, to any depth: the clean answers, never their internals. */
export function subagentResultsOf(turn: ChatTurn): string[] {
  const out: string[] = [];
  const walk = (steps: readonly Step[]) => {
    for (const step of steps) {
      for (const call of step.toolCalls) {
        if (!call.subagent) continue;
        if (call.subagent.response) out.push(call.subagent.response);
        walk(call.subagent.steps);
      }
    }
  };
  walk(turn.steps);
  return out;
}

export interface TurnSearchText {
  terms: string[];
  allTerms: string[];
  prompt: string;
  answer: string;
  results: string;
}

/** What search stores of one turn (models/search-entry.ts). */
export function turnSearchText(turn: ChatTurn): TurnSearchText {
  const answer = answerOf(turn);
  const results = subagentResultsOf(turn).join("\n\n");
  const terms = termsOf(turn.prompt, answer);
  return {
    terms,
    allTerms: results ? termsOf(turn.prompt, answer, results) : terms,
    prompt: turn.prompt.slice(0, EXCERPT_SOURCE_CHARS),
    answer: answer.slice(0, EXCERPT_SOURCE_CHARS),
    results: results.slice(0, EXCERPT_SOURCE_CHARS),
  };
}
