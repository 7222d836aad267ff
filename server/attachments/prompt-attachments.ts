import { AppError, type AttachmentRef } from "@/lib/contracts";
import type { PromptAttachments } from "@/lib/agent/prompt-attachments";
import type { AttachmentStore } from "./attachment-store";

/**
 * The refs of the attachments a prompt names, in the order named, each checked to be one of
 * this chat's: an id of another chat (even the sender's own) or of nothing is refused
 * before the turn starts, with the same words either way.
 */
export async function resolvePromptAttachments(
  store: Pick<AttachmentStore, "list">,
  sessionId: string,
  ids: readonly string[] | undefined,
): Promise<AttachmentRef[]> {
  if (!ids?.length) return [];
  const held = new Map((await store.list(sessionId)).map((ref) => [ref.attachmentId, ref]));
  return ids.map((id) => {
    const ref = held.get(id);
    if (!ref)
      throw new AppError(
        "bad_request",
        "The message names an attachment this chat does not have (removed, or never attached here); attach the file again.",
      );
    return ref;
  });
}

/** What the runtime needs of a prompt's attachments: the refs, and an image's bytes read when the model is shown it. */
export function promptAttachmentsOf(store: Pick<AttachmentStore, "read">, sessionId: string, refs: AttachmentRef[]): PromptAttachments {
  return { refs, bytes: async (attachmentId) => (await store.read(sessionId, attachmentId))?.bytes ?? null };
}
