import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * Scale-out (docs/architecture.md, "The cluster"): which process runs a chat's turn, one
 * document per chat. Taken atomically before a turn starts, renewed by heartbeat, released when the turn ends; a
 * lease past `expiresAt` belongs to a process that died and is swept by another.
 * `seq` is the last sequence number the holder relayed, so the next holder continues
 * the chat's numbering instead of making every viewer resynchronise.
 */
const turnLeaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** The holding process (INSTANCE_ID); null once released. */
    instanceId: { type: String, default: null },
    turnId: { type: String, default: null },
    /** The chat's owner: a sweeper that ends a dead process's turn opens the chat as them. */
    ownerId: { type: String, default: null },
    /** Whose running-turn cap the turn counts against (a login or an account, see `personKey`): the cap counts across processes. */
    person: { type: String, default: null },
    /** Set while held; a free lease has none (see the sweeper's index below). */
    expiresAt: { type: Date },
    seq: { type: Number, default: 0 },
  },
  { versionKey: false },
);
// The sweeper looks for expired leases still held: only held ones carry `expiresAt`, so its
// date range never reaches the free lease of every chat ever opened.
turnLeaseSchema.index({ expiresAt: 1 });
// The cap counts one person's held leases.
turnLeaseSchema.index({ person: 1, expiresAt: 1 });
// The start-up sweep lists the held leases: free ones (instanceId null) are outside its range.
turnLeaseSchema.index({ instanceId: 1 });

export type TurnLeaseRecord = InferSchemaType<typeof turnLeaseSchema>;
export function defineTurnLeaseModel(connection: Connection) {
  return connection.model("TurnLease", turnLeaseSchema);
}
