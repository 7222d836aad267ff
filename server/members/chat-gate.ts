import { AppError } from "@/lib/contracts";
import { can, refusal, type ChatAction } from "@/lib/members/can";
import type { ChatAccess, MemberStore } from "./member-store";

/** The one check at every door of a chat: may `userId` do `action` with it? Returns the chat as they may open it. */
export type ChatGate = (userId: string, sessionId: string, action: ChatAction) => Promise<ChatAccess>;

/**
 * Someone who may not open the chat is answered as for a chat that does not exist
 * (`not_found`); a member whose role does not allow the action is told so (`forbidden`).
 */
export function chatGate(members: Pick<MemberStore, "access">): ChatGate {
  return async (userId, sessionId, action) => {
    const access = await members.access(userId, sessionId);
    if (!can(access.role, action)) throw new AppError("forbidden", refusal(access.role, action));
    return access;
  };
}
