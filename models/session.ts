import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { MEMBER_ROLES } from "@/lib/contracts/members";

const sessionSchema = new Schema(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    title: { type: String, required: true },
    /**
     * Sequence numbers are handed out in blocks reserved here ahead of use, so a server
     * that restarts never issues a number a browser has already seen.
     */
    seqReserved: { type: Number, default: 0 },
    /** The title's search terms (lib/search/terms.ts), written with every title; absent on chats from before search until the start-up backfill. */
    titleTerms: { type: [String], default: undefined },
    /** The chat's turns are in the search index (set by the start-up backfill and for new chats). */
    searchIndexed: { type: Boolean },
    /** The model key the person picked for this chat's master (absent: their default). */
    model: { type: String },
    /** The chat's own instructions, added to the master's system prompt (absent: none). */
    instructions: { type: String },
    /** The turn last viewed or started: the chat opens on the branch that holds it (absent: the newest turn's). */
    activeTurnId: { type: String },
    /** Subagent definitions this chat turned off (their keys: a stored definition's id, or `operator:<name>`). */
    agentsOff: { type: [String], default: undefined },
    /** The accounts the owner added, with their role (docs/members.md); absent: nobody but the owner. */
    members: {
      type: [
        new Schema(
          {
            accountId: { type: String, required: true },
            role: { type: String, enum: MEMBER_ROLES, required: true },
            addedAt: { type: Date, required: true },
          },
          { _id: false },
        ),
      ],
      default: undefined,
    },
  },
  { timestamps: true, versionKey: false },
);
// The sidebar lists one owner's sessions, newest activity first, a page at a time (the id
// orders chats active in the same millisecond, so a cursor never skips or repeats one).
sessionSchema.index({ ownerId: 1, updatedAt: -1, _id: -1 });
// The sidebar lists the chats shared with a person beside their own, in the same order.
sessionSchema.index({ "members.accountId": 1, updatedAt: -1, _id: -1 });
// Search by title.
sessionSchema.index({ ownerId: 1, titleTerms: 1 });
// The start-up backfill finds chats not indexed yet.
sessionSchema.index({ searchIndexed: 1 });

export type SessionRecord = InferSchemaType<typeof sessionSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineSessionModel(connection: Connection) {
  return connection.model("Session", sessionSchema);
}
