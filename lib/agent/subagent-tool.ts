import { z } from "zod";
import type { ToolSpec } from "@/lib/model/types";
import { SUBAGENT_TOOL_NAME, type SubagentDefinition } from "./definitions";

/** Arguments of the `subagent` tool, as the calling model must produce them. */
export const subagentArgsSchema = z.object({
  agent: z.string().min(1),
  task: z.string().trim().min(1, "task must describe what the subagent should do"),
  objective: z.string().trim().min(1).optional(),
  artifactRefs: z.array(z.string().min(1)).max(20).optional(),
});
export type SubagentArgs = z.infer<typeof subagentArgsSchema>;

export function subagentToolSpec(definitions: readonly SubagentDefinition[]): ToolSpec {
  const list = definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n");
  return {
    name: SUBAGENT_TOOL_NAME,
    description: [
      "Delegate a task to a subagent. It works in its own clean context with its own tools and returns only its final result.",
      "Call it several times in the same step to run independent tasks in parallel; give each call ONE specific aspect and name the concrete items to look at.",
      `Available agents:\n${list}`,
    ].join("\n"),
    parameters: {
      type: "object",
      properties: {
        agent: { type: "string", enum: definitions.map((d) => d.name), description: "Which subagent to run." },
        task: { type: "string", description: "What the subagent must do, self-contained." },
        objective: {
          type: "string",
          description: "Why: the goal the result serves. Re-stated to the subagent if its context is compacted.",
        },
        artifactRefs: { type: "array", items: { type: "string" }, description: "Workspace file paths the subagent should look at." },
      },
      required: ["agent", "task"],
      additionalProperties: false,
    },
  };
}
