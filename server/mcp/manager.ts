import { readFileSync } from "node:fs";
import { AppError, type McpServerInfo } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { parseMcpConfigText, type McpServerConfig } from "@/lib/mcp/config";
import type { Tool } from "@/lib/tools/types";
import { McpConnection, type Backoff } from "./connection";
import { takeOwnAttempt, type SignInAttempt } from "@/server/oauth/person-sign-in";
import { PersonalServer, type McpSignInServerConfig, type PersonalServerDeps } from "./oauth/personal-server";

/**
 * Every MCP server of the config. Shared servers start together, one connection for
 * everyone; a server with `oauth` has one connection per person who signed in to it
 * (oauth/personal-server.ts), and its tools are only that person's. `tools(ownerId)` is
 * read when a turn or a subagent builds its tool list, so a server that connects,
 * restarts or changes its tools is seen by the next agent without restarting anything.
 */
export interface McpManager {
  tools(ownerId?: string): Tool[];
  servers(ownerId?: string): McpServerInfo[];
  /** Opens this person's connections to the servers they signed in to (their turn or their menu needs them). */
  prepare(ownerId: string): Promise<void>;
  /** Resolves once every shared server's first connection attempt has ended (connected or failed). */
  ready(): Promise<void>;
  /** Starts a sign-in: the address the browser goes to, or null when a stored refresh token already did it. */
  signIn(ownerId: string, serverName: string, redirectUrl: string): Promise<{ authorizationUrl: string } | null>;
  /** The authorization server sent `ownerId`'s browser back: checks the state is theirs (once) and finishes. Returns the server's name. */
  finishSignIn(ownerId: string, state: string, code: string): Promise<string>;
  /** Finishes an attempt the callback already took (see takeOwnAttempt) for one of these servers. */
  finish(attempt: SignInAttempt & { serverName: string }, code: string): Promise<void>;
  signOut(ownerId: string, serverName: string): Promise<void>;
  /** Called on every status or tool-list change. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface McpManagerOptions {
  backoff?: Backoff;
  log?: Pick<Logger, "warn" | "info">;
  /** Where people's sign-ins are kept; needed when a server has `oauth`. */
  signIns?: PersonalServerDeps;
}

export function createMcpManager(configs: readonly McpServerConfig[], options: McpManagerOptions = {}): McpManager {
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const connectionOptions = { backoff: options.backoff, log: options.log, onChange: notify };
  const shared: McpConnection[] = [];
  const personal = new Map<string, PersonalServer>();
  for (const config of configs) {
    if (config.transport === "http" && config.oauth) {
      if (!options.signIns) throw new Error(`MCP server "${config.name}" has oauth, but no store for sign-ins was given`);
      personal.set(config.name, new PersonalServer(config as McpSignInServerConfig, options.signIns, connectionOptions));
    } else {
      shared.push(new McpConnection(config, connectionOptions));
    }
  }
  for (const connection of shared) connection.start();
  const personalServer = (name: string): PersonalServer => {
    const server = personal.get(name);
    if (!server) throw new AppError("not_found", `No MCP server "${name}" that people sign in to.`);
    return server;
  };
  return {
    tools: (ownerId) => [...shared.flatMap((c) => c.tools), ...[...personal.values()].flatMap((s) => s.tools(ownerId))],
    servers: (ownerId) =>
      configs.map((config) => personal.get(config.name)?.info(ownerId) ?? shared.find((c) => c.name === config.name)!.info()),
    prepare: async (ownerId) => {
      await Promise.all([...personal.values()].map((s) => s.prepare(ownerId)));
    },
    ready: async () => {
      await Promise.all(shared.map((c) => c.settled()));
    },
    signIn: (ownerId, serverName, redirectUrl) => personalServer(serverName).signIn(ownerId, redirectUrl),
    async finishSignIn(ownerId, state, code) {
      if (!options.signIns) throw new AppError("bad_request", "No MCP server here takes a sign-in.");
      const attempt = await takeOwnAttempt(options.signIns, ownerId, state);
      await personalServer(attempt.serverName).finish(attempt, code);
      return attempt.serverName;
    },
    finish: (attempt, code) => personalServer(attempt.serverName).finish(attempt, code),
    signOut: (ownerId, serverName) => personalServer(serverName).signOut(ownerId),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      listeners.clear();
      await Promise.all([...shared.map((c) => c.close()), ...[...personal.values()].map((s) => s.close())]);
    },
  };
}

/** Reads and validates MCP_CONFIG_FILE (JSON or YAML); throws McpConfigError listing every problem. */
export function loadMcpConfig(file: string): McpServerConfig[] {
  return parseMcpConfigText(readFileSync(file, "utf8"), file);
}
