import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * The part of a step's text, reasoning or answer that did not fit in its turn or run
 * document (a 20 MB answer would pass the 16 MB BSON limit), in chunks appended as the
 * text grows: each is what one write added, keyed by its character offset, never
 * rewritten. (Older records number their chunks 0, 1, 2…; both sort by `n`.)
 */
const textChunkSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    /** `turnId:runId|m:step:field` (see `stepTextId`). */
    textId: { type: String, required: true },
    /** Where the chunk sits in its text (its character offset; a chunk index in older records). */
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
