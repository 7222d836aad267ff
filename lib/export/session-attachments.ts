import { z } from "zod";
import { attachmentRefSchema, type AttachmentRef } from "@/lib/contracts/attachment";

/**
 * A chat's attachments in its session file (version 2, optional): each one's ref and its
 * bytes as base64. The file as a whole is bounded by the import's size limit (IMPORT_MAX_MB);
 * on import each file is stored again through the attachment store, which sniffs its kind,
 * makes its name safe and checks the per-file and per-chat limits like any upload.
 */

/** Attachments one file may carry; a chat rarely holds more than a few dozen. */
export const MAX_FILE_ATTACHMENTS = 1_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An attachment's ref with its bytes; a file carries no empty attachment (an upload cannot be one). */
export const exportedAttachmentSchema = attachmentRefSchema.extend({
  size: z.number().int().positive(),
  base64: z.string().regex(BASE64, "must be base64"),
});
export type ExportedAttachment = z.infer<typeof exportedAttachmentSchema>;

export const exportedAttachmentsSchema = z
  .array(exportedAttachmentSchema)
  .max(MAX_FILE_ATTACHMENTS)
  .refine((list) => new Set(list.map((a) => a.attachmentId)).size === list.length, "two attachments have the same attachmentId");

/** Bytes a base64 text decodes to, without decoding it. */
export function base64Bytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/**
 * What is wrong with a file's attachments, in words for the person importing it: a
 * base64 that is not whole or does not hold `size` bytes, or a turn naming an attachment
 * the file does not carry. Undefined when nothing is.
 */
export function attachmentProblem(
  attachments: readonly ExportedAttachment[],
  turns: readonly { turn: { attachments?: AttachmentRef[] } }[],
): string | undefined {
  for (const a of attachments) {
    if (a.base64.length % 4 !== 0 || base64Bytes(a.base64) !== a.size)
      return `The attachment "${a.name}" in the file does not hold the ${a.size} bytes it claims.`;
  }
  const carried = new Set(attachments.map((a) => a.attachmentId));
  for (const [i, entry] of turns.entries()) {
    const missing = entry.turn.attachments?.find((ref) => !carried.has(ref.attachmentId));
    if (missing) return `Turn ${i + 1} in the file names the attachment "${missing.name}", which the file does not carry.`;
  }
  return undefined;
}

/** A turn's attachment refs pointed at the attachments stored for the new chat (`stored`: old id → new ref). */
export function remapTurnAttachments<T extends { attachments?: AttachmentRef[] }>(turn: T, stored: ReadonlyMap<string, AttachmentRef>): T {
  if (!turn.attachments?.length) return turn;
  return { ...turn, attachments: turn.attachments.map((ref) => stored.get(ref.attachmentId) ?? ref) };
}
