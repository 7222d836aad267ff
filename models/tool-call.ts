import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { APPROVAL_STATES, TOOL_STATUSES } from "@/lib/contracts/turn";

/** A person's decision on the call (`Approval` in lib/contracts), kept for the audit. */
const approvalSchema = new Schema(
  {
    state: { type: String, enum: APPROVAL_STATES, required: true },
    requestedAt: { type: String, required: true },
    reason: { type: String, default: "" },
    preview: { type: String },
    decidedAt: { type: String },
    decidedBy: { type: String },
    denyReason: { type: String },
    note: { type: String },
  },
  { _id: false },
);

/**
 * A tool call of any agent in a turn: the master's (`runId: null`) or a subagent's. The
 * response kept here is the preview the UI shows; longer outputs are kept whole in
 * `tool_outputs` chunks, so a turn whose tools read 50 MB never makes a large document.
 */
const toolCallSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    turnId: { type: String, required: true },
    runId: { type: String, default: null },
    callId: { type: String, required: true },
    /** The step (model request) of its run that made it. */
    step: { type: Number, required: true },
    /** Position among its run's calls, so reloads keep the order they happened in. */
    order: { type: Number, required: true },
    name: { type: String, required: true },
    parameters: { type: String, default: "" },
    response: { type: String, default: "" },
    responseSize: { type: Number, default: 0 },
    status: { type: String, enum: TOOL_STATUSES, required: true },
    approval: { type: approvalSchema },
    /**
     * The questions the call asked a person (`InputRequest` in lib/contracts/input.ts), in
     * order. Kept as written: each holds a tool's form, whose fields are the tool's own
     * names, and every write sets the whole list as the fold holds it.
     */
    inputs: { type: [Schema.Types.Mixed], default: undefined },
    /** When the model asked for it and when its result came back (ISO, as in the events); absent in older records. */
    startedAt: { type: String },
    endedAt: { type: String },
  },
  { versionKey: false },
);
// History loads every call of a session in one query; "show all" finds one by callId.
toolCallSchema.index({ sessionId: 1, callId: 1 });
// The ghost sweep finds calls a crash left running.
toolCallSchema.index({ status: 1 });
// The ghost sweep finds approvals a crash left waiting (sparse: few calls ever ask).
toolCallSchema.index({ "approval.state": 1 }, { sparse: true });
// The ghost sweep finds questions a crash left waiting (sparse: few calls ever ask).
toolCallSchema.index({ "inputs.state": 1 }, { sparse: true });
// A page of history (session:join, session:older) reads the calls of its turns only.
toolCallSchema.index({ sessionId: 1, turnId: 1 });

export type ToolCallRecord = InferSchemaType<typeof toolCallSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineToolCallModel(connection: Connection) {
  return connection.model("ToolCall", toolCallSchema);
}
