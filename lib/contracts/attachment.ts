import { z } from "zod";

/**
 * Files a person attaches to a chat. They belong to the chat (deleted with it), are
 * uploaded and downloaded over HTTP (`ATTACHMENT_ROUTES`), and agents read them through
 * the file tools as the read-only `attachments/` folder of that chat. The kind and the
 * MIME type come from the file's content, never from its name or the browser's word.
 */

export const ATTACHMENT_KINDS = ["text", "pdf", "image"] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

/** The MIME types a stored attachment can have: one per format the content is recognised as. */
export const ATTACHMENT_TYPES = ["text/plain", "application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const attachmentRefSchema = z.object({
  attachmentId: z.string().min(1).max(64),
  /** The safe display name, unique within the chat; agents read it as `attachments/<name>`. */
  name: z.string().min(1).max(200),
  /** Bytes of the file as uploaded. */
  size: z.number().int().nonnegative(),
  /** MIME type, from the content. */
  type: z.enum(ATTACHMENT_TYPES),
  kind: z.enum(ATTACHMENT_KINDS),
});
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;

/** Largest single attachment by default (ATTACHMENT_MAX_BYTES): 10 MiB. */
export const DEFAULT_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** Most bytes of attachments one chat holds by default (ATTACHMENTS_MAX_CHAT_BYTES): 50 MiB. */
export const DEFAULT_ATTACHMENTS_MAX_CHAT_BYTES = 50 * 1024 * 1024;

/**
 * The owner's routes. Upload: POST the raw bytes to `upload` (the name in the query, the
 * browser's Content-Type only advisory); answered `{ attachment: AttachmentRef }`. List:
 * GET `list`, answered `{ attachments: AttachmentRef[] }`. Download: GET `one`. Remove:
 * DELETE `one`, answered `{ attachmentId }`.
 */
export const ATTACHMENT_ROUTES = {
  list: (sessionId: string) => `/api/sessions/${encodeURIComponent(sessionId)}/attachments`,
  upload: (sessionId: string, name: string) =>
    `/api/sessions/${encodeURIComponent(sessionId)}/attachments?name=${encodeURIComponent(name)}`,
  one: (sessionId: string, attachmentId: string) =>
    `/api/sessions/${encodeURIComponent(sessionId)}/attachments/${encodeURIComponent(attachmentId)}`,
} as const;
