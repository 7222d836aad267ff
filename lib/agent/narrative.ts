import type { EndReason, TurnStats } from "@/lib/contracts";
import type { CondensationLevel } from "./condense";

/**
 * Narrative casting: a tagged header and a metadata footer around a subagent's
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
  budget_exceeded: "Out of budget",
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
  /** The metadata footer (runtime, steps, tokens, cost, condensation ratio). */
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

/** A cast result read back for display: its header and footer as fields, its body as written. */
export interface ReadNarrative {
  label: string;
  status: string;
  error?: string;
  /** "passthrough", "LLM summary", "head+tail truncation". */
  condensation: string;
  level: number;
  body: string;
  /** The footer's figures as written ("Runtime: 1.2s", "Steps: 3", …), when the footer was on. */
  footer: string[];
}

const TAG_LINE = new RegExp(`^\\[${RESULT_TAG_PREFIX}: (.*)\\]$`);
const STATUS_LINE = /^Status: (.+)$/;
const LEVEL_LINE = /^Condensation: Level (\d) \((.+)\)$/;
const FOOTER_STATS = /^Runtime: .+ \| Steps: .+ \| Tokens: .+ \| Cost: .+$/;
const FOOTER_LEVEL = /^Condensation: Level \d \| Original: .+$/;

/**
 * Reads what `castNarrative` wrote, for the panel's "Returned to parent": null for any
 * other text (older records, envelopes), which is then shown as it is. The body is the
 * subagent's own words, so only the exact header and a trailing footer are taken off.
 */
export function readNarrative(text: string): ReadNarrative | null {
  const lines = text.split("\n");
  const tag = TAG_LINE.exec(lines[0] ?? "");
  const status = STATUS_LINE.exec(lines[1] ?? "");
  if (!tag || !status) return null;
  const levelAt = lines.findIndex((line, i) => i >= 2 && LEVEL_LINE.test(line));
  if (levelAt < 0 || lines[levelAt + 1] !== "") return null;
  const level = LEVEL_LINE.exec(lines[levelAt]!)!;
  const errorLines = lines.slice(2, levelAt);
  if (errorLines.length > 0 && !errorLines[0]!.startsWith("Error: ")) return null;
  let end = lines.length;
  const footer: string[] = [];
  const withLevel = FOOTER_LEVEL.test(lines.at(-1) ?? "") ? 1 : 0;
  const statsAt = lines.length - 1 - withLevel;
  if (statsAt - 2 > levelAt + 1 && FOOTER_STATS.test(lines[statsAt]!) && lines[statsAt - 1] === "---" && lines[statsAt - 2] === "") {
    end = statsAt - 2;
    footer.push(...lines[statsAt]!.split(" | "));
    if (withLevel) footer.push(...lines.at(-1)!.split(" | ").slice(1));
  }
  const read: ReadNarrative = {
    label: tag[1]!,
    status: status[1]!,
    condensation: level[2]!,
    level: Number(level[1]),
    body: lines.slice(levelAt + 2, end).join("\n"),
    footer,
  };
  if (errorLines.length > 0) read.error = errorLines.join("\n").slice("Error: ".length);
  return read;
}
