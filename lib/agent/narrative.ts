import type { EndReason, TurnStats } from "@/lib/contracts";
import type { CondensationLevel } from "./condense";

/**
 * Seed 003's narrative casting: a tagged header and a metadata footer around a subagent's
 * (condensed) result, so the parent can tell sub-agent output from its own conversation and
 * reference one of several concurrent results by label. This text is all the parent sees:
 * the tag line, status, error, condensation level, the (condensed) final answer, and —
 * when the footer is on — runtime, steps, tokens and cost.
 */

export const RESULT_TAG_PREFIX = "Subagent Result";

const LEVEL_NAMES: Record<CondensationLevel, string> = {
  1: "Level 1 (passthrough)",
  2: "Level 2 (LLM summary)",
  3: "Level 3 (head+tail truncation)",
};

const STATUS_NAMES: Record<EndReason, string> = {
  completed: "Completed",
  failed: "Failed",
  killed: "Killed",
  watchdog_timeout: "Timed out (watchdog)",
  ghost_sweep: "Ended by restart (ghost sweep)",
};

export interface NarrativeInput {
  label: string;
  endReason: EndReason;
  level: CondensationLevel;
  body: string;
  stats: TurnStats;
  originalTokens: number;
  bodyTokens: number;
  error?: string;
  /** Seed 003's metadata footer (runtime, steps, tokens, cost, condensation ratio). */
  footer: boolean;
}

export function castNarrative(input: NarrativeInput): string {
  const { stats } = input;
  const tokens = stats.chat.inputTokens + stats.chat.outputTokens + stats.system.inputTokens + stats.system.outputTokens;
  const lines = [`[${RESULT_TAG_PREFIX}: ${input.label}]`, `Status: ${STATUS_NAMES[input.endReason]}`];
  if (input.error) lines.push(`Error: ${input.error}`);
  lines.push(`Condensation: ${LEVEL_NAMES[input.level]}`, "", input.body.trim() || "(no answer)");
  if (!input.footer) return lines.join("\n");
  lines.push("", "---");
  lines.push(
    `Runtime: ${(stats.runtimeMs / 1000).toFixed(1)}s | Steps: ${stats.steps} | Tokens: ${tokens} | Cost: $${stats.cost.toFixed(4)}`,
  );
  if (input.level > 1) {
    const ratio = input.originalTokens > 0 ? input.bodyTokens / input.originalTokens : 1;
    lines.push(`Condensation: Level ${input.level} | Original: ${input.originalTokens} tokens | Ratio: ${ratio.toFixed(2)}`);
  }
  return lines.join("\n");
}

/** A short, stable label: the definition's name and the start of the run id. */
export function runLabel(name: string, runId: string): string {
  return `${name}-${runId.replace(/[^a-zA-Z0-9]/g, "").slice(0, 8)}`;
}
