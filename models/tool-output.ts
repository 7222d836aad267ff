import { Schema, type Connection, type InferSchemaType } from "mongoose";

/** The whole text of a long tool output, split into chunks well under the 16 MB BSON limit. */
const toolOutputSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    toolCallId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: String, required: true },
  },
  { versionKey: false },
);
// "Show all" reads one call's chunks in order; deleting a session removes them by session.
toolOutputSchema.index({ toolCallId: 1, n: 1 });
toolOutputSchema.index({ sessionId: 1 });

export type ToolOutputRecord = InferSchemaType<typeof toolOutputSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineToolOutputModel(connection: Connection) {
  return connection.model("ToolOutput", toolOutputSchema);
}
