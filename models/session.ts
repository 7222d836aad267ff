import { Schema, type Connection, type InferSchemaType } from "mongoose";

const sessionSchema = new Schema(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    title: { type: String, required: true },
    /**
     * Sequence numbers are handed out in blocks reserved here ahead of use, so a server
     * that restarts never issues a number a browser has already seen.
     */
    seqReserved: { type: Number, default: 0 },
  },
  { timestamps: true, versionKey: false },
);
// The sidebar lists one owner's sessions, newest activity first.
sessionSchema.index({ ownerId: 1, updatedAt: -1 });

export type SessionRecord = InferSchemaType<typeof sessionSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineSessionModel(connection: Connection) {
  return connection.model("Session", sessionSchema);
}
