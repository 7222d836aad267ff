import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { API_TOKEN_SCOPES } from "@/lib/contracts/api-token";

/**
 * A person's API tokens. The secret is never stored: a token is kept under the SHA-256 of
 * its secret and found by it; `tokenId` is what its owner sees and revokes.
 */
const apiTokenSchema = new Schema(
  {
    /** SHA-256 (hex) of the secret. */
    _id: { type: String, required: true },
    tokenId: { type: String, required: true },
    ownerId: { type: String, required: true },
    name: { type: String, required: true },
    scope: { type: String, required: true, enum: API_TOKEN_SCOPES },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// The tokens page lists one person's tokens, newest first.
apiTokenSchema.index({ ownerId: 1, createdAt: -1 });
// Revoke names a token by its public id.
apiTokenSchema.index({ tokenId: 1 }, { unique: true });

export type ApiTokenRecord = InferSchemaType<typeof apiTokenSchema> & { _id: string };

export function defineApiTokenModel(connection: Connection) {
  return connection.model("ApiToken", apiTokenSchema);
}
