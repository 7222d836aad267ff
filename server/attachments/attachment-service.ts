import { AppError, type AttachmentRef } from "@/lib/contracts";
import type { AttachmentLimits, AttachmentStore } from "./attachment-store";

export interface AttachmentServiceDeps {
  store: AttachmentStore;
  /** The one ownership check (ChatStore.ownedSession): `not_found` unless `ownerId` owns the chat. */
  ownedSession(ownerId: string, sessionId: string): Promise<unknown>;
}

function noSuchAttachment(): AppError {
  return new AppError("not_found", "That attachment does not exist.");
}

/**
 * What a person can do with their chats' attachments. Each method checks that the chat is
 * theirs first; another person's chat, and an attachment of another chat, are answered
 * exactly like ones that do not exist.
 */
export class AttachmentService {
  constructor(private readonly deps: AttachmentServiceDeps) {}

  get limits(): AttachmentLimits {
    return this.deps.store.limits;
  }

  /** Checks the chat is `userId`'s (an upload asks before it reads the body). */
  async owned(userId: string, sessionId: string): Promise<void> {
    await this.deps.ownedSession(userId, sessionId);
  }

  async put(userId: string, sessionId: string, upload: { name: string; bytes: Buffer }): Promise<AttachmentRef> {
    await this.owned(userId, sessionId);
    return this.deps.store.put(sessionId, userId, upload);
  }

  async list(userId: string, sessionId: string): Promise<AttachmentRef[]> {
    await this.owned(userId, sessionId);
    return this.deps.store.list(sessionId);
  }

  async read(userId: string, sessionId: string, attachmentId: string): Promise<{ ref: AttachmentRef; bytes: Buffer }> {
    await this.owned(userId, sessionId);
    const found = await this.deps.store.read(sessionId, attachmentId);
    if (!found) throw noSuchAttachment();
    return found;
  }

  async delete(userId: string, sessionId: string, attachmentId: string): Promise<void> {
    await this.owned(userId, sessionId);
    if (!(await this.deps.store.delete(sessionId, attachmentId))) throw noSuchAttachment();
  }
}
