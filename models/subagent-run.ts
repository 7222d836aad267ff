import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { END_REASONS, RUN_STATUSES } from "@/lib/contracts/turn";
import { budgetField, statsSchema, steeringField, stepTextSchema, stepTimesField } from "./usage";

/**
 * A subagent's full process except its tool calls (those are `ToolCall` records with this
 * run's id): prompt, the text and reasoning of each step, its final answer, stats, how it ended. Stored for the UI and for
 * audit; never sent to a model.
 */
const subagentRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    turnId: { type: String, required: true },
    /** The tool call (in the parent's run) that spawned it. */
    callId: { type: String, required: true },
    parentRunId: { type: String, default: null },
    depth: { type: Number, required: true },
    name: { type: String, required: true },
    task: { type: String, default: "" },
    prompt: { type: String, default: "" },
    steps: { type: [stepTextSchema], default: () => [] },
    stepTimes: stepTimesField,
    /** Its final answer alone. */
    response: { type: String, default: "" },
    /** Set when the answer is too long to sit here: it is in this many `TextChunk`s. */
    responseChunks: { type: Number },
    status: { type: String, enum: RUN_STATUSES, required: true },
    endReason: { type: String, enum: END_REASONS },
    error: { type: String },
    stats: { type: statsSchema, default: () => ({}) },
    startedAt: { type: Date, required: true },
    endedAt: { type: Date },
    /** Appends this document has taken; each names the count it expects, so a retried one that landed changes nothing. */
    appendSeq: { type: Number },
    /** Label of the model it ran on; absent in runs stored before it was kept. */
    model: { type: String },
    /** The definition made in the app it ran (AgentDefinition), and its version; absent for the operator's. */
    definitionId: { type: String },
    definitionVersion: { type: Number },
    /** The failed run this one retries (Retry); the older run's "retried as" link is derived from it. */
    retryOf: { type: String },
    /** A person's steering messages, in the order they were injected (absent: none). */
    steering: steeringField,
    /** Its definition's budget (absent: none). */
    budget: budgetField,
  },
  { versionKey: false },
);
// History loads every run of a session in one query.
subagentRunSchema.index({ sessionId: 1 });
// The ghost sweep finds runs a crash left running.
subagentRunSchema.index({ status: 1 });
// A page of history (session:join, session:older) reads the runs of its turns only.
subagentRunSchema.index({ sessionId: 1, turnId: 1 });

export type SubagentRunRecord = InferSchemaType<typeof subagentRunSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineSubagentRunModel(connection: Connection) {
  return connection.model("SubagentRun", subagentRunSchema);
}
