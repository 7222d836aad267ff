import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { ATTACHMENT_KINDS, ATTACHMENT_TYPES } from "@/lib/contracts/attachment";

/**
 * A file attached to a chat: what it is, never its bytes (those are `AttachmentChunk`s).
 * Written after all its chunks, so an attachment that exists is whole.
 */
const attachmentSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    ownerId: { type: String, required: true },
    /** The safe display name, unique within the chat (see lib/attachments/name.ts). */
    name: { type: String, required: true },
    /** MIME type, from the content. */
    type: { type: String, required: true, enum: ATTACHMENT_TYPES },
    kind: { type: String, required: true, enum: ATTACHMENT_KINDS },
    size: { type: Number, required: true },
    /** SHA-256 (hex) of the bytes. */
    sha256: { type: String, required: true },
    /** UTF-8 bytes of what an agent reads: the text, a PDF's extracted text; 0 for an image. */
    textSize: { type: Number, required: true },
  },
  { versionKey: false, timestamps: true },
);
// A chat's list, and an agent's read by name; two uploads of one name in the same instant cannot both land.
attachmentSchema.index({ sessionId: 1, name: 1 }, { unique: true });

export type AttachmentRecord = InferSchemaType<typeof attachmentSchema> & { _id: string };

export function defineAttachmentModel(connection: Connection) {
  return connection.model("Attachment", attachmentSchema);
}
