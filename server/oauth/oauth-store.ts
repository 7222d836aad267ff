import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Models } from "@/models";
import type { SecretBox } from "./secret-box";

/**
 * People's sign-ins to MCP servers in MongoDB (`McpOAuth`): what the OAuth client provider
 * reads and writes, with the secrets sealed on the way in and opened on the way out. A
 * value that no longer opens (another key) reads as absent: the person signs in again.
 */
export interface McpOAuthStore {
  load(ownerId: string, serverName: string): Promise<StoredSignIn>;
  saveClient(ownerId: string, serverName: string, client: OAuthClientInformationMixed): Promise<void>;
  saveTokens(ownerId: string, serverName: string, tokens: OAuthTokens): Promise<void>;
  /** Starts an authorization: its state (one use until `expiresAt`), PKCE verifier and return address. */
  beginAttempt(
    ownerId: string,
    serverName: string,
    attempt: { state: string; codeVerifier: string; redirectUrl: string; expiresAt: Date },
  ): Promise<void>;
  /** Takes the attempt `state` names, once: a second use, or one after it expired, finds nothing. */
  takeAttempt(
    state: string,
    now: Date,
  ): Promise<{ ownerId: string; serverName: string; codeVerifier: string; redirectUrl: string } | undefined>;
  clear(ownerId: string, serverName: string, what: "all" | "client" | "tokens" | "verifier"): Promise<void>;
  /** The servers this person holds tokens for. */
  signedIn(ownerId: string): Promise<string[]>;
}

export interface StoredSignIn {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
  redirectUrl?: string;
}

export function createMcpOAuthStore(models: Pick<Models, "McpOAuth">, box: SecretBox): McpOAuthStore {
  const { McpOAuth } = models;
  const key = (ownerId: string, serverName: string) => ({ ownerId, serverName });
  const opened = <T>(sealed: string | null | undefined): T | undefined => {
    if (!sealed) return undefined;
    const plain = box.open(sealed);
    if (plain === undefined) return undefined;
    try {
      return JSON.parse(plain) as T;
    } catch {
      return undefined;
    }
  };
  const set = async (ownerId: string, serverName: string, fields: Record<string, unknown>) => {
    await McpOAuth.updateOne(key(ownerId, serverName), { $set: fields }, { upsert: true });
  };
  return {
    async load(ownerId, serverName) {
      const doc = await McpOAuth.findOne(key(ownerId, serverName)).lean();
      if (!doc) return {};
      const client = opened<OAuthClientInformationMixed>(doc.client);
      const tokens = opened<OAuthTokens>(doc.tokens);
      return {
        ...(client ? { client } : {}),
        ...(tokens ? { tokens } : {}),
        ...(doc.codeVerifier ? { codeVerifier: doc.codeVerifier } : {}),
        ...(doc.redirectUrl ? { redirectUrl: doc.redirectUrl } : {}),
      };
    },
    saveClient: (ownerId, serverName, client) => set(ownerId, serverName, { client: box.seal(JSON.stringify(client)) }),
    saveTokens: (ownerId, serverName, tokens) => set(ownerId, serverName, { tokens: box.seal(JSON.stringify(tokens)) }),
    beginAttempt: (ownerId, serverName, attempt) =>
      set(ownerId, serverName, {
        state: attempt.state,
        stateExpiresAt: attempt.expiresAt,
        codeVerifier: attempt.codeVerifier,
        redirectUrl: attempt.redirectUrl,
      }),
    async takeAttempt(state, now) {
      // One atomic update finds and spends the state, so two callbacks with it cannot both pass.
      const doc = await McpOAuth.findOneAndUpdate(
        { state, stateExpiresAt: { $gt: now } },
        { $unset: { state: 1, stateExpiresAt: 1 } },
        { new: false },
      ).lean();
      if (!doc?.codeVerifier || !doc.redirectUrl) return undefined;
      return { ownerId: doc.ownerId, serverName: doc.serverName, codeVerifier: doc.codeVerifier, redirectUrl: doc.redirectUrl };
    },
    async clear(ownerId, serverName, what) {
      if (what === "all") {
        await McpOAuth.deleteOne(key(ownerId, serverName));
        return;
      }
      const fields = what === "client" ? ["client"] : what === "tokens" ? ["tokens"] : ["codeVerifier", "state", "stateExpiresAt"];
      await McpOAuth.updateOne(key(ownerId, serverName), { $unset: Object.fromEntries(fields.map((f) => [f, 1])) });
    },
    async signedIn(ownerId) {
      const docs = await McpOAuth.find({ ownerId, tokens: { $exists: true } }, { serverName: 1 }).lean();
      return docs.map((d) => d.serverName);
    },
  };
}
