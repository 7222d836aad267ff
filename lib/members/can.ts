import type { ChatRole } from "@/lib/contracts/members";

/**
 * What a person may do with a chat, by the role they have in it: every check of a chat's
 * door goes through `can`, so the table below is the whole policy (docs/members.md).
 */
export const CHAT_ACTIONS = {
  // Reading: everyone who may open the chat.
  read: "read this chat",
  export: "export this chat",
  // Acting on turns: collaborators and the owner.
  send: "send prompts",
  cancel: "stop a turn",
  steer: "steer a subagent",
  kill: "kill a subagent",
  retry: "retry a subagent",
  decide: "decide on approvals",
  answer: "answer a tool's questions",
  upload: "attach files",
  // Managing the chat: the owner only.
  branch: "edit or regenerate prompts",
  fork: "fork this chat",
  rename: "rename this chat",
  delete: "delete this chat",
  members: "manage this chat's members",
  share: "manage this chat's share links",
  settings: "change this chat's model, instructions or agents",
} as const;
export type ChatAction = keyof typeof CHAT_ACTIONS;

const READS: ReadonlySet<ChatAction> = new Set(["read", "export"]);
const ACTS: ReadonlySet<ChatAction> = new Set(["send", "cancel", "steer", "kill", "retry", "decide", "answer", "upload"]);

export function can(role: ChatRole, action: ChatAction): boolean {
  if (role === "owner") return true;
  if (READS.has(action)) return true;
  return role === "collaborator" && ACTS.has(action);
}

/** The refusal a person reads when their role does not allow `action`, e.g. "a viewer cannot send prompts". */
export function refusal(role: ChatRole, action: ChatAction): string {
  const who = role === "collaborator" ? "a collaborator" : role === "viewer" ? "a viewer" : "the owner";
  return `forbidden: ${who} cannot ${CHAT_ACTIONS[action]}`;
}
