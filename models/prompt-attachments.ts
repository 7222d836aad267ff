import { Schema } from "mongoose";
import { ATTACHMENT_KINDS, ATTACHMENT_TYPES } from "@/lib/contracts/attachment";

/** A prompt's attachments on its turn: the refs as they were when it was sent (a later rename or delete leaves them). */
export const promptAttachmentsField = {
  type: [
    new Schema(
      {
        attachmentId: { type: String, required: true },
        name: { type: String, required: true },
        size: { type: Number, required: true },
        type: { type: String, enum: ATTACHMENT_TYPES, required: true },
        kind: { type: String, enum: ATTACHMENT_KINDS, required: true },
      },
      { _id: false },
    ),
  ],
  default: undefined,
};
