import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * What search knows of one turn (lib/search/terms.ts): the normalised terms of its prompt
 * and answer, the same with its subagents' results added, and capped copies of those
 * texts for the result's excerpt. Written when a turn starts (the prompt) and when it
 * ends; `_id` is the turn id, so rewriting a turn replaces its entry.
 */
const searchEntrySchema = new Schema(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    sessionId: { type: String, required: true },
    /** The turn's start: newer matches first among equals. */
    at: { type: Date, required: true },
    terms: { type: [String], default: () => [] },
    allTerms: { type: [String], default: () => [] },
    prompt: { type: String, default: "" },
    answer: { type: String, default: "" },
    results: { type: String, default: "" },
    /** On a branch of the chat other than the one in view (an edited or regenerated turn's old branch): search skips it. */
    offBranch: { type: Boolean },
  },
  { versionKey: false },
);
// Search: one owner's entries holding every word (multikey; `$all` and an anchored prefix
// are range scans on it), without and with subagents' results.
searchEntrySchema.index({ ownerId: 1, terms: 1 });
searchEntrySchema.index({ ownerId: 1, allTerms: 1 });
// Deleting a chat removes its entries.
searchEntrySchema.index({ sessionId: 1 });

export type SearchEntryRecord = InferSchemaType<typeof searchEntrySchema>;
export function defineSearchEntryModel(connection: Connection) {
  return connection.model("SearchEntry", searchEntrySchema);
}
