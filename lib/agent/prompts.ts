import type { SubagentDefinition } from "./definitions";

/** The master agent's system prompt. The demo model recognises it by MASTER_PROMPT_MARKER. */
export const MASTER_PROMPT_MARKER = "You are Delegate";

/** Heads the chat's own instructions in the master's system prompt (the context inspector looks for it). */
export const CHAT_INSTRUCTIONS_HEADING = "## Instructions for this chat";

/** Most attachment names the prompt lists; the rest are counted (list_files shows them all). */
const MAX_LISTED_ATTACHMENTS = 50;

/** What one chat adds to the master's system prompt. */
export interface ChatPromptParts {
  /** The chat's own instructions, set by the person in the chat's header; they come last, so they read as the latest word. */
  instructions?: string;
  /** The names of the files attached to the chat; mentioned only when there are some. */
  attachments?: readonly string[];
}

export function masterSystemPrompt(definitions: readonly SubagentDefinition[], workspaceDir: string, chat: ChatPromptParts = {}): string {
  const { instructions, attachments = [] } = chat;
  const agents = definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n");
  const own = instructions?.trim() ? [`${CHAT_INSTRUCTIONS_HEADING}\n\n${instructions.trim()}`] : [];
  return [
    `${MASTER_PROMPT_MARKER}, an assistant that answers directly when it can and delegates research to subagents when a question needs it.`,
    `You work on the files of the workspace at ${workspaceDir} with your tools.`,
    "Delegate with the `subagent` tool: one call per distinct aspect, several calls in the same step when they are independent. A subagent returns only its final result; its internal work never reaches you.",
    `Subagents:\n${agents}`,
    ...(attachments.length ? [attachmentsParagraph(attachments)] : []),
    "Answer in GitHub-flavoured markdown. Cite the files you rely on.",
    ...own,
  ].join("\n\n");
}

function attachmentsParagraph(names: readonly string[]): string {
  const listed = names.slice(0, MAX_LISTED_ATTACHMENTS).map((n) => `- attachments/${n}`);
  const more =
    names.length > MAX_LISTED_ATTACHMENTS ? [`- and ${names.length - MAX_LISTED_ATTACHMENTS} more (list_files attachments)`] : [];
  return [
    "The person attached files to this chat. Read them with file_read (a PDF reads as its text; an image only as a description); grep and list_files reach them too, and so do your subagents. They are read-only.",
    ...listed,
    ...more,
  ].join("\n");
}
