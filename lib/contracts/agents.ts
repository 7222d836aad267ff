import { z } from "zod";

/**
 * Subagent definitions made in the app: a person's own, shared ones (made by an admin, usable
 * by everyone) and the operator's (SUBAGENTS_FILE and the built-ins, read-only). A stored
 * definition has an id and versions: each change writes a new version and keeps the old
 * ones, read-only, for the panels of runs that ran them.
 *
 * The definition itself crosses the wire as plain JSON and is checked by the one schema
 * SUBAGENTS_FILE is checked by (`subagentDefinitionSchema`, lib/agent/definitions.ts), where
 * the server's agent service receives it: its issues come back with their paths
 * (`name`, `model.baseURL`, …) so a form shows each under its field.
 */

/** Which stored definition, at which version, a run ran with. */
export const definitionRefSchema = z.object({ id: z.string().min(1).max(64), version: z.number().int().min(1) });
export type DefinitionRef = z.infer<typeof definitionRefSchema>;

export const AGENT_SCOPES = ["mine", "shared", "operator"] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];

/** A definition as SUBAGENTS_FILE writes it: `name`, `description`, `systemPrompt`, `allowedTools`, `model`, … */
export type DefinitionFields = Record<string, unknown>;

/** One definition as a list shows it. */
export interface AgentSummary {
  /** What a chat turns on or off: a stored definition's id, or `operator:<name>`. */
  key: string;
  scope: AgentScope;
  /** Stored ones only. */
  id?: string;
  version?: number;
  /** This person may change it (their own; a shared one for an admin). */
  editable: boolean;
  /** Deleted: kept only for the panels of runs that ran it. */
  deleted?: boolean;
  updatedAt?: string;
  definition: DefinitionFields;
}

export interface AgentList {
  mine: AgentSummary[];
  shared: AgentSummary[];
  operator: AgentSummary[];
  /** With a chat named: the keys it turned off. */
  off?: string[];
  /** This person may make shared definitions (an admin). */
  canShare: boolean;
}

export interface AgentVersion {
  version: number;
  createdAt: string;
  definition: DefinitionFields;
}

/** One stored definition with every version, newest first. */
export interface AgentDetail extends AgentSummary {
  versions: AgentVersion[];
}

const idSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id");
/** The form's fields; the agent service checks them with the definitions' own schema. */
const fieldsSchema = z.record(z.string(), z.unknown());

export const agentListSchema = z.strictObject({ sessionId: idSchema.optional() });
export type AgentListInput = z.infer<typeof agentListSchema>;
export const agentGetSchema = z.strictObject({ id: idSchema });
export type AgentGet = z.infer<typeof agentGetSchema>;
export const agentCreateSchema = z.strictObject({ definition: fieldsSchema, shared: z.boolean().optional() });
export type AgentCreate = z.infer<typeof agentCreateSchema>;
export const agentUpdateSchema = z.strictObject({
  id: idSchema,
  definition: fieldsSchema,
  /** The version the form was opened on: a change made meanwhile is a conflict, not silently overwritten. */
  baseVersion: z.number().int().min(1).optional(),
});
export type AgentUpdate = z.infer<typeof agentUpdateSchema>;
/** A copy of any definition this person sees (the operator's too), as their own. */
export const agentDuplicateSchema = z.strictObject({ key: z.string().min(1).max(80) });
export type AgentDuplicate = z.infer<typeof agentDuplicateSchema>;
export const agentChatSchema = z.strictObject({ sessionId: idSchema, key: z.string().min(1).max(80), enabled: z.boolean() });
export type AgentChatInput = z.infer<typeof agentChatSchema>;

/** The HTTP routes of the same commands (server/agents/agent-routes.ts). */
export const AGENT_ROUTES = { list: "/api/agents" } as const;

/** The key of an operator's definition (theirs have no id). */
export function operatorKey(name: string): string {
  return `operator:${name}`;
}
