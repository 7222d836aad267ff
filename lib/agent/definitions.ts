import { z } from "zod";
import { budgetSchema } from "@/lib/contracts";
import { REMOTE_PLACEHOLDERS, remoteAgentRefSchema } from "@/lib/remote-agents/remote-ref";

/**
 * Subagent definitions (a name, a description, a system prompt, allowed tools and the
 * model to run on). Built-ins ship here; an operator's config file may add definitions or
 * override a built-in by name — the server reads the file, `parseSubagentDefinitions`
 * validates it.
 */

export const SUBAGENT_TOOL_NAME = "subagent";

/** `maxTurns`, the old name of `maxSteps`, is still read from definition files. */
const renameMaxTurns = (value: unknown) => {
  if (typeof value !== "object" || value === null || !("maxTurns" in value) || "maxSteps" in value) return value;
  const { maxTurns, ...rest } = value as Record<string, unknown>;
  return { ...rest, maxSteps: maxTurns };
};

/** USD per million tokens, as providers publish prices. */
export const pricesSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative().finite(),
  outputPerMTok: z.number().nonnegative().finite(),
});

const MODEL_NAME_HINT = 'must name the model its endpoint knows, e.g. "gpt-4o-mini"';

/**
 * A model of a subagent's own: the model name its endpoint knows, the endpoint (default:
 * the master's OPENAI_BASE_URL), the NAME of the environment variable holding its key
 * (never the key itself, so a definitions file can be committed), its prices and the label
 * its panel shows.
 */
export const modelRefSchema = z.strictObject({
  name: z.string({ error: MODEL_NAME_HINT }).trim().min(1, MODEL_NAME_HINT),
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. "http://localhost:11434/v1"' }).optional(),
  apiKeyEnv: z
    .string()
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      'must be the NAME of an environment variable that holds the key (e.g. "REVIEWER_API_KEY"), not the key itself',
    )
    .optional(),
  prices: pricesSchema.optional(),
  label: z.string().trim().min(1).max(80).optional(),
});
export type ModelRef = z.infer<typeof modelRefSchema>;

const MODEL_CHOICES =
  'must be "chat", "system", a model key "<endpoint>/<model>" of the model menu, or an object { name, baseURL?, apiKeyEnv?, prices?, label? }';
/**
 * A model of the model menu by its key (`<endpoint>/<model>`, as lib/contracts/catalog.ts
 * spells it): opened through the catalog when a turn starts, so it must be one the catalog lists then.
 */
export const catalogModelKeySchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}\/[\x21-\x7e]{1,250}$/, { error: MODEL_CHOICES });
const namedModelSchema = z.union([z.enum(["chat", "system"]), catalogModelKeySchema], { error: MODEL_CHOICES });

/** A model key names a model of the catalog; "chat", "system" and objects do not. */
export function isCatalogModel(model: SubagentDefinition["model"]): model is string {
  return typeof model === "string" && model !== "chat" && model !== "system";
}

/**
 * `model` is a name or an object. Picked by shape rather than with a union, whose error
 * would only say "Invalid input": the operator sees the exact field that is wrong.
 */
const modelSchema = z.unknown().transform((value, ctx): "chat" | "system" | (string & {}) | ModelRef => {
  const parsed = (typeof value === "object" && value !== null ? modelRefSchema : namedModelSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
  return z.NEVER;
});

const definitionFields = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/, "must be lowercase letters, digits, '-' or '_', starting with a letter"),
  description: z.string().trim().min(1),
  systemPrompt: z.string().trim().min(1),
  /** Whitelist of tool names; include "subagent" to let this agent spawn its own subagents. */
  allowedTools: z.array(z.string().min(1)).default([]),
  /**
   * Tools (names, or patterns with `*`) whose calls by this agent wait for a person's
   * approval, besides those that always need it (the edit tools, MCP tools so configured).
   */
  requireApproval: z.array(z.string().min(1)).optional(),
  /**
   * "chat" runs it on the master's model, "system" on the (usually cheaper) system model,
   * a model key on that model of the catalog, an object on a model of its own (see `modelRefSchema`).
   */
  model: modelSchema.default("chat"),
  /** Model requests it may make before it must answer. */
  maxSteps: z.number().int().min(1).max(200).default(12),
  /** Several calls in one step run concurrently; otherwise one at a time. */
  parallelizable: z.boolean().default(true),
  /**
   * What one run of it may spend, its subagents' spending included (tokens, and dollars
   * where prices are known); reached after a model response, the run ends `budget_exceeded`.
   */
  budget: budgetSchema.optional(),
  /** Its watchdog in milliseconds; absent: SUBAGENT_TIMEOUT_MS. */
  timeoutMs: z.number().int().min(1_000).max(3_600_000).optional(),
  /**
   * Runs on a remote A2A agent instead of a model here: its description comes from the
   * agent card unless one is written, and it has no system prompt, tools or model of its own.
   */
  a2a: remoteAgentRefSchema.optional(),
});

