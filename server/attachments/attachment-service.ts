import { AppError, type AttachmentRef } from "@/lib/contracts";
import type { ChatAction } from "@/lib/members/can";
import type { AttachmentLimits, AttachmentStore } from "./attachment-store";

export interface AttachmentServiceDeps {
  store: AttachmentStore;
  /** The chat's door (server/members/chat-gate.ts): `not_found` unless `userId` may open the chat, `forbidden` unless their role allows `action`. */
  allowed(userId: string, sessionId: string, action: ChatAction): Promise<unknown>;
}

function noSuchAttachment(): AppError {
  return new AppError("not_found", "That attachment does not exist.");
}

/**
 * What a person can do with the attachments of the chats they are in. Each method checks
 * the person's role first: every member reads them, collaborators and the owner add and
 * remove them; a chat they are not in, and an attachment of another chat, are answered
 * exactly like ones that do not exist.
 */
export class AttachmentService {
  constructor(private readonly deps: AttachmentServiceDeps) {}

  get limits(): AttachmentLimits {
    return this.deps.store.limits;
  }

  /** Checks `userId` may attach files to the chat (an upload asks before it reads the body). */
  async owned(userId: string, sessionId: string): Promise<void> {
    await this.deps.allowed(userId, sessionId, "upload");
  }

  async put(userId: string, sessionId: string, upload: { name: string; bytes: Buffer }): Promise<AttachmentRef> {
    await this.owned(userId, sessionId);
    return this.deps.store.put(sessionId, userId, upload);
  }

  async list(userId: string, sessionId: string): Promise<AttachmentRef[]> {
    await this.deps.allowed(userId, sessionId, "read");
    return this.deps.store.list(sessionId);
  }

  async read(userId: string, sessionId: string, attachmentId: string): Promise<{ ref: AttachmentRef; bytes: Buffer }> {
    await this.deps.allowed(userId, sessionId, "read");
    const found = await this.deps.store.read(sessionId, attachmentId);
    if (!found) throw noSuchAttachment();
    return found;
  }

  async delete(userId: string, sessionId: string, attachmentId: string): Promise<void> {
    await this.owned(userId, sessionId);
    if (!(await this.deps.store.delete(sessionId, attachmentId))) throw noSuchAttachment();
  }
}
