import { readFileSync } from "node:fs";
import type { McpServerInfo } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { parseMcpConfigText, type McpServerConfig } from "@/lib/mcp/config";
import type { Tool } from "@/lib/tools/types";
import { McpConnection, type Backoff } from "./connection";

/**
 * Every MCP server of the config, started together. `tools()` is read when a turn or a
 * subagent builds its tool list, so a server that connects, restarts or changes its tools
 * is seen by the next agent without restarting anything.
 */
export interface McpManager {
  tools(): Tool[];
  servers(): McpServerInfo[];
  /** Resolves once every server's first connection attempt has ended (connected or failed). */
  ready(): Promise<void>;
  /** Called on every status or tool-list change. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface McpManagerOptions {
  backoff?: Backoff;
  log?: Pick<Logger, "warn" | "info">;
}

export function createMcpManager(configs: readonly McpServerConfig[], options: McpManagerOptions = {}): McpManager {
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const connections = configs.map((config) => new McpConnection(config, { backoff: options.backoff, log: options.log, onChange: notify }));
  for (const connection of connections) connection.start();
  return {
    tools: () => connections.flatMap((c) => c.tools),
    servers: () => connections.map((c) => c.info()),
    ready: async () => {
      await Promise.all(connections.map((c) => c.settled()));
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      listeners.clear();
      await Promise.all(connections.map((c) => c.close()));
    },
  };
}

/** Reads and validates MCP_CONFIG_FILE (JSON or YAML); throws McpConfigError listing every problem. */
export function loadMcpConfig(file: string): McpServerConfig[] {
  return parseMcpConfigText(readFileSync(file, "utf8"), file);
}
