import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { oauthSettingSchema, type OAuthSetting } from "@/lib/oauth/setting";

/**
 * The MCP config file (MCP_CONFIG_FILE): which tool servers to start or reach. Pure: the
 * server reads the file, `parseMcpConfigText` validates it and lists every problem at once,
 * so the operator fixes them in one go.
 */

export const MCP_SERVER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

const common = {
  /** Longest one tool call may take before the model gets a tool error (connecting gets at least 30 s). */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_MCP_TIMEOUT_MS),
  /**
   * true: every tool of this server needs a person's approval; false: none does; a list:
   * the tools (names or patterns like `write_*`) that do. Absent: each tool's annotations
   * decide (see `approvalByAnnotations` in adapt.ts).
   */
  requireApproval: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
  enabled: z.boolean().default(true),
};

const stdioServer = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();

/** A server each person signs in to (OAuth, docs/mcp-auth.md). */
const oauthSetting = oauthSettingSchema;

export type McpOAuthSetting = OAuthSetting;

const httpServer = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).optional(),
    oauth: oauthSetting.optional(),
    ...common,
  })
  .strict()
  .refine((server) => !server.oauth || !Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === "authorization"), {
    message: "a server with oauth gets each person's own token; remove its Authorization header",
    path: ["headers"],
  });

export type McpStdioServerConfig = z.infer<typeof stdioServer> & { name: string; transport: "stdio" };
export type McpHttpServerConfig = z.infer<typeof httpServer> & { name: string; transport: "http" };
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

const fileSchema = z
  .object({
    servers: z.record(z.string(), z.unknown()),
  })
  .strict();

export class McpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpConfigError";
  }
}

/** Parses the file's text: JSON when the name ends in .json, YAML otherwise (YAML also reads JSON). */
export function parseMcpConfigText(text: string, fileName = "mcp config"): McpServerConfig[] {
  let value: unknown;
  try {
    value = fileName.toLowerCase().endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new McpConfigError(
      `Invalid MCP config ${fileName}: not valid ${fileName.toLowerCase().endsWith(".json") ? "JSON" : "YAML"}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return parseMcpConfig(value, fileName);
}

/** Validates a parsed config; throws one McpConfigError listing every issue. */
export function parseMcpConfig(value: unknown, fileName = "mcp config"): McpServerConfig[] {
  const problems: string[] = [];
  const file = fileSchema.safeParse(value);
  if (!file.success) {
    for (const issue of file.error.issues) problems.push(line(issue.path, issue.message));
    throw new McpConfigError(`Invalid MCP config ${fileName}:\n${problems.join("\n")}`);
  }
  const servers: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(file.data.servers)) {
    if (!MCP_SERVER_NAME.test(name)) {
      problems.push(
        line(
          ["servers", name],
          "a server name must be lowercase letters, digits, '-' or '_', starting with a letter, at most 32 characters",
        ),
      );
    }
    // Pick the shape by its key first, so issues point into the server rather than at a union.
    const isHttp = typeof raw === "object" && raw !== null && "url" in raw;
    const isStdio = typeof raw === "object" && raw !== null && "command" in raw;
    if (!isHttp && !isStdio) {
      problems.push(line(["servers", name], 'needs either "command" (a stdio server) or "url" (a Streamable HTTP server)'));
      continue;
    }
    if (isHttp && isStdio) {
      problems.push(line(["servers", name], 'has both "command" and "url"; give one'));
      continue;
    }
    const result = (isHttp ? httpServer : stdioServer).safeParse(raw);
    if (!result.success) {
      for (const issue of result.error.issues) problems.push(line(["servers", name, ...issue.path], issue.message));
      continue;
    }
    servers.push({ ...result.data, name, transport: isHttp ? "http" : "stdio" } as McpServerConfig);
  }
  if (problems.length) throw new McpConfigError(`Invalid MCP config ${fileName}:\n${problems.join("\n")}`);
  return servers;
}

function line(path: readonly PropertyKey[], message: string): string {
  return `  ${path.map(String).join(".") || "(root)"}: ${message}`;
}
