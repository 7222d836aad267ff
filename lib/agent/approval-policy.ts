import type { Tool } from "@/lib/tools/types";
import { toolMatcher } from "./tool-patterns";

/**
 * Whether a call needs a person's approval: the tool says so (the edit tools; MCP tools
 * from their config), or the calling agent's definition lists it in `requireApproval`
 * by name or pattern, matched like `allowedTools` (`files.*`, `*`).
 */
export function needsApproval(tool: Tool, requireApproval: readonly string[] = []): boolean {
  return tool.requiresApproval === true || matchesToolName(requireApproval, tool.spec.name);
}

export function matchesToolName(patterns: readonly string[], name: string): boolean {
  return patterns.length > 0 && toolMatcher(patterns)(name);
}

/** The asking agent's own words before the call (the text of the step that made it), clipped. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;
export function approvalReason(stepText: string): string {
  const text = stepText.trim();
  return text.length > MAX_APPROVAL_REASON_CHARS ? `${text.slice(0, MAX_APPROVAL_REASON_CHARS - 1)}…` : text;
}
