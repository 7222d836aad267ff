import type { AttachmentRef } from "@/lib/contracts";
import { promptWithAttachments } from "@/lib/attachments/prompt-note";
import type { ChatMessage, UserContentPart } from "@/lib/model/types";
import { describeError } from "./model-step";

/** The attachments a turn's prompt names, and a way to read an image's bytes for the model. */
export interface PromptAttachments {
  refs: AttachmentRef[];
  /** An attachment's bytes; null when the chat no longer has it. */
  bytes(attachmentId: string): Promise<Uint8Array | null>;
}

type Log = { warn(message: string, meta?: Record<string, unknown>): void } | undefined;

/**
 * The master's user message for this turn's prompt. Without attachments: the text alone.
 * With them, a note naming each file under the text; on a model that reads images, each
 * image attachment follows as an image part (one that cannot be read is named in text
 * instead, so the turn still runs).
 */
export async function promptMessage(
  prompt: string,
  attached: PromptAttachments | undefined,
  modelReadsImages: boolean,
  log?: Log,
): Promise<Extract<ChatMessage, { role: "user" }>> {
  const refs = attached?.refs ?? [];
  const images = refs.filter((ref) => ref.kind === "image");
  if (images.length === 0 || !modelReadsImages || !attached) {
    return { role: "user", content: promptWithAttachments(prompt, refs, "unseen") };
  }
  const parts: UserContentPart[] = [];
  const unread = new Set<string>();
  for (const ref of images) {
    const bytes = await attached.bytes(ref.attachmentId).catch((error: unknown) => {
      log?.warn("could not read an attached image for the model", { attachmentId: ref.attachmentId, error: describeError(error) });
      return null;
    });
    if (!bytes) {
      unread.add(ref.attachmentId);
      continue;
    }
    parts.push({ type: "image", name: ref.name, mimeType: ref.type, size: ref.size, base64: Buffer.from(bytes).toString("base64") });
  }
  const text = promptWithAttachments(prompt, refs, (ref) => (unread.has(ref.attachmentId) ? "gone" : "shown"));
  return { role: "user", content: [{ type: "text", text }, ...parts] };
}
