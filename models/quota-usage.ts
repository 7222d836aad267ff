import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * What one person spent in one UTC day or month, every chat and every process together:
 * one document per person and period (`_id` `<person>|day|2026-12-03`,
 * `<person>|month|2026-12`), counted with atomic `$inc` upserts so concurrent processes
 * never lose an addition.
 */
const quotaUsageSchema = new Schema(
  {
    _id: { type: String, required: true },
    person: { type: String, required: true },
    period: { type: String, enum: ["day", "month"], required: true },
    startsAt: { type: Date, required: true },
    // No defaults: a counter is created by its first `$inc`, and a default set on insert
    // beside an `$inc` of the same field is a conflict MongoDB refuses.
    tokens: { type: Number },
    usd: { type: Number },
    /** A counter outlives its period by a while (for an operator's look), then goes. */
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Past counters go once their period is long over: the expiry index is made by the ledger
// (server/db/expiry-index.ts), a TTL index where the server has them, a swept one on FerretDB.

export type QuotaUsageRecord = InferSchemaType<typeof quotaUsageSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineQuotaUsageModel(connection: Connection) {
  return connection.model("QuotaUsage", quotaUsageSchema);
}
