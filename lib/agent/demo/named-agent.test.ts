import { describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS, type SubagentDefinition } from "../definitions";
import { masterSystemPrompt } from "../prompts";
import { subagentToolSpec } from "../subagent-tool";
import { demoReply } from "./playbooks";

/** The demo master given "@<agent> <task>": an agent made in the app can be tried without a model. */
const scout: SubagentDefinition = { ...BUILTIN_DEFINITIONS[0]!, name: "scout", description: "Scouts" };

function masterRequest(prompt: string, definitions: SubagentDefinition[]) {
  return demoReply({
    messages: [
      { role: "system", content: masterSystemPrompt(definitions, "/w") },
      { role: "user", content: prompt },
    ],
    tools: [subagentToolSpec(definitions)],
  });
}

describe("the demo master and a named agent", () => {
  it("hands the task to the agent named after @ when the subagent tool offers it", () => {
    const reply = masterRequest("@scout the release plan", [...BUILTIN_DEFINITIONS, scout]);
    expect(reply.toolCalls).toEqual([
      { name: "subagent", args: { agent: "scout", task: "the release plan", objective: "@scout the release plan" } },
    ]);
  });

  it("does not call an agent the tool does not offer (turned off, or someone else's)", () => {
    const reply = masterRequest("@scout the release plan", [...BUILTIN_DEFINITIONS]);
    expect(reply.toolCalls?.map((c) => c.args.agent) ?? []).not.toContain("scout");
  });
});
