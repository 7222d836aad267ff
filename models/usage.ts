import { Schema } from "mongoose";

/** Sub-schemas shared by turns and subagent runs (stored shapes of `TurnStats` and a step's text). */
const usage = new Schema({ inputTokens: { type: Number, default: 0 }, outputTokens: { type: Number, default: 0 } }, { _id: false });

export const statsSchema = new Schema(
  {
    chat: { type: usage, default: () => ({}) },
    system: { type: usage, default: () => ({}) },
    steps: { type: Number, default: 0 },
    runtimeMs: { type: Number, default: 0 },
    cost: { type: Number, default: 0 },
  },
  { _id: false },
);

/**
 * A step's text and reasoning. Its tool calls are `ToolCall` records carrying the step's
 * index, so no turn or run document grows with what its tools read.
 */
export const stepTextSchema = new Schema(
  {
    text: { type: String, default: "" },
    thinking: { type: String, default: "" },
    /** Pieces appended as they streamed, after `text` (`thinking`): writes add to a text, never resend it. */
    textParts: { type: [String], default: undefined },
    thinkingParts: { type: [String], default: undefined },
    /** Set when the text (or reasoning) outgrew its document: the rest is in this many `TextChunk`s. */
    textChunks: { type: Number },
    thinkingChunks: { type: Number },
  },
  { _id: false },
);

/**
 * Each step's start and end as ISO times, `{ startedAt, endedAt }`, by step index (null:
 * not ended yet); `[startedAt, endedAt]` pairs in earlier records (FerretDB stores no
 * arrays of arrays), absent in records from before they were kept. Beside `steps`, not
 * in them, so streamed text appends never carry it.
 */
export const stepTimesField = { type: Schema.Types.Mixed, default: undefined } as const;

/** A person's steering messages to an agent, in the order they were injected (absent: none). */
export const steeringField = {
  type: [
    new Schema(
      { step: { type: Number, required: true }, message: { type: String, required: true }, at: { type: String, required: true } },
      { _id: false },
    ),
  ],
  default: undefined,
};

/** A spending limit (`Budget`): tokens and/or dollars; absent when there is none. */
export const budgetField = {
  type: new Schema({ tokens: { type: Number }, usd: { type: Number } }, { _id: false }),
  default: undefined,
};
