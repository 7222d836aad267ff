import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { END_REASONS, TURN_STATUSES } from "@/lib/contracts/turn";
import { budgetField, statsSchema, steeringField, stepTextSchema, stepTimesField } from "./usage";
import { promptAttachmentsField } from "./prompt-attachments";

/**
 * One chat turn: the prompt and the master agent's steps. Tool calls and subagent runs
 * live in their own collections so that no turn document grows with what its tools read.
 */
const turnSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    prompt: { type: String, required: true },
    steps: { type: [stepTextSchema], default: () => [] },
    stepTimes: stepTimesField,
    status: { type: String, enum: TURN_STATUSES, required: true },
    error: { type: String },
    stats: { type: statsSchema, default: () => ({}) },
    endedAt: { type: Date },
    /** Label of the model the master ran on (absent in turns from before it was kept). */
    model: { type: String },
    /** The turn it follows when not the one started before it; null: a new first turn (lib/branches/branch-tree.ts). */
    parentTurnId: { type: String, default: undefined },
    /** The account (or identity) that sent the prompt (absent in turns from before it was kept). */
    sentBy: { type: String },
    /** The attachments the prompt named, as they were then (absent: none). */
    attachments: promptAttachmentsField,
    /** Steering messages to the master, as a run keeps its own (absent: none). */
    steering: steeringField,
    /** The turn's budget (absent: none). */
    budget: budgetField,
    /** How the master ended when its status alone does not say (`budget_exceeded`). */
    endReason: { type: String, enum: END_REASONS },
    /** Appends this document has taken; each names the count it expects, so a retried one that landed changes nothing. */
    appendSeq: { type: Number },
  },
  { timestamps: true, versionKey: false },
);
// History loads a session's turns in order in one query; a page walks it backwards from
// a turn, with the id to order turns started in the same millisecond.
turnSchema.index({ sessionId: 1, createdAt: 1, _id: 1 });
// The ghost sweep finds turns a crash left running.
turnSchema.index({ status: 1 });

export type TurnRecord = InferSchemaType<typeof turnSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineTurnModel(connection: Connection) {
  return connection.model("Turn", turnSchema);
}
