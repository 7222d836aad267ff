import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * One person's OAuth sign-in to one MCP server (docs/mcp-auth.md): the client Delegate
 * registered there, the tokens, and an authorization in progress (its state and PKCE
 * verifier). Secrets (tokens, the client secret) are stored sealed with AES-256-GCM
 * (server/oauth/secret-box.ts); nothing here is readable without the key.
 */
const mcpOAuthSchema = new Schema(
  {
    ownerId: { type: String, required: true },
    serverName: { type: String, required: true },
    /** The dynamically registered client, sealed (it may carry a client secret). */
    client: { type: String },
    /** The tokens as the authorization server gave them, sealed. */
    tokens: { type: String },
    /** An authorization in progress: its random state (one use), PKCE verifier and where it sends the browser back. */
    state: { type: String },
    stateExpiresAt: { type: Date },
    codeVerifier: { type: String },
    redirectUrl: { type: String },
  },
  { timestamps: true, versionKey: false },
);

// One sign-in per person and server.
mcpOAuthSchema.index({ ownerId: 1, serverName: 1 }, { unique: true });
// The callback finds its attempt by state; sparse, since most documents have none.
mcpOAuthSchema.index({ state: 1 }, { unique: true, sparse: true });

export type McpOAuthRecord = InferSchemaType<typeof mcpOAuthSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineMcpOAuthModel(connection: Connection) {
  return connection.model("McpOAuth", mcpOAuthSchema);
}
