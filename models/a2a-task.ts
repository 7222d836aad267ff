import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * A task another agent sent over A2A: the A2A task as the SDK keeps it (`task`), and
 * where it runs here, the chat and turn of the token's owner. Stored, so a task is
 * still answered after a restart and by any process.
 */
const a2aTaskSchema = new Schema(
  {
    /** The A2A task id. */
    _id: { type: String, required: true },
    contextId: { type: String, required: true },
    ownerId: { type: String, required: true },
    /** The owner's chat for this context; null until the first turn starts. */
    sessionId: { type: String, default: null },
    turnId: { type: String, default: null },
    /** The A2A task (status, history, artifacts) as JSON text: its keys (`$case`) are not all valid field names. */
    task: { type: String, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// A new task in a known context goes to that context's chat.
a2aTaskSchema.index({ ownerId: 1, contextId: 1 });

export type A2ATaskRecord = InferSchemaType<typeof a2aTaskSchema> & { _id: string };

export function defineA2ATaskModel(connection: Connection) {
  return connection.model("A2ATask", a2aTaskSchema);
}
