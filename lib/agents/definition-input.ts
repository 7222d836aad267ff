import { describeIssues, type Issue } from "@/lib/contracts";
import { subagentDefinitionSchema, SUBAGENT_TOOL_NAME, type SubagentDefinition } from "@/lib/agent/definitions";

/**
 * A definition from the app's form, checked by the very schema SUBAGENTS_FILE is checked by.
 * Issues keep their paths (`name`, `model`, `maxSteps`) so the form can show each under its
 * field; every issue is returned, not only the first, so one save shows them all.
 *
 * A person is not the operator, so the app adds limits of its own on top of the schema:
 * - no model object. Its `apiKeyEnv` names a variable of the server's environment and its
 *   `baseURL` any address: from a person, that would send the server's keys wherever they
 *   pointed it. A definition made in the app runs on "chat", "system" or a model of the menu.
 * - no `a2a.bearerTokenEnv`, for the same reason, and a remote agent's card on a private
 *   address only where A2A_ALLOWED_HOSTS allows it (checked when it is called).
 * - no `a2a.oauth`: the sign-ins people make are to the operator's remote agents.
 * - sizes, since the text is stored for every version and sent to a model on every turn.
 */
export type DefinitionInput = { ok: true; definition: SubagentDefinition } | { ok: false; issues: Issue[] };

export const APP_DEFINITION_LIMITS = { description: 1_000, systemPrompt: 20_000, tools: 100 } as const;

export const OWN_MODEL_REFUSED =
  'must be "chat", "system" or a model of the model menu; a model of its own (baseURL, apiKeyEnv) is for the operator\'s SUBAGENTS_FILE';

/** For the same reason: a variable of the server's environment would be sent to the card a person named. */
export const REMOTE_TOKEN_REFUSED =
  "a remote agent made in the app reaches agents that need no token; a token from the server's environment (bearerTokenEnv) is for the operator's SUBAGENTS_FILE";

/** Sign-ins are offered per remote agent the operator lists; one made in the app has none to use. */
export const REMOTE_SIGN_IN_REFUSED =
  "a remote agent made in the app cannot ask each person to sign in (oauth); that is for the operator's SUBAGENTS_FILE";

export function parseDefinitionInput(fields: unknown): DefinitionInput {
  const parsed = subagentDefinitionSchema.safeParse(fields);
  if (!parsed.success) return { ok: false, issues: describeIssues(parsed.error.issues) };
  const definition = parsed.data;
  const issues = appIssues(definition);
  return issues.length ? { ok: false, issues } : { ok: true, definition: plain(definition) };
}

function appIssues(definition: SubagentDefinition): Issue[] {
  const issues: Issue[] = [];
  const { description, systemPrompt, tools } = APP_DEFINITION_LIMITS;
  // The master calls subagents through the tool of that name.
  if (definition.name === SUBAGENT_TOOL_NAME) issues.push({ path: "name", message: `"${SUBAGENT_TOOL_NAME}" is the tool's own name` });
  if (definition.description.length > description)
    issues.push({ path: "description", message: `must be at most ${description} characters` });
  if (definition.systemPrompt.length > systemPrompt)
    issues.push({ path: "systemPrompt", message: `must be at most ${systemPrompt.toLocaleString("en")} characters` });
  if (definition.allowedTools.length > tools) issues.push({ path: "allowedTools", message: `at most ${tools} tools or patterns` });
  if ((definition.requireApproval?.length ?? 0) > tools)
    issues.push({ path: "requireApproval", message: `at most ${tools} tools or patterns` });
  if (typeof definition.model === "object") issues.push({ path: "model", message: OWN_MODEL_REFUSED });
  if (definition.a2a?.bearerTokenEnv) issues.push({ path: "a2a.bearerTokenEnv", message: REMOTE_TOKEN_REFUSED });
  if (definition.a2a?.oauth) issues.push({ path: "a2a.oauth", message: REMOTE_SIGN_IN_REFUSED });
  return issues;
}

/** The parsed definition as stored and sent: plain JSON, no `undefined` values. */
function plain(definition: SubagentDefinition): SubagentDefinition {
  return JSON.parse(JSON.stringify(definition)) as SubagentDefinition;
}

/** The name a copy gets: `<name>-copy`, then `-copy-2`, … until it is free, within the name's 40 characters. */
export function copyName(name: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? "-copy" : `-copy-${n}`;
    const candidate = name.slice(0, 40 - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
