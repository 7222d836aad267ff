import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthSetting } from "@/lib/oauth/setting";
import type { McpOAuthStore } from "./oauth-store";

/** How long a person has between "Sign in" and the authorization server sending them back. */
export const ATTEMPT_TTL_MS = 10 * 60_000;

export interface ProviderScope {
  ownerId: string;
  /** The key the person's sign-in is kept under: an MCP server's name, or `a2a:<agent>` (see signInKey). */
  serverName: string;
  setting: OAuthSetting;
  /** The configured client's secret (read from `clientSecretEnv`), if any. */
  clientSecret?: string;
  /** `<origin>/api/mcp/oauth/callback`, as this person's sign-in registered it. */
  redirectUrl: string;
  store: McpOAuthStore;
  now?: () => number;
  /**
   * Where the authorization server is, when the resource says so itself (an A2A agent's
   * card names its OAuth or OpenID Connect provider); absent, the SDK finds it from the
   * resource's protected resource metadata (RFC 9728), as for an MCP server.
   */
  discovery?: OAuthDiscoveryState;
  /**
   * The resource every token is asked for (RFC 8707) when the resource publishes no
   * metadata naming one: an A2A agent's endpoint, so its token is good there alone.
   */
  resource?: string;
  /** Scopes asked for when the setting names none (an A2A card's flow lists them). */
  scopes?: string[];
}

/**
 * The SDK's OAuthClientProvider for one person and one MCP server, backed by the store.
 * The SDK does the protocol (discovery, registration, PKCE, the code exchange, refresh);
 * this decides only what is kept and where the browser goes.
 *
 * Two uses: `signingIn` (the sign-in route) records the state and verifier of a new
 * authorization and keeps its URL for the route to hand to the browser; otherwise (a
 * connection) an authorization the SDK would start means the person must sign in again,
 * which `needsSignIn` reports, and nothing is recorded over an attempt in progress.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** Set once the SDK asked to send the browser to the authorization server. */
  authorizationUrl: URL | undefined;
  needsSignIn = false;
  private pendingState: string | undefined;
  /** The verifier of the attempt the callback took (see `finishing`). */
  private takenVerifier: string | undefined;

  /** Set only for a resource of known address (see ProviderScope.resource): the SDK then asks for no other. */
  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;

  constructor(
    private readonly scope: ProviderScope,
    private readonly mode: "signing-in" | "connection" | { finishing: { codeVerifier: string } },
  ) {
    if (typeof mode === "object") this.takenVerifier = mode.finishing.codeVerifier;
    const own = scope.resource;
    if (own) {
      this.validateResourceURL = async (_serverUrl, published) => {
        // Metadata naming another resource would have the token issued for that one instead.
        if (published && new URL(published).href !== new URL(own).href) {
          throw new Error(`the protected resource metadata names ${published}, not ${own}`);
        }
        return new URL(own);
      };
    }
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.scope.discovery;
  }

  get redirectUrl(): string {
    return this.scope.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const configured = typeof this.scope.setting === "object" ? this.scope.setting.scopes : undefined;
    const scopes = configured?.length ? configured : this.scope.scopes;
    return {
      client_name: "Delegate",
      redirect_uris: [this.scope.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // A public client: PKCE protects the code, and no secret is kept per registration.
      token_endpoint_auth_method: "none",
      ...(scopes?.length ? { scope: scopes.join(" ") } : {}),
    };
  }

  state(): string {
    this.pendingState = randomBytes(32).toString("base64url");
    return this.pendingState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { setting } = this.scope;
    if (typeof setting === "object") {
      return { client_id: setting.clientId, ...(this.scope.clientSecret ? { client_secret: this.scope.clientSecret } : {}) };
    }
    const stored = (await this.scope.store.load(this.scope.ownerId, this.scope.serverName)).client;
    // Registered for another address of the app (localhost, then its public name): register again for this one.
    if (
      stored &&
      "redirect_uris" in stored &&
      Array.isArray(stored.redirect_uris) &&
      !stored.redirect_uris.includes(this.scope.redirectUrl)
    ) {
      return undefined;
    }
    return stored;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    // A configured client is the operator's; only a registration made here is kept.
    if (typeof this.scope.setting === "object") return;
    await this.scope.store.saveClient(this.scope.ownerId, this.scope.serverName, client);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.scope.store.load(this.scope.ownerId, this.scope.serverName)).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.scope.store.saveTokens(this.scope.ownerId, this.scope.serverName, tokens);
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.mode === "signing-in") this.authorizationUrl = authorizationUrl;
    else this.needsSignIn = true;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.mode !== "signing-in") return;
    if (!this.pendingState) throw new Error("an authorization started without a state");
    const now = this.scope.now?.() ?? Date.now();
    await this.scope.store.beginAttempt(this.scope.ownerId, this.scope.serverName, {
      state: this.pendingState,
      codeVerifier,
      redirectUrl: this.scope.redirectUrl,
      expiresAt: new Date(now + ATTEMPT_TTL_MS),
    });
  }

  codeVerifier(): string {
    if (!this.takenVerifier) throw new Error("no authorization is in progress for this sign-in");
    return this.takenVerifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "discovery") return;
    // A configured client is the operator's: forgetting "all" or "client" forgets only what is this person's.
    const configured = typeof this.scope.setting === "object";
    if (configured && scope === "client") return;
    await this.scope.store.clear(this.scope.ownerId, this.scope.serverName, configured && scope === "all" ? "tokens" : scope);
  }
}
