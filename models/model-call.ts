import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { MODEL_CALL_PURPOSES } from "@/lib/contracts/model-call";

/**
 * One model request of a turn (`ModelCallRecord` in lib/contracts) without its request
 * body: the messages and the tool list are kept once per session as content-addressed
 * blobs (model-blob.ts) and named here by id, in order. Consecutive requests of an agent
 * resend the whole transcript, so the same messages would otherwise be stored again with
 * every step.
 */
const modelCallSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    turnId: { type: String, required: true },
    runId: { type: String, default: null },
    purpose: { type: String, enum: MODEL_CALL_PURPOSES, required: true },
    index: { type: Number, required: true },
    model: { type: String, required: true },
    modelLabel: { type: String, required: true },
    startedAt: { type: String, required: true },
    endedAt: { type: String, required: true },
    messageIds: { type: [String], default: [] },
    toolsId: { type: String, default: null },
    messageCount: { type: Number, required: true },
    estimatedInputTokens: { type: Number, default: 0 },
    toolCount: { type: Number, required: true },
    usage: { type: Schema.Types.Mixed, default: null },
    finishReason: { type: String, default: null },
    error: { type: String, default: null },
    response: { type: Schema.Types.Mixed, required: true },
  },
  { versionKey: false, minimize: false },
);
// The inspector lists one turn's calls in order; deleting a session removes them by session.
modelCallSchema.index({ sessionId: 1, turnId: 1, startedAt: 1 });

export type ModelCallRow = InferSchemaType<typeof modelCallSchema>;
export function defineModelCallModel(connection: Connection) {
  return connection.model("ModelCall", modelCallSchema);
}