/** A remote agent's definition needs neither a system prompt nor a description: its card says what it does. */
const fillRemoteDefaults = (value: unknown) => {
  if (typeof value !== "object" || value === null || !("a2a" in value)) return value;
  const fields = value as Record<string, unknown>;
  return { systemPrompt: REMOTE_PLACEHOLDERS.systemPrompt, description: REMOTE_PLACEHOLDERS.description, ...fields };
};
export const subagentDefinitionSchema = z.preprocess((value) => fillRemoteDefaults(renameMaxTurns(value)), definitionFields);
export type SubagentDefinition = z.infer<typeof definitionFields>;

const READ_ONLY_TOOLS = ["list_files", "grep", "file_read", "url_fetch"];
/** Change files: `general` has them (it does the work it is given), `explore` never (it only reads). */
const EDIT_TOOLS = ["file_write", "file_edit"];

export const BUILTIN_DEFINITIONS: readonly SubagentDefinition[] = Object.freeze([
  {
    name: "explore",
    description:
      "Read-only research of ONE narrow question in the workspace (and the web, if enabled). Give it a specific task; call it several times in one step for independent aspects.",
    systemPrompt: [
      "You are an explore subagent: a read-only researcher working for another agent.",
      "Investigate exactly the task you are given using your tools (list_files, grep, file_read, url_fetch).",
      "Quote the lines you rely on with their file paths. Do not speculate beyond what you found.",
      "Finish with a concise answer: findings first, then the evidence (path:line quotes).",
    ].join("\n"),
    allowedTools: READ_ONLY_TOOLS,
    model: "chat",
    maxSteps: 8,
    parallelizable: true,
  },
  {
    name: "general",
    description:
      "A general worker for multi-step tasks that need depth; it can research with the workspace tools and delegate narrower questions to its own subagents.",
    systemPrompt: [
      "You are a general subagent working for another agent.",
      "Break your task down, use the workspace tools, and delegate narrow research questions to `explore` subagents through the subagent tool when that helps.",
      "You may change files with file_edit and file_write when your task asks for it; a person approves each change, and may deny it with a reason you should follow.",
      "Finish with a clear, self-contained answer to your task.",
    ].join("\n"),
    allowedTools: [...READ_ONLY_TOOLS, ...EDIT_TOOLS, SUBAGENT_TOOL_NAME],
    model: "chat",
    maxSteps: 12,
    parallelizable: true,
  },
]);

export class SubagentConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SubagentConfigError";
  }
}

const listSchema = z.array(subagentDefinitionSchema);
const fileSchema = z.object({ subagents: listSchema });

/**
 * Validates a config file's definitions (an array, or `{ "subagents": [...] }`). Throws a
 * `SubagentConfigError` listing every problem, so the operator fixes them in one go.
 */
export function parseSubagentDefinitions(json: unknown): SubagentDefinition[] {
  // Pick the shape first, so issues point into the definitions rather than at a union.
  const result = Array.isArray(json) ? listSchema.safeParse(json) : fileSchema.transform((f) => f.subagents).safeParse(json);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new SubagentConfigError(`Invalid subagent definitions:\n${lines.join("\n")}`);
  }
  const seen = new Set<string>();
  for (const def of result.data) {
    if (seen.has(def.name)) throw new SubagentConfigError(`Invalid subagent definitions: "${def.name}" is defined twice`);
    seen.add(def.name);
  }
  return result.data;
}

/** Built-ins first; a configured definition with the same name replaces the built-in. */
export function mergeDefinitions(builtins: readonly SubagentDefinition[], configured: readonly SubagentDefinition[]): SubagentDefinition[] {
  const byName = new Map<string, SubagentDefinition>();
  for (const def of [...builtins, ...configured]) byName.set(def.name, def);
  return [...byName.values()];
}
