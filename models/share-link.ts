import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * Read-only share links. The token is never stored: a link is kept under the
 * SHA-256 of its token and looked up by it; `linkId` is what the owner sees and revokes.
 */
const shareLinkSchema = new Schema(
  {
    /** SHA-256 (hex) of the link's token. */
    _id: { type: String, required: true },
    linkId: { type: String, required: true },
    sessionId: { type: String, required: true },
    ownerId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** Null: until revoked. */
    expiresAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    inspector: { type: Boolean, default: false },
    public: { type: Boolean, default: false },
    /** The viewer sees members' names (absent on links from before members: no). */
    names: { type: Boolean, default: false },
  },
  { versionKey: false },
);
// The share dialog lists one chat's links.
shareLinkSchema.index({ sessionId: 1, createdAt: -1 });
// Revoke names a link by its public id.
shareLinkSchema.index({ linkId: 1 }, { unique: true });

export type ShareLinkRecord = InferSchemaType<typeof shareLinkSchema> & { _id: string };

export function defineShareLinkModel(connection: Connection) {
  return connection.model("ShareLink", shareLinkSchema);
}
