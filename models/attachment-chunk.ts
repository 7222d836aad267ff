import { Schema, type Connection, type InferSchemaType } from "mongoose";

/** Which stream of an attachment a chunk belongs to: the file's bytes, or a PDF's extracted text (UTF-8). */
export const ATTACHMENT_PARTS = ["bytes", "text"] as const;

/**
 * A piece of an attachment, well under the 16 MB BSON limit (about 255 KB, as GridFS
 * cuts files). Chunks are written before their attachment's document and removed when
 * that write fails, so none outlives a refused upload for long.
 */
const attachmentChunkSchema = new Schema(
  {
    /** `attachmentId:part:n`. */
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    attachmentId: { type: String, required: true },
    part: { type: String, required: true, enum: ATTACHMENT_PARTS },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { versionKey: false },
);
// A download or an agent's read takes one part's chunks in order.
attachmentChunkSchema.index({ attachmentId: 1, part: 1, n: 1 });
// Deleting a chat removes its chunks by session.
attachmentChunkSchema.index({ sessionId: 1 });

export type AttachmentChunkRecord = InferSchemaType<typeof attachmentChunkSchema>;

export function defineAttachmentChunkModel(connection: Connection) {
  return connection.model("AttachmentChunk", attachmentChunkSchema);
}
