import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * The whole of a step's text or reasoning when it is too long to sit in its turn or run
 * document (a 20 MB answer would pass the 16 MB BSON limit), in chunks written as the
 * text grows: a full chunk is written once, only the last one is rewritten.
 */
const textChunkSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    /** `turnId:runId|m:step:field` (see `stepTextId`). */
    textId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: String, required: true },
  },
  { versionKey: false },
);
// A reload reads a session's chunks in one query; deleting a session removes them by session.
textChunkSchema.index({ sessionId: 1, textId: 1, n: 1 });

export type TextChunkRecord = InferSchemaType<typeof textChunkSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineTextChunkModel(connection: Connection) {
  return connection.model("TextChunk", textChunkSchema);
}
