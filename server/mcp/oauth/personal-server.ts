import type { McpServerInfo } from "@/lib/contracts";
import { AppError } from "@/lib/contracts";
import { McpConfigError, type McpHttpServerConfig, type McpOAuthSetting } from "@/lib/mcp/config";
import type { Tool } from "@/lib/tools/types";
import { McpConnection, type ConnectionOptions } from "../connection";
import { StoredOAuthProvider } from "@/server/oauth/client-provider";
import { oauthFetch } from "@/server/oauth/oauth-fetch";
import {
  finishSignIn,
  providerScope,
  startSignIn,
  type SignInAttempt,
  type SignInDeps,
  type SignInTarget,
} from "@/server/oauth/person-sign-in";

/**
 * The longest a turn (or the menu) waits for a person's connection to open: a server that
 * does not answer should not hold the turn for the whole connect timeout; the turn runs
 * without its tools, and they join the next one once connected.
 */
export const PREPARE_WAIT_MS = 10_000;

export type McpSignInServerConfig = McpHttpServerConfig & { oauth: McpOAuthSetting };

export interface PersonalServerDeps extends SignInDeps {
  /** See PREPARE_WAIT_MS. */
  prepareWaitMs?: number;
}

/**
 * One MCP server each person signs in to: a connection per person who signed in, opened
 * on that person's first need of it (`prepare`, before their turn or when their menu
 * loads), holding that person's token alone. Someone without a connection sees the server
 * as `needs_sign_in` and gets none of its tools.
 */
export class PersonalServer {
  private readonly connections = new Map<string, McpConnection>();
  private readonly fetch: typeof fetch;

  constructor(
    readonly config: McpSignInServerConfig,
    private readonly deps: PersonalServerDeps,
    private readonly connectionOptions: ConnectionOptions,
  ) {
    this.fetch = oauthFetch(config.url, deps.fetch);
    // As a subagent's apiKeyEnv: a secret asked for and missing stops the start, not every sign-in later.
    const secretEnv = typeof config.oauth === "object" ? config.oauth.clientSecretEnv : undefined;
    if (secretEnv && config.enabled && !deps.lookup(secretEnv)) {
      throw new McpConfigError(`MCP server "${config.name}": oauth.clientSecretEnv names ${secretEnv}, which is not set`);
    }
  }

  get name(): string {
    return this.config.name;
  }

  /**
   * Opens this person's connection if they hold a sign-in; resolves once it has connected
   * or failed. Without a live connection the store is read each time (one indexed read):
   * the person may have signed in through another process since.
   */
  async prepare(ownerId: string): Promise<void> {
    if (!this.config.enabled) return;
    const current = this.connections.get(ownerId);
    if (!current || current.status === "needs_sign_in") {
      const stored = await this.deps.store.load(ownerId, this.name);
      if (stored.tokens && stored.redirectUrl && this.connections.get(ownerId) === current) this.reopen(ownerId, stored.redirectUrl);
    }
    await this.settled(ownerId);
  }

  /** Until this person's connection has connected or failed, or PREPARE_WAIT_MS has passed. */
  private async settled(ownerId: string): Promise<void> {
    const connection = this.connections.get(ownerId);
    if (!connection) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.deps.prepareWaitMs ?? PREPARE_WAIT_MS)));
    await Promise.race([connection.settled(), waited]);
    clearTimeout(timer);
  }

  tools(ownerId: string | undefined): Tool[] {
    return ownerId ? (this.connections.get(ownerId)?.tools ?? []) : [];
  }

  info(ownerId: string | undefined): McpServerInfo {
    const connection = ownerId ? this.connections.get(ownerId) : undefined;
    if (!this.config.enabled) return { name: this.name, status: "disabled", signIn: true, tools: [] };
    if (!connection) return { name: this.name, status: "needs_sign_in", signIn: true, tools: [] };
    return { ...connection.info(), signIn: true };
  }

  /**
   * Starts this person's sign-in: the SDK discovers the authorization server from the MCP
   * server's metadata, registers Delegate there if no client is configured, and builds the
   * authorization URL (PKCE, state, the resource indicator). Returns null when a stored
   * refresh token already signs them in.
   */
  async signIn(ownerId: string, redirectUrl: string): Promise<{ authorizationUrl: string } | null> {
    if (!this.config.enabled) throw new AppError("bad_request", `MCP server "${this.name}" is turned off.`);
    const started = await startSignIn(this.target, this.deps, ownerId, redirectUrl);
    if (!started) this.reopen(ownerId, redirectUrl);
    return started;
  }

  /** The authorization server sent the person back with `code`: exchange it and open their connection. */
  async finish(attempt: SignInAttempt, code: string): Promise<void> {
    await finishSignIn(this.target, this.deps, attempt, code);
    this.reopen(attempt.ownerId, attempt.redirectUrl);
    await this.settled(attempt.ownerId);
  }

  /** Forgets this person's tokens and registration and closes their connection. */
  async signOut(ownerId: string): Promise<void> {
    await this.deps.store.clear(ownerId, this.name, "all");
    const connection = this.connections.get(ownerId);
    this.connections.delete(ownerId);
    await connection?.close();
    this.connectionOptions.onChange?.();
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  private reopen(ownerId: string, redirectUrl: string): void {
    const old = this.connections.get(ownerId);
    this.connections.delete(ownerId);
    void old?.close();
    this.open(ownerId, redirectUrl);
  }

  private open(ownerId: string, redirectUrl: string): void {
    const provider = new StoredOAuthProvider(providerScope(this.target, this.deps, ownerId, redirectUrl), "connection");
    const connection = new McpConnection(this.config, {
      ...this.connectionOptions,
      auth: { provider, fetch: this.fetch, needsSignIn: () => provider.needsSignIn },
    });
    this.connections.set(ownerId, connection);
    connection.start();
  }

  private get target(): SignInTarget {
    return { key: this.name, label: `MCP server "${this.name}"`, url: this.config.url, setting: this.config.oauth };
  }
}
