import mongoose, { Schema } from "mongoose";

/** Sub-schemas shared by turns and subagent runs (stored shape of `TurnStats`). */
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
