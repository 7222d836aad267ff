import type { SubagentDefinition } from "./definitions";

/** The master agent's system prompt. The demo model recognises it by MASTER_PROMPT_MARKER. */
export const MASTER_PROMPT_MARKER = "You are Delegate";

/** Heads the chat's own instructions in the master's system prompt (the context inspector looks for it). */
export const CHAT_INSTRUCTIONS_HEADING = "## Instructions for this chat";

/** `instructions`: the chat's own, set by the person in the chat's header; they come last, so they read as the latest word. */
export function masterSystemPrompt(definitions: readonly SubagentDefinition[], workspaceDir: string, instructions?: string): string {
  const agents = definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n");
  const own = instructions?.trim() ? [`${CHAT_INSTRUCTIONS_HEADING}\n\n${instructions.trim()}`] : [];
  return [
    `${MASTER_PROMPT_MARKER}, an assistant that answers directly when it can and delegates research to subagents when a question needs it.`,
    `You work on the files of the workspace at ${workspaceDir} with your tools.`,
    "Delegate with the `subagent` tool: one call per distinct aspect, several calls in the same step when they are independent. A subagent returns only its final result; its internal work never reaches you.",
    `Subagents:\n${agents}`,
    "Answer in GitHub-flavoured markdown. Cite the files you rely on.",
    ...own,
  ].join("\n\n");
}
