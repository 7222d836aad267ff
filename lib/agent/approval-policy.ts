import type { Tool } from "@/lib/tools/types";

/**
 * Whether a call needs a person's approval: the tool says so (the edit tools; MCP tools
 * from their config), or the calling agent's definition lists it in `requireApproval`
 * by name or by a pattern where `*` stands for any characters (`files.*`, `*`).
 */
export function needsApproval(tool: Tool, requireApproval: readonly string[] = []): boolean {
  return tool.requiresApproval === true || requireApproval.some((pattern) => matchesToolName(pattern, tool.spec.name));
}

export function matchesToolName(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`).test(name);
}

/** The asking agent's own words before the call (the text of the step that made it), clipped. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;
export function approvalReason(stepText: string): string {
  const text = stepText.trim();
  return text.length > MAX_APPROVAL_REASON_CHARS ? `${text.slice(0, MAX_APPROVAL_REASON_CHARS - 1)}…` : text;
}
