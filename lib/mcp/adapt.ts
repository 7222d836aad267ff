import { toolMatcher } from "@/lib/agent/tool-patterns";
import { ToolError, type Tool, type ToolContext } from "@/lib/tools/types";
import type { McpServerConfig } from "./config";
import { namespacedToolName, printableName, sanitizeToolName } from "./names";

/**
 * MCP tools as agent tools. Everything a server says is untrusted: its names are
 * sanitised (names.ts), its input schemas checked, its descriptions bounded, and its
 * results turned into plain text, capped like the workspace tools cap theirs.
 */

/** As much text as file_read returns in one call. */
export const MAX_MCP_OUTPUT_CHARS = 256 * 1024;
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_SCHEMA_CHARS = 64 * 1024;
const MAX_ERROR_CHARS = 2_000;

/** One tool as a server listed it (shape not yet trusted). */
export interface RawMcpTool {
  name?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  annotations?: unknown;
}

/** A server's answer to tools/call (shape not yet trusted). */
export interface RawMcpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/**
 * Calls one tool on its server; throws ToolError (naming the server) when the server is
 * down, times out or fails. `ask`: how the call puts the server's questions to its person.
 */
export type McpCall = (
  toolName: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  ask?: ToolContext["askInput"],
) => Promise<RawMcpCallResult>;

export interface AdaptedTools {
  tools: Tool[];
  warnings: string[];
}

/** The agent tools of one server, from its tools/list answer. Skipped tools come back as warnings. */
export function adaptMcpTools(
  server: Pick<McpServerConfig, "name" | "requireApproval">,
  listed: readonly RawMcpTool[],
  call: McpCall,
): AdaptedTools {
  const warnings: string[] = [];
  const tools: Tool[] = [];
  const seen = new Set<string>();
  const needsApproval = approvalMatcher(server.requireApproval);
  // Names that are safe as written claim their name before sanitised ones can take it.
  const ordered = [...listed].sort((a, b) => Number(!isSafe(a.name)) - Number(!isSafe(b.name)));
  for (const raw of ordered) {
    const verdict = sanitizeToolName(raw.name);
    if (!verdict.ok) {
      warnings.push(`MCP server "${server.name}": skipped the tool ${printableName(raw.name)}: ${verdict.reason}.`);
      continue;
    }
    const name = namespacedToolName(server.name, verdict.name);
    if (seen.has(name)) {
      warnings.push(
        `MCP server "${server.name}": skipped the tool ${printableName(raw.name)}: its safe name "${name}" is taken by another of its tools.`,
      );
      continue;
    }
    seen.add(name);
    if (verdict.changed)
      warnings.push(
        `MCP server "${server.name}": the tool ${printableName(raw.name)} is offered as "${name}" (unsafe characters replaced).`,
      );
    const schema = sanitizeInputSchema(raw.inputSchema);
    if (!schema.ok)
      warnings.push(
        `MCP server "${server.name}": the tool "${name}" has an unusable input schema (${schema.reason}); it accepts any object.`,
      );
    const original = raw.name as string;
    tools.push(
      mcpTool({
        name,
        serverName: server.name,
        description: describe(raw.description, server.name, verdict.name),
        parameters: schema.schema,
        requiresApproval: needsApproval
          ? needsApproval(original) || needsApproval(verdict.name) || needsApproval(name)
          : approvalByAnnotations(raw.annotations),
        run: (args, signal, ask) => call(original, args, signal, ask),
      }),
    );
  }
  return { tools, warnings };
}

interface McpToolParts {
  name: string;
  serverName: string;
  description: string;
  parameters: Record<string, unknown>;
  requiresApproval: boolean;
  run: (args: Record<string, unknown>, signal: AbortSignal, ask?: ToolContext["askInput"]) => Promise<RawMcpCallResult>;
}

function mcpTool(parts: McpToolParts): Tool<Record<string, unknown>> {
  return {
    spec: { name: parts.name, description: parts.description, parameters: parts.parameters },
    requiresApproval: parts.requiresApproval,
    // The server validates against its own schema; here only the shape every call needs.
    parse(args) {
      const value = args ?? {};
      if (typeof value !== "object" || Array.isArray(value)) throw new ToolError(`The arguments for ${parts.name} must be a JSON object.`);
      return value as Record<string, unknown>;
    },
    async run(args, context) {
      const result = await parts.run(args, context.signal, context.askInput);
      const text = mcpResultText(result);
      if (result.isError === true) {
        throw new ToolError(
          `MCP server "${parts.serverName}" answered with an error from ${parts.name}: ${clip(text || "(no message)", MAX_ERROR_CHARS)}`,
        );
      }
      return text;
    },
  };
}

function isSafe(name: unknown): boolean {
  const verdict = sanitizeToolName(name);
  return verdict.ok && !verdict.changed;
}

