import { describeIssues, type Issue } from "@/lib/contracts";
import { subagentDefinitionSchema, SUBAGENT_TOOL_NAME, type SubagentDefinition } from "@/lib/agent/definitions";

/**
 * A definition from the app's form, checked by the very schema SUBAGENTS_FILE is checked by.
 * Issues keep their paths (`name`, `model.baseURL`, `maxSteps`) so the form can show each
 * under its field; every issue is returned, not only the first, so one save shows them all.
 */
export type DefinitionInput = { ok: true; definition: SubagentDefinition } | { ok: false; issues: Issue[] };

export function parseDefinitionInput(fields: unknown): DefinitionInput {
  const parsed = subagentDefinitionSchema.safeParse(fields);
  if (!parsed.success) return { ok: false, issues: describeIssues(parsed.error.issues) };
  // The master calls subagents through the tool of that name: an agent named so would shadow nothing but confuse everyone.
  if (parsed.data.name === SUBAGENT_TOOL_NAME)
    return { ok: false, issues: [{ path: "name", message: `"${SUBAGENT_TOOL_NAME}" is the tool's own name` }] };
  return { ok: true, definition: plain(parsed.data) };
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