/** The server's rule from its config; undefined when the config says nothing (the annotations decide). */
function approvalMatcher(rule: McpServerConfig["requireApproval"]): ((name: string) => boolean) | undefined {
  if (rule === undefined) return undefined;
  if (rule === true) return () => true;
  if (rule === false || rule.length === 0) return () => false;
  return toolMatcher(rule);
}

/**
 * Whether a tool needs approval by what its server says of it, when the config is silent.
 * Annotations are hints from an untrusted server, so the safe side wins: a tool runs
 * without a person only when it says it only reads (`readOnlyHint: true`) or that it
 * destroys nothing (`destructiveHint: false`, which MCP defaults to true); a tool that
 * says nothing, or says it may destroy, waits for approval.
 */
export function approvalByAnnotations(raw: unknown): boolean {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return true;
  const hints = raw as Record<string, unknown>;
  if (hints.readOnlyHint === true) return false;
  return hints.destructiveHint !== false;
}

function describe(raw: unknown, server: string, tool: string): string {
  const text = typeof raw === "string" ? raw.trim() : "";
  return clip(text || `The ${tool} tool of the MCP server "${server}".`, MAX_DESCRIPTION_CHARS);
}

/**
 * A tool's JSON Schema as models receive it. Chat-completions providers want an object
 * schema; anything else (not an object, another type, unserialisable, huge) falls back to
 * `{type: "object"}` so the tool stays usable and the request stays valid.
 */
export function sanitizeInputSchema(
  raw: unknown,
): { ok: true; schema: Record<string, unknown> } | { ok: false; reason: string; schema: Record<string, unknown> } {
  const fallback = { type: "object" };
  // Sloppy servers leave it out for tools without arguments: nothing to warn about.
  if (raw === undefined) return { ok: true, schema: fallback };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { ok: false, reason: "not an object", schema: fallback };
  const schema = raw as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== "object")
    return { ok: false, reason: `type is ${printableName(schema.type)}, not "object"`, schema: fallback };
  if (
    schema.properties !== undefined &&
    (schema.properties === null || typeof schema.properties !== "object" || Array.isArray(schema.properties))
  ) {
    return { ok: false, reason: "properties is not an object", schema: fallback };
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return { ok: false, reason: "it cannot be serialised", schema: fallback };
  }
  if (text.length > MAX_SCHEMA_CHARS) return { ok: false, reason: `it is ${text.length} characters long`, schema: fallback };
  const { $schema: _drop, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return { ok: true, schema: { ...rest, type: "object" } };
}

/**
 * The text a model reads from a tools/call result: text blocks joined, other blocks (images,
 * audio, resources) named in one line each instead of inlined, structured content as JSON
 * when there is nothing else, capped at MAX_MCP_OUTPUT_CHARS with a note.
 */
export function mcpResultText(result: RawMcpCallResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts: string[] = [];
  let size = 0;
  for (const [i, block] of blocks.entries()) {
    // Stop joining once past the cap: a million tiny blocks must not build a huge string.
    if (size > MAX_MCP_OUTPUT_CHARS) {
      parts.push(`[${blocks.length - i} more content blocks not shown]`);
      break;
    }
    const part = blockText(block);
    parts.push(part);
    size += part.length + 1;
  }
  let text = parts.join("\n");
  if (!text && result.structuredContent !== undefined) {
    try {
      text = JSON.stringify(result.structuredContent) ?? "";
    } catch {
      text = "[structured content that cannot be shown]";
    }
  }
  if (text.length <= MAX_MCP_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_MCP_OUTPUT_CHARS)}\n[Truncated: showed ${MAX_MCP_OUTPUT_CHARS.toLocaleString("en")} of ${text.length.toLocaleString("en")} characters.]`;
}

function blockText(block: unknown): string {
  if (block === null || typeof block !== "object") return "[an unreadable content block]";
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? b.text : "[a text block without text]";
    case "image":
    case "audio":
      return `[${b.type}: ${printableName(b.mimeType ?? "unknown type")}, ${sizeOfBase64(b.data)} — not shown]`;
    case "resource": {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      const size = typeof r.text === "string" ? `${r.text.length} characters of text` : sizeOfBase64(r.blob);
      return `[embedded resource: ${printableName(r.uri ?? "no uri")}${r.mimeType ? ` (${printableName(r.mimeType)})` : ""}, ${size} — not shown]`;
    }
    case "resource_link":
      return `[resource link: ${printableName(b.name ?? "unnamed")} ${printableName(b.uri ?? "")}]`;
    default:
      return `[a content block of type ${printableName(b.type)} — not shown]`;
  }
}

function sizeOfBase64(data: unknown): string {
  if (typeof data !== "string") return "no data";
  const bytes = Math.floor((data.length * 3) / 4);
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
